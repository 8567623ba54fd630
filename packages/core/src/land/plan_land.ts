import type { ErrorCode } from "../errors.ts";
import { landRefusalHint } from "./hints.ts";

/**
 * The pure planner of `ariel-worktree land` (docs/lifecycle.md, Land): facts about every leg in,
 * a plan out, refusals as data. Either every leg can land, or the plan is refused and nothing
 * is changed anywhere.
 */

/** How a leg's commits reach the target branch. Every strategy only moves the target forward. */
export const LAND_STRATEGIES = ["ff", "merge", "squash", "rebase"] as const;
export type LandStrategy = (typeof LAND_STRATEGIES)[number];

/** Why a land is refused, each with its error code (exit 3 for all). */
export const LAND_REFUSALS = {
  "land-pending": { code: "ERR_LAND_PENDING" },
  "no-target": { code: "ERR_REFUSED" },
  "same-branch": { code: "ERR_REFUSED" },
  "branch-missing": { code: "ERR_BRANCH_MISSING" },
  "target-missing": { code: "ERR_REFUSED" },
  "target-dirty": { code: "ERR_TARGET_DIRTY" },
  "not-fast-forward": { code: "ERR_NOT_FAST_FORWARD" },
  conflict: { code: "ERR_LAND_CONFLICT" },
} as const satisfies Record<string, { code: ErrorCode }>;

export type LandRefusalReason = keyof typeof LAND_REFUSALS;

export interface LandRefusal {
  reason: LandRefusalReason;
  code: ErrorCode;
  message: string;
  /** What to do about it, naming only flags `land` accepts (`landRefusalHint`). */
  hint: string;
  /** The files in conflict, or the target checkout's changed files. */
  items?: string[];
}

/** What the host found out about one leg. */
export interface LandLegFacts {
  source: string;
  /** The source checkout (the repository whose branch moves). */
  repo: string;
  /** The leg's branch. */
  branch: string;
  /** Its tip; null when the branch is gone. */
  head: string | null;
  /** The branch to land into; null when none was named and the source has a detached HEAD. */
  target: string | null;
  /** Its tip; null when that branch does not exist. */
  targetTip: string | null;
  /** The worktree that has the target checked out, or null. */
  checkout: string | null;
  /** That checkout's modified, staged and untracked paths. */
  checkoutDirty: readonly string[];
  /** Commits of the leg's branch that the target does not have. */
  ahead: number;
  /** The target's tip is an ancestor of the leg's (a fast-forward is possible). */
  fastForward: boolean;
  /** The commit the target would move to, or the files whose merge conflicts; null when not made. */
  candidate: { to: string } | { conflicts: string[] } | null;
  /** Uncommitted paths in the leg's worktree: land takes commits only (a warning). */
  uncommitted: readonly string[];
  /** The leg's worktree while it is on disk (a conflict is resolved there); null once removed. */
  worktree?: string | null;
}

export interface LandFacts {
  taskId: string;
  strategy: LandStrategy;
  /** An earlier land of the task is still `landing` (crashed): reconcile must finish it first. */
  pending: boolean;
  legs: readonly LandLegFacts[];
}

/** One leg's part of the plan. */
export interface LandLegPlan {
  source: string;
  repo: string;
  branch: string;
  target: string | null;
  /** `land`: move `target` from `from` to `to`; `skip`: nothing to land (the target has it all). */
  action: "land" | "skip";
  from: string | null;
  to: string | null;
  checkout: string | null;
  commits: number;
  refusals: LandRefusal[];
  uncommitted: readonly string[];
}

export interface LandPlan {
  task: string;
  strategy: LandStrategy;
  legs: LandLegPlan[];
  /** True when any leg refuses: nothing lands. */
  refused: boolean;
  /** Legs that would move their target. */
  changes: number;
}

