import { ALLOWABLE, removeRefusalSummary } from "@ariel/core";
import type { CommandSpec, RunContext } from "@ariel/core/host";
import { removeTask } from "@ariel/core/host";
import {
  COMMON_FLAGS,
  dryRunExit,
  list,
  MUTATING_FLAGS,
  noPositionals,
  printRows,
  refusalError,
  rootArg,
  TASK_FLAG,
  taskOf,
  withProgress,
  workspaceOf,
} from "./_common.ts";

/** `ariel-worktree remove`: remove a task's worktrees, keeping branches and refusing to lose work. */
export const removeCommand: CommandSpec = {
  name: "remove",
  description: "remove a task's worktrees (branches are kept; refuses to lose work)",
  usage: "--task ID [--source NAME...] [--allow REASON...] [--snapshot] [OPTIONS]",
  flags: {
    ...COMMON_FLAGS,
    ...MUTATING_FLAGS,
    task: TASK_FLAG,
    source: { type: "string", multiple: true, valueHint: "NAME", description: "only this leg (repeatable)" },
    allow: {
      type: "string",
      multiple: true,
      valueHint: "REASON",
      description: `override one refusal (repeatable): ${ALLOWABLE.join(", ")}`,
    },
    snapshot: {
      type: "boolean",
      description: "first save all local work under refs/ariel/snapshots/<task>/<leg>",
    },
  },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  noPositionals(ctx);
  const taskId = taskOf(ctx);
  const { ports, root, via } = await workspaceOf(ctx);
  const sources = list(ctx, "source");
  const dryRun = ctx.flags["dry-run"] === true;
  const result = await withProgress(ctx, (onProgress) =>
    removeTask(ports, {
      root,
      taskId,
      allow: list(ctx, "allow"),
      snapshot: ctx.flags.snapshot === true,
      dryRun,
      ...(sources.length > 0 ? { sources } : {}),
      onProgress,
    }),
  );
  if (result.refused) {
    for (const leg of result.plan.legs) {
      for (const r of leg.standing) {
        ctx.log.error(
          refusalError(r.code, r.message, {
            task: taskId,
            source: leg.source,
            path: leg.worktreePath,
            reason: r.reason,
            ...(r.items ? { items: r.items } : {}),
          }),
        );
      }
    }
    const refused = result.plan.legs.flatMap((l) =>
      l.standing[0] ? [{ source: l.source, reason: l.standing[0].reason }] : [],
    );
    ctx.log.info(
      removeRefusalSummary({
        task: taskId,
        refused,
        snapshot: ctx.flags.snapshot === true,
        sources,
        ...rootArg(ctx, root, via),
      }),
    );
    return 3;
  }
  if (dryRun) {
    const steps = result.plan.legs.filter((l) => l.action === "remove" || l.action === "forget");
    if (ctx.flags.json) {
      for (const l of steps) {
        ctx.out.record({
          v: 1,
          type: "plan",
          action: l.action === "remove" ? "worktree.remove" : "worktree.forget",
          task: taskId,
          source: l.source,
          path: l.worktreePath,
          snapshot: l.snapshot,
          allowed: l.refusals.map((r) => r.reason),
        });
      }
    } else {
      printRows(
        ctx,
        ["ACTION", "TASK", "SOURCE", "SNAPSHOT", "PATH"],
        steps.map((l) => [l.action, taskId, l.source, l.snapshot ? "yes" : "no", l.worktreePath]),
      );
    }
    return dryRunExit(ctx, steps.length);
  }
  for (const r of result.results) {
    if (ctx.flags.json) {
      ctx.out.record({
        v: 1,
        type: "removal",
        task: taskId,
        source: r.source,
        path: r.worktreePath,
        outcome: r.outcome,
        ...(r.snapshot ? { snapshotRef: r.snapshot.ref, snapshotCommit: r.snapshot.commit } : {}),
      });
    }
  }
  if (!ctx.flags.json) {
    printRows(
      ctx,
      ["TASK", "SOURCE", "OUTCOME", "PATH"],
      result.results.map((r) => [taskId, r.source, r.outcome, r.worktreePath]),
    );
  }
  return 0;
}
