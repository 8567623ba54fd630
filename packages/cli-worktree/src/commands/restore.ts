import type { CommandSpec, RunContext } from "@ariel/core/host";
import { restoreTask } from "@ariel/core/host";
import {
  COMMON_FLAGS,
  dryRunExit,
  list,
  MUTATING_FLAGS,
  noPositionals,
  printRows,
  TASK_FLAG,
  taskOf,
  withProgress,
  workspaceOf,
} from "./_common.ts";

/** `ariel-worktree restore`: bring removed legs back, with their snapshots. */
export const restoreCommand: CommandSpec = {
  name: "restore",
  description: "re-make a task's removed worktrees from their branches and re-apply their snapshots",
  usage: "--task ID [--source NAME...] [OPTIONS]",
  flags: {
    ...COMMON_FLAGS,
    ...MUTATING_FLAGS,
    task: TASK_FLAG,
    source: { type: "string", multiple: true, valueHint: "NAME", description: "only this leg (repeatable)" },
  },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  noPositionals(ctx);
  const taskId = taskOf(ctx);
  const { ports, root } = await workspaceOf(ctx);
  const sources = list(ctx, "source");
  const dryRun = ctx.flags["dry-run"] === true;
  const { record, results } = await withProgress(ctx, (onProgress) =>
    restoreTask(ports, {
      root,
      taskId,
      dryRun,
      ...(sources.length > 0 ? { sources } : {}),
      onProgress,
    }),
  );
  const todo = results.filter((r) => r.outcome === "restored");
  if (dryRun) {
    if (ctx.flags.json) {
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
    return dryRunExit(ctx, todo.length);
  }
  if (ctx.flags.json) ctx.out.record({ ...record });
  else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "OUTCOME", "PATH"],
      results.map((r) => [taskId, r.source, r.outcome, r.worktreePath]),
    );
  }
  return 0;
}
