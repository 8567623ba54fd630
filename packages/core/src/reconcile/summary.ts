import type { ReconcileNote } from "./plan.ts";

/**
 * The closing line of a `reconcile` that left things alone: what it kept (a path, a branch, a
 * task) with each warning's code, so the user knows the run converged only partly and where to
 * look. Null when it kept nothing.
 *
 * @example
 * ```ts
 * reconcileKeptSummary([{ code: "W_KEPT_WORK", message: "…", task: "t1", path: "/w/.ariel/worktrees/t1/api" }]);
 * // "kept 1 for you to look at: /w/.ariel/worktrees/t1/api (W_KEPT_WORK); each warning above says why"
 * ```
 */
export function reconcileKeptSummary(notes: readonly ReconcileNote[]): string | null {
  if (notes.length === 0) return null;
  const what = notes.map((n) => {
    const target = n.path ?? (typeof n.branch === "string" ? n.branch : undefined) ?? n.task ?? "?";
    return `${target} (${n.code})`;
  });
  return `kept ${notes.length} for you to look at: ${what.join(", ")}; each warning above says why`;
}
