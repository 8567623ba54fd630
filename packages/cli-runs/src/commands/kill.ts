import { ArielError, FINAL_STATES } from "@ariel/core";
import { type CommandSpec, killRun, type RunContext } from "@ariel/core/host";
import {
  backendOf,
  COMMON_FLAGS,
  DRY_RUN_FLAG,
  GRACE_FLAG,
  graceOf,
  printRuns,
  runArgs,
  runIdOf,
  str,
} from "./_common.ts";

/** `ariel-runs kill RUN`: signal its process group; TERM, then KILL after --grace. */
export const killCommand: CommandSpec = {
  name: "kill",
  description: "stop a run: its whole process group, TERM then KILL after --grace",
  usage: "RUN [--signal S] [--grace 10s] [OPTIONS]",
  positionals: true,
  flags: {
    ...COMMON_FLAGS,
    ...DRY_RUN_FLAG,
    ...GRACE_FLAG,
    signal: { type: "string", short: "s", valueHint: "S", description: "the first signal (default TERM)" },
  },
  run,
};

const SIGNALS = new Set(["TERM", "INT", "HUP", "KILL", "QUIT", "USR1", "USR2"]);

async function run(ctx: RunContext): Promise<number> {
  const [ref] = runArgs(ctx);
  const raw = (str(ctx, "signal") ?? "TERM").toUpperCase().replace(/^SIG/, "");
  if (!SIGNALS.has(raw)) {
    throw new ArielError("ERR_USAGE", `unknown signal ${JSON.stringify(str(ctx, "signal"))}`, {
      hint: `signals: ${[...SIGNALS].join(", ")}`,
    });
  }
  const graceMs = graceOf(ctx);
  const { ws, backend } = await backendOf(ctx);
  const runId = await runIdOf(backend, ref!);
  if (ctx.flags["dry-run"]) {
    const v = await backend.get(runId);
    const live = !FINAL_STATES.has(v.state) || (v.state === "lost" && (await backend.groupAlive(v)));
    if (ctx.flags.json)
      ctx.out.record({
        v: 1,
        type: "plan",
        action: live ? "run.kill" : "none",
        runId,
        state: v.state,
        signal: `SIG${raw}`,
      });
    else ctx.out.write(`${live ? `would send SIG${raw} to` : "nothing to kill in"} ${runId} (${v.state})\n`);
    return 0;
  }
  const { view, alreadyEnded } = await killRun(ws.root, backend, runId, { signal: `SIG${raw}`, graceMs });
  if (view === null) {
    ctx.log.info(`run ${runId} ended and was removed meanwhile`);
    return 0;
  }
  if (alreadyEnded) ctx.log.info(`run ${runId} had already ended (${view.state}); nothing was signalled`);
  printRuns(ctx, [view]);
  if (!FINAL_STATES.has(view.state) || (await backend.groupAlive(view))) {
    throw new ArielError("ERR_REFUSED", `run ${runId} did not end after SIGKILL`, {
      hint: "check the processes with ps -g PGID",
      exit: 1,
    });
  }
  return 0;
}
