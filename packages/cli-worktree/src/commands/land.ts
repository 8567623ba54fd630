import {
  ArielError,
  ERROR_CODES,
  type ErrorCode,
  LAND_STRATEGIES,
  type LandPlan,
  type LandStrategy,
  landRemovalHint,
} from "@ariel/core";
import {
  type ArgsDef,
  defineCommand,
  type LandTaskResult,
  landRecords,
  landTask,
  type RunContext,
  warnWithHint,
} from "@ariel/core/host";
import {
  COMMON_ARGS,
  dryRunExit,
  MUTATING_ARGS,
  NO_HOOKS_ARG,
  printLifecyclePlan,
  printRows,
  TASK_ARG,
  workspaceOf,
} from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...MUTATING_ARGS,
  ...TASK_ARG,
  ...NO_HOOKS_ARG,
  into: {
    type: "string",
    valueHint: "BRANCH",
    description: "land into this branch (default: each source's checked-out branch)",
  },
  strategy: {
    type: "string",
    valueHint: "ff|merge|squash|rebase",
    default: "merge",
    description: "how the commits land: fast-forward, a merge commit, one squashed commit, or replayed",
  },
  remove: {
    type: "boolean",
    description: "then remove the task and delete the branches it landed that the target contains",
  },
} as const satisfies ArgsDef;

/** `ariel-worktree land`: bring a task's branches home, every leg or none. */
export const landCommand = defineCommand({
  meta: {
    name: "land",
    description: "land a task's branches into their targets: every leg checked first, then all land or none",
    usage: "--task ID [--into BRANCH] [--strategy ff|merge|squash|rebase] [--remove] [OPTIONS]",
    examples: [
      ["ariel-worktree land -n --task t1", "show what would land where, and any conflict"],
      ["ariel-worktree land --task t1 --strategy squash --into main", "one commit per repository on main"],
      ["ariel-worktree land --task t1 --remove", "merge every leg, then remove the task"],
    ],
  },
  args,
  run,
});

function strategyOf(value: string): LandStrategy {
  if ((LAND_STRATEGIES as readonly string[]).includes(value)) return value as LandStrategy;
  throw new ArielError("ERR_USAGE", `unknown --strategy ${JSON.stringify(value)}`, {
    hint: `use one of: ${LAND_STRATEGIES.join(", ")}`,
  });
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const taskId = ctx.args.task;
  const { ports, root } = await workspaceOf(ctx);
  const dryRun = ctx.args["dry-run"] === true;
  const into = ctx.args.into;
  const result = await landTask(ports, {
    root,
    taskId,
    strategy: strategyOf(ctx.args.strategy),
    remove: ctx.args.remove === true,
    dryRun,
    ...(into !== undefined ? { into } : {}),
    ...(ctx.args["no-hooks"] === true ? { noHooks: true } : {}),
  });
  // Every reason of every leg in one answer: the land's own and those of the removal --remove checks first.
  if (result.plan.refused || result.removal?.refused) return refuse(ctx, result);
  if (dryRun) {
    printPlan(ctx, result.plan);
    printLifecyclePlan(ctx, taskId, result.lifecycle);
    return dryRunExit(ctx, result.plan.changes);
  }
  printLanded(ctx, result);
  return postLandHooks(ctx, result);
}

/** The land's hooks' warnings; a failed post-land hook (the land stands) is exit 1 with the retry. */
function postLandHooks(ctx: RunContext<typeof args>, result: LandTaskResult): number {
  for (const h of result.hooks ?? []) for (const w of h.warnings) warnWithHint(ctx.log, w);
  const post = result.hooks?.find((h) => h.results.some((r) => r.event === "post-land"));
  const failed = post?.failed[0];
  if (!post || !failed) return 0;
  ctx.log.info(
    `landed ${result.plan.task}, but the post-land hook of ${failed.source} failed; log: ${post.log}; again: ariel-worktree hooks run --task ${result.plan.task} --event post-land`,
  );
  return 1;
}

/**
 * A refused land (or a removal `--remove` would refuse): one error per reason of every leg, the
 * land's and the removal's together, each with a hint that names only what `land` accepts; then
 * one line naming every refused leg with its reasons. Nothing changed: exit 3.
 */
