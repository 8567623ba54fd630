import { type ArgsDef, defineCommand, type RunContext, removeRun } from "@ariel/core/host";
import { controlledRun, dryRunExit, RUN_CONTROL_ARGS } from "./_common.ts";

const args = {
  ...RUN_CONTROL_ARGS,
  force: {
    type: "boolean",
    alias: "f",
    description:
      "kill the run first when it is live; wait (up to 30 s) for its monitor to finish with an ended run",
  },
} as const satisfies ArgsDef;

/** `ariel-runs rm RUN`: remove an ended run's directory and history. */
export const rmCommand = defineCommand({
  meta: {
    name: "rm",
    description: "remove an ended run (its output and history); --force kills a live one first",
    usage: "RUN [--force] [OPTIONS]",
    examples: [
      ["ariel-runs rm fix-login", "remove an ended run"],
      ["ariel-runs rm --force fix-login", "kill it first if it still runs"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  const { ws, backend, runId, graceMs, dryRun } = await controlledRun(ctx);
  const view = await removeRun(ws.root, backend, runId, { force: a.force === true, graceMs, dryRun });
  if (a.json) {
    ctx.out.record({
      v: 1,
      type: dryRun ? "plan" : "removed",
      action: "run.remove",
      runId,
      state: view.state,
    });
  } else ctx.out.write(`${dryRun ? "would remove" : "removed"} ${runId} (${view.state})\n`);
  return dryRun ? dryRunExit(a, 1) : 0;
}
