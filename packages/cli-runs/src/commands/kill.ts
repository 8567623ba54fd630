import { ArielError, KILL_SIGNALS, parseKillSignal, runIsLive, runIsOver } from "@ariel/core";
import { type ArgsDef, defineCommand, killRun, type RunContext, runLabel } from "@ariel/core/host";
import { controlledRun, dryRunExit, printRuns, RUN_CONTROL_ARGS } from "./_common.ts";

const args = {
  ...RUN_CONTROL_ARGS,
  signal: { type: "string", alias: "s", valueHint: "S", description: "the first signal (default TERM)" },
} as const satisfies ArgsDef;

/** `ariel-runs kill RUN`: signal its process group; TERM, then KILL after --grace. */
export const killCommand = defineCommand({
  meta: {
    name: "kill",
    description: "stop a run: its whole process group, TERM then KILL after --grace",
    usage: "RUN [--signal S] [--grace 10s] [OPTIONS]",
    examples: [
      ["ariel-runs kill fix-login", "TERM to its group, KILL after 10 s"],
      ["ariel-runs kill --signal INT --grace 30s fix-login", "INT first, a longer grace"],
      ["ariel-runs kill -n fix-login", "say what would be signalled"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  const signal = parseKillSignal(a.signal);
  if (signal === null) {
    throw new ArielError("ERR_USAGE", `unknown signal ${JSON.stringify(a.signal)}`, {
      hint: `signals: ${KILL_SIGNALS.join(", ")}`,
    });
  }
  const { ws, backend, runId, graceMs, dryRun } = await controlledRun(ctx);
  if (dryRun) {
    const v = await backend.get(runId);
    const live = await runIsLive(v.state, () => backend.groupAlive(v));
    if (a.json) {
      ctx.out.record({
        v: 1,
        type: "plan",
        action: live ? "run.kill" : "none",
        runId,
        state: v.state,
        signal,
      });
    } else
      ctx.out.write(`${live ? `would send ${signal} to` : "nothing to kill in"} ${runId} (${v.state})\n`);
    return dryRunExit(a, live ? 1 : 0);
  }
  const { view, alreadyEnded } = await killRun(ws.root, backend, runId, { signal, graceMs });
  if (view === null) {
    ctx.log.info(`run ${runId} ended and was removed meanwhile`);
    return 0;
  }
  if (alreadyEnded)
    ctx.log.info(`run ${runLabel(view.record)} had already ended (${view.state}); nothing was signalled`);
  printRuns(ctx, [view]);
  if (!(await runIsOver(view.state, () => backend.groupAlive(view)))) {
    throw new ArielError("ERR_REFUSED", `run ${runId} did not end after SIGKILL`, {
      hint: "check the processes with ps -g PGID",
      exit: 1,
    });
  }
  return 0;
}
