import { type ArgsDef, defineCommand, type RunContext, respawnRun, runRecordOut } from "@ariel/core/host";
import { controlledRun, dryRunExit, printRuns, RUN_CONTROL_ARGS } from "./_common.ts";

const args = {
  ...RUN_CONTROL_ARGS,
  resume: {
    type: "boolean",
    description:
      "go on with the agent's conversation: the session it reported (claude --resume ID, codex resume ID), else its latest (--continue, resume --last)",
  },
} as const satisfies ArgsDef;

/** `ariel-runs respawn RUN`: the same spec under a new run id (the old one killed first when live). */
export const respawnCommand = defineCommand({
  meta: {
    name: "respawn",
    description:
      "start a run again with the same spec (new run id, respawnOf link); a live one is killed first",
    usage: "RUN [--resume] [--grace 10s] [OPTIONS]",
    examples: [
      ["ariel-runs respawn agent@web", "try a failed run again"],
      ["ariel-runs respawn -n --json agent@web", "the run it would start"],
      ["ariel-runs respawn --resume agent-1", "an agent lost in a reboot picks its conversation up"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  const { ports, ws, backend, runId, graceMs, dryRun } = await controlledRun(ctx);
  const r = await respawnRun(ports, ws.root, backend, runId, { graceMs, dryRun, resume: a.resume === true });
  if (r.session === null) {
    ctx.log.warn(
      "WARN_RESUME_LATEST",
      `run ${runId}: its agent reported no session; resuming the latest conversation in its directory`,
      { runId },
    );
  }
  if (r.started === null) {
    if (a.json) {
      ctx.out.record({
        ...runRecordOut({ record: r.planned, state: "starting", exit: null }),
        type: "plan",
        action: "run.respawn",
      });
    } else ctx.out.write(`would respawn ${runId} as ${r.planned.runId}\n`);
    return dryRunExit(a, 1);
  }
  printRuns(ctx, [r.started]);
  return r.status;
}
