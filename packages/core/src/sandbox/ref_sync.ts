/**
 * Bringing a sandbox's refs home (docs/sandbox.md, The sync): which real refs move, by
 * compare-and-swap, and which of the sandbox's refs are kept under `refs/ariel/sandbox/<run>/`
 * instead, so no commit it made is lost and nothing it may not touch moves. Pure, and safe to
 * plan again after a crash: a ref already where the sandbox left it is done.
 *
 * @example
 * ```ts
 * planRefSync({ runId: "R", own: ["refs/heads/ariel/t"], start: new Map([["refs/heads/ariel/t", "a"]]),
 *   synced: new Map(), now: new Map([["refs/heads/ariel/t", "b"]]),
 *   real: new Map([["refs/heads/ariel/t", "a"]]), stash: [] });
 * // [{ op: "update", ref: "refs/heads/ariel/t", to: "b", from: "a" }]
 * ```
 */
import { isPerWorktree } from "../discovery/refs.ts";

/** Where a run's refs that could not go home are kept: `refs/ariel/sandbox/<runId>/`. */
export function parkPrefix(runId: string): string {
  return `refs/ariel/sandbox/${runId}/`;
}

/** The ref a sandbox's `ref` is kept under (`refs/heads/main` → `refs/ariel/sandbox/R/heads/main`). */
export function parkedRef(runId: string, ref: string): string {
  return `${parkPrefix(runId)}${ref.startsWith("refs/") ? ref.slice(5) : ref}`;
}

export interface RefSyncInput {
  runId: string;
  /** The run's own branches (full names): the refs that may move. */
  own: readonly string[];
  /** The refs when the sandbox started. */
  start: ReadonlyMap<string, string>;
  /** Refs a sync already brought home, with the value it set (the new base). */
  synced: ReadonlyMap<string, string>;
  /** The sandbox's refs now. */
  now: ReadonlyMap<string, string>;
  /** The real refs now. */
  real: ReadonlyMap<string, string>;
  /** The sandbox's stash entries (its reflog of refs/stash), oldest first. */
  stash: readonly string[];
}

/** Why a ref was kept aside rather than moved. */
export type ParkReason = "moved-outside" | "not-the-task's" | "stash";

export type RefStep =
  /** Move a real ref by compare-and-swap: from `from` (null: it must not exist) to `to`. */
  | { op: "update"; ref: string; to: string; from: string | null }
  /** The real ref is where the sandbox left it already (an earlier, interrupted sync moved it): its new base. */
  | { op: "home"; ref: string; to: string }
  /** Keep the sandbox's value under {@link parkedRef}. */
  | { op: "park"; ref: string; to: string; as: string; why: ParkReason }
  /** What the sandbox's ref names is not whole (objects it deleted, or whose content did not match): nothing moved. */
  | { op: "missing"; ref: string; to: string }
  /** The sandbox deleted a ref it owns: the real one is kept (a branch is never deleted for it). */
  | { op: "kept"; ref: string; why: "deleted-inside" };

/** May the sandbox move `ref`: one of its own branches, or a branch that did not exist when it started. */
export function mayMove(ref: string, own: readonly string[], start: ReadonlyMap<string, string>): boolean {
  return own.includes(ref) || (ref.startsWith("refs/heads/") && !start.has(ref));
}

/**
 * The steps that bring a sandbox's refs home. For each ref the sandbox changed since its base
 * (the last value synced, else the start): one it may move goes home when the real ref is still
 * at the base (or is already there: done); one that moved outside meanwhile is parked (reason
 * `moved-outside`). Any other ref it changed or made (a branch not its own, a tag, notes) is
 * parked (`not-the-task's`). Remote-tracking refs, per-worktree refs and ariel's own parking
 * refs are left alone; a stash entry is parked by its commit. Deleted refs move nothing.
 */
export function planRefSync(input: RefSyncInput): RefStep[] {
  const { runId, own, start, synced, now, real } = input;
  const steps: RefStep[] = [];
  const names = [...new Set([...start.keys(), ...synced.keys(), ...now.keys()])].sort();
  for (const ref of names) {
    if (ref === "refs/stash" || ref.startsWith("refs/remotes/") || isPerWorktree(ref)) continue;
    if (ref.startsWith("refs/ariel/sandbox/")) continue;
    const base = synced.get(ref) ?? start.get(ref) ?? null;
    const cur = now.get(ref) ?? null;
    if (cur === base) continue;
    const movable = mayMove(ref, own, start);
    if (cur === null) {
      if (movable && base !== null) steps.push({ op: "kept", ref, why: "deleted-inside" });
      continue;
    }
    const r = real.get(ref) ?? null;
    if (movable && r === cur) {
      steps.push({ op: "home", ref, to: cur });
      continue;
    }
    if (movable && r === base) {
      steps.push({ op: "update", ref, to: cur, from: base });
      continue;
    }
    park(steps, real, runId, ref, cur, movable ? "moved-outside" : "not-the-task's");
  }
  for (const oid of input.stash) park(steps, real, runId, `refs/stash/${oid}`, oid, "stash");
  return steps;
}

function park(
  steps: RefStep[],
  real: ReadonlyMap<string, string>,
  runId: string,
  ref: string,
  to: string,
  why: ParkReason,
): void {
  const as = parkedRef(runId, ref);
  if (real.get(as) !== to) steps.push({ op: "park", ref, to, as, why });
}
