import { ArielError, LAND_STRATEGIES, type LandPlan, type LandStrategy } from "@ariel/core";
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
  refusalError,
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
    description: "then remove the task and delete its branches that the target contains",
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
  if (result.plan.refused) return refuse(ctx, result.plan);
  if (dryRun) {
    printPlan(ctx, result.plan);
    if (result.removal?.refused) return refuseRemoval(ctx, result);
    printLifecyclePlan(ctx, taskId, result.lifecycle);
    return dryRunExit(ctx, result.plan.changes);
  }
  if (result.removal?.refused) return refuseRemoval(ctx, result);
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

function refuse(ctx: RunContext<typeof args>, plan: LandPlan): number {
  for (const leg of plan.legs) {
    for (const r of leg.refusals) {
      ctx.log.error(
        refusalError(r.code, r.message, {
          task: plan.task,
          source: leg.source,
          reason: r.reason,
          ...(r.items ? { items: r.items } : {}),
        }),
      );
    }
  }
  const legs = plan.legs
    .filter((l) => l.refusals.length > 0)
    .map((l) => `${l.source} (${l.refusals[0]?.reason})`);
  ctx.log.info(
    `nothing landed: ${legs.join(", ")} refused; ariel-worktree diff --task ${plan.task} shows the task`,
  );
  return 3;
}

function refuseRemoval(ctx: RunContext<typeof args>, result: LandTaskResult): number {
  for (const leg of result.removal?.plan.legs ?? []) {
    for (const r of leg.standing) {
      ctx.log.error(
        refusalError(r.code, r.message, { task: result.plan.task, source: leg.source, reason: r.reason }),
      );
    }
  }
  ctx.log.info(
    `nothing landed: --remove would be refused; land without --remove, or make the legs removable (ariel-worktree remove -n --task ${result.plan.task})`,
  );
  return 3;
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
  }));
  if (ctx.args.json) for (const r of rows) ctx.out.record(r);
  else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "TARGET", "OUTCOME", "COMMIT"],
      rows.map((r) => [r.task, r.source, r.target ?? "-", r.outcome, (r.to ?? "-").slice(0, 12)]),
    );
  }
}
