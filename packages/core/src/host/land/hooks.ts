import { ArielError } from "../../errors.ts";
import type { LandPlan } from "../../land/plan_land.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import { joinLifecyclePlans, type LifecyclePlan, planHooks } from "../lifecycle/plan_hooks.ts";
import { hookFailureLine, type RunHooksResult, runHooks } from "../lifecycle/run_hooks.ts";
import type { WorktreeWorkspace } from "../worktree/workspace.ts";

/** The moment of a land a hook runs at. */
export type LandHookEvent = "pre-land" | "post-land";

/** The legs a land's hooks run in: those that land and still have their worktree. */
function landHookLegs(record: TaskRecord, plan: LandPlan): Leg[] {
  const landing = new Set(plan.legs.filter((l) => l.action === "land").map((l) => l.source));
  return record.legs.filter((l) => l.state === "active" && landing.has(l.source));
}

/**
 * A dry run's land hooks: the pre-land and post-land hooks {@link runLandHooks} would run, when
 * the plan lands something (none with `noHooks`).
 */
export async function planLandHooks(
  ws: WorktreeWorkspace,
  record: TaskRecord,
  plan: LandPlan,
  noHooks: boolean,
): Promise<LifecyclePlan | undefined> {
  if (plan.refused || plan.changes === 0) return undefined;
  const legs = landHookLegs(record, plan);
  const o = { root: ws.root, legs, ...(noHooks ? { skip: true } : {}) };
  const pre = await planHooks(ws.ports, { ...o, event: "pre-land" });
  const post = await planHooks(ws.ports, { ...o, event: "post-land" });
  return joinLifecyclePlans({ ports: [], portRange: ws.portRange, ...pre }, post);
}

/**
 * Run a land's `pre-land` or `post-land` hooks (docs/lifecycle.md) in the worktrees of the legs
 * that land (a leg whose worktree was removed lands from its branch and runs none). `pre-land`
 * runs after every check and before any branch moves: a failure refuses the land
 * (`ERR_HOOK_REFUSED`, 3, nothing changed). `post-land` runs after every leg landed: its failure
 * is reported by the caller (the land stands). Null with `noHooks`.
 */
export async function runLandHooks(
  ws: WorktreeWorkspace,
  record: TaskRecord,
  event: LandHookEvent,
  plan: LandPlan,
  noHooks: boolean,
): Promise<RunHooksResult | null> {
  const legs = landHookLegs(record, plan);
  if (legs.length === 0) return null;
  const hooks = await runHooks(ws.ports, {
    root: ws.root,
    hash: ws.hash,
    record,
    event,
    legs,
    ...(noHooks ? { skip: true } : {}),
  });
  const failed = hooks.failed[0];
  if (event === "pre-land" && failed) {
    throw new ArielError("ERR_HOOK_REFUSED", `${hookFailureLine(failed)}; nothing was landed`, {
      hint: `read ${hooks.log} and fix the cause, or land with --no-hooks`,
      context: { task: record.taskId, source: failed.source, event, log: hooks.log },
    });
  }
  return hooks;
}
