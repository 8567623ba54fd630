/**
 * What to do about each refusal of `ariel-worktree land`, for the refusals of the land itself
 * and those of the removal `--remove` checks first. A hint names only flags `land` accepts (the
 * default hints of the removal's codes name `--snapshot` and `--allow`, which `land` rejects);
 * another command's flags appear only in that command, spelt out whole (decision 0108).
 *
 * @example
 * ```ts
 * landRemovalHint("t1", { source: "web", worktreePath: "/w/.ariel/worktrees/t1/web" }, "dirty");
 * // "commit or stash the changes in /w/.ariel/worktrees/t1/web (land takes commits only), or land
 * //  without --remove and keep them: ariel-worktree remove --task t1 --source web --snapshot"
 * ```
 */
import { shellWords } from "../shell_words.ts";
import { REFUSALS, type RefusalReason } from "../worktree/refusals.ts";
import type { LandRefusalReason } from "./plan_land.ts";

/** The flags `ariel-worktree land` accepts: what a land hint may tell the user to add. */
export const LAND_FLAGS: readonly string[] = [
  "--task",
  "--into",
  "--strategy",
  "--remove",
  "--no-hooks",
  "--dry-run",
  "--detailed-exitcode",
  "--json",
  "--workspace-root",
];

/** What a land hint knows of the leg it is about. */
export interface LandHintLeg {
  source: string;
  repo: string;
  branch: string;
  target: string | null;
  checkout: string | null;
  /** The leg's worktree when it is on disk; null once removed (then `restore` brings it back). */
  worktree: string | null;
}

/**
 * The hint of a land refusal of `leg`. A conflict is resolved in the leg's worktree: when that
 * was removed, the hint names `restore` first.
 *
 * @example
 * ```ts
 * landRefusalHint("t1", { ...leg, worktree: null }, "conflict");
 * // "bring the leg back first: ariel-worktree restore --task t1 --source api; then in its
 * //  worktree git merge main, resolve the conflicts and commit, and land again"
 * ```
 */
export function landRefusalHint(taskId: string, leg: LandHintLeg, reason: LandRefusalReason): string {
  const target = leg.target ?? "TARGET";
  switch (reason) {
    case "land-pending":
      return "an earlier land of this task did not finish: ariel-worktree reconcile finishes it, then land again";
    case "no-target":
      return `${leg.repo} is on a detached HEAD: land --into BRANCH`;
    case "same-branch":
      return "land --into the branch the work should go to";
    case "branch-missing":
      return `recreate ${leg.branch} in ${leg.repo} (git branch ${leg.branch} COMMIT; git log -g lists its commits), then land again`;
    case "target-missing":
      return `land --into a branch ${leg.repo} has, or create ${target} there first`;
    case "target-dirty":
      return `commit or stash the changes in ${leg.checkout ?? leg.repo}, or land --into a branch that is not checked out`;
    case "not-fast-forward":
      return `land with --strategy merge, squash or rebase, or rebase ${leg.branch} onto ${target} first`;
    case "conflict":
      return leg.worktree === null
        ? `bring the leg back first: ${shellWords(["ariel-worktree", "restore", "--task", taskId, "--source", leg.source])}; then in its worktree git merge ${target}, resolve the conflicts and commit, and land again`
        : `in ${leg.worktree}: git merge ${target}, resolve the conflicts and commit, then land again`;
  }
}

/**
 * The hint of a refusal of the removal `land --remove` checks before anything lands: local work a
 * snapshot keeps is committed, or kept by landing without `--remove` and removing with
 * `--snapshot` after; anything else is looked at with `remove -n`.
 */
export function landRemovalHint(
  taskId: string,
  leg: { source: string; worktreePath: string },
  reason: RefusalReason,
): string {
  const remove = (...more: string[]) =>
    shellWords(["ariel-worktree", "remove", ...more, "--task", taskId, "--source", leg.source]);
  if (REFUSALS[reason].snapshot) {
    const keep = `or land without --remove and keep them: ${remove()} --snapshot`;
    if (reason === "unreachable" || reason === "reflog")
      return `put those commits on a branch in ${leg.worktreePath} (git branch NAME COMMIT), ${keep}`;
    const what = reason === "dirty" ? "the changes" : "the changed files";
    return `commit or stash ${what} in ${leg.worktreePath} (land takes commits only), ${keep}`;
  }
  return `land without --remove; ${remove("-n")} shows what stands in the way`;
}
