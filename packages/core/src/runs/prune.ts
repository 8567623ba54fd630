import type { RunState } from "./state.ts";
import { FINAL_STATES } from "./state.ts";

/** One run as prune sees it. */
export interface PruneCandidate {
  runId: string;
  state: RunState;
  /** When it ended (ms since the epoch), or null when unknown (lost, crashed, live). */
  endedAtMs: number | null;
  createdAtMs: number;
}

export interface PrunePlan {
  remove: { runId: string; state: RunState }[];
  keep: { runId: string; state: RunState; reason: "live" | "recent" }[];
}

/**
 * Which runs `prune --older-than D` removes: final runs that ended (or, when the end is unknown,
 * were created) more than `olderThanMs` before `nowMs`. Live runs are never pruned.
 *
 * @example
 * ```ts
 * planPrune([{ runId: "a", state: "exited", endedAtMs: 0, createdAtMs: 0 }], 10, 5).remove;
 * // [{ runId: "a", state: "exited" }]
 * ```
 */
export function planPrune(runs: readonly PruneCandidate[], nowMs: number, olderThanMs: number): PrunePlan {
  const plan: PrunePlan = { remove: [], keep: [] };
  for (const r of [...runs].sort((a, b) => (a.runId < b.runId ? -1 : 1))) {
    if (!FINAL_STATES.has(r.state)) plan.keep.push({ runId: r.runId, state: r.state, reason: "live" });
    else if (nowMs - (r.endedAtMs ?? r.createdAtMs) > olderThanMs)
      plan.remove.push({ runId: r.runId, state: r.state });
    else plan.keep.push({ runId: r.runId, state: r.state, reason: "recent" });
  }
  return plan;
}
