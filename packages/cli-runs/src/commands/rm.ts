import { type ArgsDef, defineCommand, type RunContext, removeCorruptRun, removeRun } from "@ariel/core/host";
import { controlledRun, corruptRunOf, dryRunExit, RUN_CONTROL_ARGS } from "./_common.ts";

const args = {
  ...RUN_CONTROL_ARGS,
  force: {
    type: "boolean",
    alias: "f",
    description:
      "kill the run first when it is live; wait (up to 30 s) for its monitor to finish with an ended run; remove a run whose record is damaged (named by its id)",
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
  const corrupt = a.force === true ? await corruptRunOf(ctx) : null;
  if (
    corrupt &&
    (await removeCorruptRun(corrupt.ws.root, corrupt.backend, corrupt.runId, corrupt.dryRun)) === "removed"
  ) {
    return report(ctx, corrupt.runId, "corrupt", corrupt.dryRun);
  }
  const { ws, backend, runId, graceMs, dryRun } = await controlledRun(ctx);
  const view = await removeRun(ws.root, backend, runId, {
    force: a.force === true,
    graceMs,
    dryRun,
    ref: a.run,
  });
  return report(ctx, runId, view.state, dryRun);
}

/** Say what was (or, with -n, would be) removed; the exit status. */
function report(ctx: RunContext<typeof args>, runId: string, state: string, dryRun: boolean): number {
  if (ctx.args.json) {
    ctx.out.record({ v: 1, type: dryRun ? "plan" : "removed", action: "run.remove", runId, state });
  } else ctx.out.write(`${dryRun ? "would remove" : "removed"} ${runId} (${state})\n`);
  return dryRun ? dryRunExit(ctx.args, 1) : 0;
}