function refuse(ctx: RunContext<typeof args>, result: LandTaskResult): number {
  const task = result.plan.task;
  const refused: string[] = [];
  for (const leg of result.plan.legs) {
    const removal = result.removal?.plan.legs.find((l) => l.source === leg.source);
    const standing = removal?.standing ?? [];
    for (const r of leg.refusals) {
      ctx.log.error(
        refusalOf(r.code, r.message, r.hint, {
          task,
          source: leg.source,
          reason: r.reason,
          ...(r.items ? { items: r.items } : {}),
        }),
      );
    }
    for (const r of standing) {
      const hint = landRemovalHint(
        task,
        { source: leg.source, worktreePath: removal!.worktreePath },
        r.reason,
      );
      ctx.log.error(
        refusalOf(r.code, r.message, hint, {
          task,
          source: leg.source,
          reason: r.reason,
          remove: true,
          ...(r.items ? { items: r.items } : {}),
        }),
      );
    }
    const reasons = [...leg.refusals.map((r) => r.reason), ...standing.map((r) => r.reason)];
    if (reasons.length > 0) refused.push(`${leg.source} (${reasons.join(", ")})`);
  }
  ctx.log.info(
    `nothing landed: ${refused.join(", ")} refused; ariel-worktree diff --task ${task} shows the task`,
  );
  return 3;
}

/** A land refusal as an error: its code (ERR_REFUSED when not one of ours), its hint, and that nothing changed. */
function refusalOf(
  code: string,
  message: string,
  hint: string,
  context: Record<string, unknown>,
): ArielError {
  const c = (code in ERROR_CODES ? code : "ERR_REFUSED") as ErrorCode;
  return new ArielError(c, message, { hint: `${hint}; nothing was changed`, context });
}

function printPlan(ctx: RunContext<typeof args>, plan: LandPlan): void {
  if (ctx.args.json) {
    for (const l of plan.legs) {
      ctx.out.record({
        v: 1,
        type: "plan",
        action: l.action === "land" ? "task.land" : "task.land.skip",
        task: plan.task,
        source: l.source,
        branch: l.branch,
        target: l.target,
        strategy: plan.strategy,
        from: l.from,
        to: l.to,
        commits: l.commits,
        checkout: l.checkout,
      });
    }
    return;
  }
  printRows(
    ctx,
    ["ACTION", "TASK", "SOURCE", "BRANCH", "TARGET", "COMMITS", "STRATEGY"],
    plan.legs.map((l) => [
      l.action,
      plan.task,
      l.source,
      l.branch,
      l.target ?? "-",
      String(l.commits),
      plan.strategy,
    ]),
  );
}

function printLanded(ctx: RunContext<typeof args>, result: LandTaskResult): void {
  for (const l of result.plan.legs) {
    if (l.uncommitted.length > 0) {
      ctx.log.warn(
        "W_UNCOMMITTED",
        `${l.source}: ${l.uncommitted.length} uncommitted path(s) in the leg were not landed`,
        {
          task: result.plan.task,
          source: l.source,
        },
      );
    }
  }
  const rows = landRecords(result).map((r) => ({
    ...r,
    branchDeleted: result.deletedBranches.some((d) => d.source === r.source),
    ...(result.removal
      ? { worktree: result.removal.results.find((l) => l.source === r.source)?.outcome ?? null }
      : {}),
  }));
  if (ctx.args.json) for (const r of rows) ctx.out.record(r);
  else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "TARGET", "OUTCOME", "COMMIT"],
      rows.map((r) => [r.task, r.source, r.target ?? "-", r.outcome, (r.to ?? "-").slice(0, 12)]),
    );
  }
  const removed = removedLine(result);
  if (removed !== null) ctx.log.info(removed);
}

/**
 * What `--remove` did after the land, in one line: the worktrees it removed (or found gone),
 * the branches it deleted and those it kept (a squash or rebase leaves them: the target does
 * not contain them).
 */
function removedLine(result: LandTaskResult): string | null {
  const removal = result.removal;
  if (!removal || removal.refused) return null;
  const task = result.plan.task;
  const legs = removal.results.map((l) => `${l.source} (${l.outcome})`);
  const deleted = result.deletedBranches.map((d) => `${d.branch} in ${d.source}`);
  // Only a landed leg's branch is deleted: one the land skipped (nothing to land) is kept as it is.
  const landed = new Set(
    (result.record.land?.legs ?? []).filter((s) => s.state === "landed").map((s) => s.source),
  );
  const kept = removal.record.legs
    .filter((l) => !result.deletedBranches.some((d) => d.source === l.source))
    .map(
      (l) =>
        `${l.branch} in ${l.source} (${landed.has(l.source) ? "not contained in the target" : "nothing landed from it"})`,
    );
  return [
    `removed task ${task}: ${legs.join(", ")}`,
    deleted.length > 0
      ? `deleted branch${deleted.length === 1 ? "" : "es"} ${deleted.join(", ")}`
      : "deleted no branch",
    ...(kept.length > 0 ? [`kept ${kept.join(", ")}`] : []),
  ].join("; ");
}
