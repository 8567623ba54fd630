import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";
import { isWithin } from "../paths.ts";
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
  /**
   * A detached run still at work in a leg the plan acts on: the whole removal is refused before
   * any leg's own refusal ({@link runInUseError}: ERR_LEASE_HELD, exit 75), whatever `--allow` or
   * `--snapshot` say. Absent when no run is in the way.
   */
  inUse?: RunInUse;
}

/** A detached run of the task still at work, as the host found it in the run records. */
export interface RunAtWork {
  runId: string;
  /** Its working directory: a leg's worktree, or the task directory (--span). */
  cwd: string;
  /** `starting`, `running`, an ended state while its monitor settles it, or `lost` with its group alive. */
  state: string;
  /** Ended, its monitor still settling it. */
  settling: boolean;
  /** How a hint names it (its name while that means it; default its id). */
  ref?: string;
}

/** The runs at work in the task, and the one run not counted (the monitor settling its own worktree). */
export interface RunsAtWork {
  runs: readonly RunAtWork[];
  exceptRun?: string;
}

/** The run that keeps a removal from starting, and the leg it works in. */
export interface RunInUse {
  runId: string;
  state: string;
  settling: boolean;
  source: string;
  /** How a hint names the run (its name while that means it, else its id). */
  ref: string;
  /** It works in the task's directory, every leg at once (--span), not in that one leg. */
  span: boolean;
}

const NO_RUNS: RunsAtWork = { runs: [] };

/**
 * Whether remove acts on a leg at all: one removed (or snapshotted) before is skipped. A plan
 * that acts on no leg needs no facts of the runs: none of them can be in its way.
 */
export function removesLeg(leg: Leg): boolean {
  return leg.state !== "removed" && leg.state !== "snapshotted";
}

/** True when a run with working directory `cwd` works in the worktree at `worktreePath` (or above it: --span). */
export function runInWorktree(cwd: string, worktreePath: string): boolean {
  return isWithin(worktreePath, cwd) || isWithin(cwd, worktreePath);
}

/** The first run (oldest first, as given) at work in a leg the plan acts on; `exceptRun` does not count. */
function runInUse(legs: readonly RemoveLegPlan[], work: RunsAtWork): RunInUse | undefined {
  const acting = legs.filter((l) => l.action !== "skip");
  for (const run of work.runs) {
    if (run.runId === work.exceptRun) continue;
    const leg = acting.find((l) => runInWorktree(run.cwd, l.worktreePath));
    if (leg) {
      const span = run.cwd !== leg.worktreePath && isWithin(run.cwd, leg.worktreePath);
      const ref = run.ref ?? run.runId;
      return { runId: run.runId, state: run.state, settling: run.settling, source: leg.source, ref, span };
    }
  }
  return undefined;
}

/**
 * The refusal of a removal a run is in the way of ({@link RemovePlan.inUse}): ERR_LEASE_HELD
 * (exit 75) naming the run and the `ariel-runs` command that ends it.
 */
export function runInUseError(taskId: string, run: RunInUse): ArielError {
  const how = run.settling ? "ended, its monitor settling it" : run.state;
  const where = run.span ? "in the task's directory, every leg" : `in leg ${quoteValue(run.source)}`;
  const who = run.ref === run.runId ? `${run.runId} (` : `${run.ref} (${run.runId}, `;
  return new ArielError(
    "ERR_LEASE_HELD",
    `task ${quoteValue(taskId)} is in use by run ${who}${how} ${where}); nothing was removed`,
    {
      hint: `wait for it (ariel-runs wait ${run.ref}) or stop it (ariel-runs kill ${run.ref}), then retry`,
      context: { task: taskId, runId: run.runId, state: run.state, source: run.source },
    },
  );
}

/**
 * Decide `remove` for the selected legs from gathered facts. Pure. Every leg is checked before
 * anything happens; one standing refusal anywhere refuses the whole command. A detached run at
 * work in a leg it acts on (`work`, from the run records) refuses it before that: `inUse`.
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
  work: RunsAtWork = NO_RUNS,
): RemovePlan {
  const out: RemoveLegPlan[] = [];
  for (const leg of legs) {
    const base = { source: leg.source, worktreePath: leg.worktreePath, refusals: [], standing: [] };
    if (!removesLeg(leg)) {
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
  const inUse = runInUse(out, work);
  return {
    taskId: record.taskId,
    legs: out,
    refused: out.some((l) => l.action === "refuse"),
    ...(inUse ? { inUse } : {}),
  };
}
