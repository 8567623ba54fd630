import { ALLOWABLE, removeRefusalSummary } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, removeTask, reportHooks } from "@ariel/core/host";
import {
  COMMON_ARGS,
  dryRunExit,
  LEG_SOURCE_ARG,
  MUTATING_ARGS,
  NO_HOOKS_ARG,
  printLifecyclePlan,
  printRows,
  refusalError,
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
} as const satisfies ArgsDef;

/** `ariel-worktree remove`: remove a task's worktrees, keeping branches and refusing to lose work. */
export const removeCommand = defineCommand({
  meta: {
    name: "remove",
    description: "remove a task's worktrees (branches are kept; refuses to lose work)",
    usage: "--task ID [--source NAME...] [--allow REASON...] [--snapshot] [OPTIONS]",
    examples: [
      ["ariel-worktree remove --task t1", "remove t1's worktrees if they hold no local work"],
      [
        "ariel-worktree remove --task t1 --snapshot",
        "save local work under refs/ariel/snapshots/t1/, then remove",
      ],
      [
        "ariel-worktree remove --task t1 --source web --allow dirty",
        "remove only web's leg, dropping its changes",
      ],
      ["ariel-worktree remove -n --detailed-exitcode --task t1", "exit 2 if there is something to remove"],
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
  const result = await withProgress(ctx, (onProgress) =>
    removeTask(ports, {
      root,
      taskId,
      allow: ctx.args.allow,
      snapshot: ctx.args.snapshot === true,
      dryRun,
      ...(sources.length > 0 ? { sources } : {}),
      ...(ctx.args["no-hooks"] === true ? { noHooks: true } : {}),
      onProgress,
    }),
  );
  reportHooks(ctx.log, result.hooks, { task: taskId, ...rootArg(ctx, root, via) });
  if (result.hooks && result.hooks.failed.length > 0) {
    const legs = result.hooks.failed.map((f) => f.source).join(", ");
    ctx.log.info(
      `kept ${taskId}: the pre-remove hook of ${legs} failed, nothing was removed; log: ${result.hooks.log}; to remove without hooks: ariel-worktree remove --task ${taskId} --no-hooks`,
    );
    return 3;
  }
  if (result.refused) return reportRefused(ctx, result, { taskId, sources, root, via });
  if (dryRun) return printPlan(ctx, taskId, result);
  printRemovals(ctx, taskId, result);
  return 0;
}

type RemoveResult = Awaited<ReturnType<typeof removeTask>>;
type Where = Awaited<ReturnType<typeof workspaceOf>>["via"];

/** A refused removal: an error record per standing refusal, then the closing summary; exit 3. */
function reportRefused(
  ctx: RunContext<typeof args>,
  result: RemoveResult,
  at: { taskId: string; sources: string[]; root: string; via: Where },
): number {
  const { taskId, sources, root, via } = at;
  // A leg refused at its removal (new work): the legs removed before it are said too.
  const removed = result.results
    .filter((r, i) => result.plan.legs[i]?.action === "remove" && r.outcome !== "kept")
    .map((r) => r.source);
  for (const leg of result.plan.legs) {
    for (const r of leg.standing) {
      ctx.log.error(
        refusalError(
          r.code,
          r.message,
          {
            task: taskId,
            source: leg.source,
            path: leg.worktreePath,
            reason: r.reason,
            ...(r.items ? { items: r.items } : {}),
          },
          removed,
        ),
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
      snapshot: ctx.args.snapshot === true,
      sources,
      ...rootArg(ctx, root, via),
      removed,
    }),
  );
  return 3;
}

/** The dry run's plan: a `plan` record (or a row) per leg it removes or forgets. */
function printPlan(ctx: RunContext<typeof args>, taskId: string, result: RemoveResult): number {
  const steps = result.plan.legs.filter((l) => l.action === "remove" || l.action === "forget");
  if (ctx.args.json) {
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
  printLifecyclePlan(ctx, taskId, result.lifecycle);
  return dryRunExit(ctx, steps.length);
}

/** What happened to each leg: a `removal` record each, or a table. */
function printRemovals(ctx: RunContext<typeof args>, taskId: string, result: RemoveResult): void {
  if (ctx.args.json) {
    for (const r of result.results) {
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
    return;
  }
  printRows(
    ctx,
    ["TASK", "SOURCE", "OUTCOME", "PATH"],
    result.results.map((r) => [taskId, r.source, r.outcome, r.worktreePath]),
  );
}
