import { type CommandSpec, type RunContext, respawnRun, runRecordOut } from "@ariel/core/host";
import {
  backendOf,
  COMMON_FLAGS,
  DRY_RUN_FLAG,
  GRACE_FLAG,
  graceOf,
  printRuns,
  runArgs,
  runIdOf,
} from "./_common.ts";

/** `ariel-runs respawn RUN`: the same spec under a new run id (the old one killed first when live). */
export const respawnCommand: CommandSpec = {
  name: "respawn",
  description:
    "start a run again with the same spec (new run id, respawnOf link); a live one is killed first",
  usage: "RUN [--grace 10s] [OPTIONS]",
  positionals: true,
  flags: { ...COMMON_FLAGS, ...DRY_RUN_FLAG, ...GRACE_FLAG },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  const [ref] = runArgs(ctx);
  const { ports, ws, backend } = await backendOf(ctx);
  const runId = await runIdOf(backend, ref!);
  const r = await respawnRun(ports, ws.root, backend, runId, {
    graceMs: graceOf(ctx),
    dryRun: ctx.flags["dry-run"] === true,
  });
  if (r.started === null) {
    if (ctx.flags.json)
      ctx.out.record({
        ...runRecordOut({ record: r.planned, state: "starting", exit: null }),
        type: "plan",
        action: "run.respawn",
      });
    else ctx.out.write(`would respawn ${runId} as ${r.planned.runId}\n`);
    return 0;
  }
  printRuns(ctx, [r.started]);
  return r.status;
}