/** Every refusal of one leg, in a fixed order (all of them are reported, in one answer). */
export function landLegRefusals(taskId: string, strategy: LandStrategy, f: LandLegFacts): LandRefusal[] {
  const leg = { ...f, worktree: f.worktree ?? null };
  const refusal = (reason: LandRefusalReason, message: string, items?: readonly string[]): LandRefusal => ({
    reason,
    code: LAND_REFUSALS[reason].code,
    message,
    hint: landRefusalHint(taskId, leg, reason),
    ...(items ? { items: [...items] } : {}),
  });
  const out: LandRefusal[] = [];
  if (f.target === null) {
    return [
      refusal(
        "no-target",
        `${f.repo} has a detached HEAD: no branch to land ${f.source} into; pass --into BRANCH`,
      ),
    ];
  }
  if (f.target === f.branch) {
    return [refusal("same-branch", `${f.source}: the target ${f.target} is the task's own branch`)];
  }
  if (f.head === null) {
    return [refusal("branch-missing", `branch ${f.branch} of ${f.source} (task ${taskId}) no longer exists`)];
  }
  if (f.targetTip === null) {
    return [refusal("target-missing", `${f.source} has no branch ${f.target} to land into`)];
  }
  if (f.ahead === 0) return out;
  if (f.checkout !== null && f.checkoutDirty.length > 0) {
    out.push(
      refusal(
        "target-dirty",
        `${f.target} is checked out in ${f.checkout}, which has uncommitted changes: ${f.checkoutDirty.slice(0, 3).join(", ")}`,
        f.checkoutDirty.slice(0, 10),
      ),
    );
  }
  if (strategy === "ff" && !f.fastForward) {
    out.push(
      refusal(
        "not-fast-forward",
        `${f.target} of ${f.source} has commits ${f.branch} does not: no fast-forward`,
      ),
    );
  }
  if (f.candidate && "conflicts" in f.candidate) {
    out.push(
      refusal(
        "conflict",
        `${f.source}: ${f.branch} does not merge cleanly into ${f.target}: ${f.candidate.conflicts.join(", ")}`,
        f.candidate.conflicts,
      ),
    );
  }
  return out;
}

/**
 * Plan a land: per leg, the target's move (`from` → `to`) or `skip` when the target already has
 * every commit; refused as a whole when any leg refuses, or when an earlier land is pending.
 *
 * @example
 * ```ts
 * const plan = planLand({ taskId: "t1", strategy: "merge", pending: false, legs: [facts] });
 * if (plan.refused) for (const l of plan.legs) for (const r of l.refusals) console.error(r.message);
 * ```
 */
export function planLand(facts: LandFacts): LandPlan {
  const legs = facts.legs.map((f): LandLegPlan => {
    const refusals = landLegRefusals(facts.taskId, facts.strategy, f);
    if (facts.pending) {
      refusals.unshift({
        reason: "land-pending",
        code: LAND_REFUSALS["land-pending"].code,
        message: `an earlier land of task ${facts.taskId} did not finish; run ariel-worktree reconcile`,
        hint: landRefusalHint(facts.taskId, { ...f, worktree: f.worktree ?? null }, "land-pending"),
      });
    }
    const to = f.candidate && "to" in f.candidate ? f.candidate.to : null;
    // A candidate equal to the target's tip: the target has every change already (a leg landed
    // before by squash or rebase, whose own commits the target never gets).
    const lands =
      f.ahead > 0 && f.head !== null && f.targetTip !== null && f.target !== null && to !== f.targetTip;
    return {
      source: f.source,
      repo: f.repo,
      branch: f.branch,
      target: f.target,
      action: lands ? "land" : "skip",
      from: f.targetTip,
      to: lands ? to : f.targetTip,
      checkout: f.checkout,
      commits: f.ahead,
      refusals,
      uncommitted: f.uncommitted,
    };
  });
  const refused = legs.some((l) => l.refusals.length > 0);
  return {
    task: facts.taskId,
    strategy: facts.strategy,
    legs,
    refused,
    changes: legs.filter((l) => l.action === "land").length,
  };
}
