import { type CommandSpec, type RunContext, removeRun } from "@ariel/core/host";
import { backendOf, COMMON_FLAGS, DRY_RUN_FLAG, GRACE_FLAG, graceOf, runArgs, runIdOf } from "./_common.ts";

/** `ariel-runs rm RUN`: remove an ended run's directory and history. */
export const rmCommand: CommandSpec = {
  name: "rm",
  description: "remove an ended run (its output and history); --force kills a live one first",
  usage: "RUN [--force] [OPTIONS]",
  positionals: true,
  flags: {
    ...COMMON_FLAGS,
    ...DRY_RUN_FLAG,
    ...GRACE_FLAG,
    force: { type: "boolean", short: "f", description: "kill the run first when it is live" },
  },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  const [ref] = runArgs(ctx);
  const { ws, backend } = await backendOf(ctx);
  const runId = await runIdOf(backend, ref!);
  const dryRun = ctx.flags["dry-run"] === true;
  const view = await removeRun(ws.root, backend, runId, {
    force: ctx.flags.force === true,
    graceMs: graceOf(ctx),
    dryRun,
  });
  if (ctx.flags.json) {
    ctx.out.record({
      v: 1,
      type: dryRun ? "plan" : "removed",
      action: "run.remove",
      runId,
      state: view.state,
    });
  } else ctx.out.write(`${dryRun ? "would remove" : "removed"} ${runId} (${view.state})\n`);
  return 0;
}
