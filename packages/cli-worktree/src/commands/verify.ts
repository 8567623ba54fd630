import { verifySummary } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, verifyTask } from "@ariel/core/host";
import { COMMON_ARGS, printRows, refusalError, rootArg, TASK_ARG, workspaceOf } from "./_common.ts";

const args = { ...COMMON_ARGS, ...TASK_ARG } as const satisfies ArgsDef;

/** `ariel-worktree verify`: the resume gate. */
export const verifyCommand = defineCommand({
  meta: {
    name: "verify",
    description:
      "check a task before resuming it: containment, presence, head, fingerprint (exit 0, 3 or 77)",
    usage: "--task ID [OPTIONS]",
    examples: [
      ["ariel-worktree verify --task t1", "check task t1; exit 0 when it is safe to resume"],
      ["ariel-worktree verify --task t1 && cd .ariel/worktrees/t1/api", "resume only after the check"],
      ["ariel-worktree verify --task t1 --json", "one record per leg with the checks that passed"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const taskId = ctx.args.task;
  const { ports, root, via } = await workspaceOf(ctx);
  const result = await verifyTask(ports, { root, taskId });
  if (ctx.args.json) for (const l of result.legs) ctx.out.record({ ...l });
  else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "OK", "PROBLEM", "PATH"],
      result.legs.map((l) => [l.task, l.source, l.ok ? "ok" : "FAIL", l.code ?? "-", l.path]),
    );
  }
  for (const l of result.legs) {
    if (l.code && l.message) {
      ctx.log.error(refusalError(l.code, l.message, { task: taskId, source: l.source, path: l.path }));
    }
  }
  const failed = result.legs.flatMap((l) => (l.code ? [{ source: l.source, code: l.code }] : []));
  if (failed.length > 0) {
    ctx.log.info(
      verifySummary({ task: taskId, legs: result.legs.length, failed, ...rootArg(ctx, root, via) }),
    );
  }
  return result.exit;
}
