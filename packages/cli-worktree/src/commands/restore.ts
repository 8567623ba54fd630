import { type ArgsDef, defineCommand, type RunContext, reportHooks, restoreTask } from "@ariel/core/host";
import {
  COMMON_ARGS,
  dryRunExit,
  LEG_SOURCE_ARG,
  MUTATING_ARGS,
  NO_HOOKS_ARG,
  printLifecyclePlan,
  printRows,
  rootArg,
  TASK_ARG,
  withProgress,
  workspaceOf,
} from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...MUTATING_ARGS,
  ...NO_HOOKS_ARG,
  ...TASK_ARG,
  ...LEG_SOURCE_ARG,
} as const satisfies ArgsDef;

/** `ariel-worktree restore`: bring removed legs back, with their snapshots. */
export const restoreCommand = defineCommand({
  meta: {
    name: "restore",
    description: "re-make a task's removed worktrees from their branches and re-apply their snapshots",
    usage: "--task ID [--source NAME...] [OPTIONS]",
    examples: [
      ["ariel-worktree restore --task t1", "bring back every removed leg of t1, with its snapshot"],
      ["ariel-worktree restore --task t1 --source api", "bring back api's leg only"],
      ["ariel-worktree restore -n --task t1", "show what would be restored"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const taskId = ctx.args.task;
  const { ports, root, via } = await workspaceOf(ctx);
  const sources = ctx.args.source;
  const dryRun = ctx.args["dry-run"] === true;
  const { record, results, hooks, lifecycle } = await withProgress(ctx, (onProgress) =>
    restoreTask(ports, {
      root,
      taskId,
      dryRun,
      ...(ctx.args["no-hooks"] === true ? { noHooks: true } : {}),
      ...(sources.length > 0 ? { sources } : {}),
      onProgress,
    }),
  );
  const todo = results.filter((r) => r.outcome === "restored");
  if (dryRun) {
    if (ctx.args.json) {
      for (const r of todo) {
        ctx.out.record({
          v: 1,
          type: "plan",
          action: "worktree.restore",
          task: taskId,
          source: r.source,
          branch: r.branch,
          path: r.worktreePath,
          ...(r.snapshot ? { snapshotRef: r.snapshot.ref, snapshotCommit: r.snapshot.commit } : {}),
        });
      }
    } else {
      printRows(
        ctx,
        ["ACTION", "TASK", "SOURCE", "SNAPSHOT", "PATH"],
        todo.map((r) => ["restore", taskId, r.source, r.snapshot?.ref ?? "-", r.worktreePath]),
      );
    }
    printLifecyclePlan(ctx, taskId, lifecycle);
    return dryRunExit(ctx, todo.length);
  }
  const failed = reportHooks(ctx.log, hooks, { task: taskId, ...rootArg(ctx, root, via) });
  if (ctx.args.json) ctx.out.record({ ...record });
  else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "OUTCOME", "PATH"],
      results.map((r) => [taskId, r.source, r.outcome, r.worktreePath]),
    );
  }
  if (failed > 0) {
    ctx.log.info(`restored task ${taskId}, but ${failed} post-restore hook(s) failed; log: ${hooks?.log}`);
    return 1;
  }
  return 0;
}
