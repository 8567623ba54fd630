import type { Leg, TaskRecord } from "../schema/task.ts";
import { isLockOf } from "./ours.ts";
import {
  type LegFacts,
  legRefusals,
  REFUSALS,
  type Refusal,
  type RefusalReason,
  standingRefusals,
} from "./refusals.ts";

/** What remove does with one leg. */
export interface RemoveLegPlan {
  source: string;
  worktreePath: string;
  /**
   * `remove`: unlock + `git worktree remove --force` after the checks;
   * `forget`: the worktree is already gone, only the record changes;
   * `skip`: the leg was removed before (nothing to do);
   * `refuse`: a standing refusal (nothing changes for any leg).
   */
  action: "remove" | "forget" | "skip" | "refuse";
  /**
   * Save local work under refs/ariel/snapshots/<task>/<leg> first: with --snapshot, only for a
   * leg that has some (a refusal a snapshot covers); a clean leg is just removed.
   */
  snapshot: boolean;
  /** Every refusal found, overridden or not. */
  refusals: Refusal[];
  /** The refusals that still stand. */
  standing: Refusal[];
}

export interface RemovePlan {
  taskId: string;
  legs: RemoveLegPlan[];
  /** True when at least one leg refuses: then nothing at all is changed. */
  refused: boolean;
}

/**
 * Decide `remove` for the selected legs from gathered facts. Pure. Every leg is checked before
 * anything happens; one standing refusal anywhere refuses the whole command.
 *
 * @example
 * ```ts
 * const plan = planRemove(record, record.legs, factsBySource, new Set(["dirty"]), false);
 * if (plan.refused) for (const leg of plan.legs) for (const r of leg.standing) console.error(r.code, r.message);
 * ```
 */
export function planRemove(
  record: TaskRecord,
  legs: readonly Leg[],
  facts: ReadonlyMap<string, LegFacts>,
  allow: ReadonlySet<RefusalReason>,
  snapshot: boolean,
): RemovePlan {
  const out: RemoveLegPlan[] = [];
  for (const leg of legs) {
    const base = { source: leg.source, worktreePath: leg.worktreePath, refusals: [], standing: [] };
    if (leg.state === "removed" || leg.state === "snapshotted") {
      out.push({ ...base, action: "skip", snapshot: false });
      continue;
    }
    const f = facts.get(leg.source);
    const ourLock = f !== undefined && (f.lock === null || isLockOf(f.lock, record.taskId));
    if (!f || (!f.present && !f.main && f.owned && ourLock)) {
      out.push({ ...base, action: "forget", snapshot: false });
      continue;
    }
    const refusals = legRefusals(record.taskId, f);
    const standing = standingRefusals(refusals, allow, snapshot);
    const localWork = refusals.some((r) => REFUSALS[r.reason].snapshot);
    out.push({
      ...base,
      refusals,
      standing,
      action: standing.length > 0 ? "refuse" : "remove",
      snapshot: snapshot && localWork,
    });
  }
  return { taskId: record.taskId, legs: out, refused: out.some((l) => l.action === "refuse") };
}
