import { isTaskId } from "../names.ts";

/**
 * How ariel marks what it owns in git, and how it reads those marks back: the lock reason
 * `ariel:<task>` on each of its worktrees and the default branch `ariel/<task>`. Reading back
 * accepts only a valid task id, so a mark ariel could not have written names no task.
 *
 * @example
 * ```ts
 * lockReason("fix-login");        // "ariel:fix-login"
 * taskOfLock("ariel:fix-login");  // "fix-login"
 * taskOfLock("ariel:../x");       // null
 * taskBranch("fix-login");        // "ariel/fix-login"
 * taskOfBranch("ariel/fix-login"); // "fix-login"
 * ```
 */

const LOCK_PREFIX = "ariel:";
const BRANCH_PREFIX = "ariel/";

/** The lock reason ariel writes for a task's worktrees. */
export function lockReason(taskId: string): string {
  return `${LOCK_PREFIX}${taskId}`;
}

/** The task named by an `ariel:<task>` lock reason, or null (not ariel's, or no valid task id). */
export function taskOfLock(reason: string | null): string | null {
  if (reason === null || !reason.startsWith(LOCK_PREFIX)) return null;
  const t = reason.slice(LOCK_PREFIX.length);
  return isTaskId(t) ? t : null;
}

/** True when `reason` is the lock reason of `taskId`'s worktrees. */
export function isLockOf(reason: string | null, taskId: string): boolean {
  return reason === lockReason(taskId);
}

/** The branch a task's legs get unless `--branch` names another: `ariel/<task>`. */
export function taskBranch(taskId: string): string {
  return `${BRANCH_PREFIX}${taskId}`;
}

/** The task of a default task branch (`ariel/<task>`, short name), or null. */
export function taskOfBranch(branch: string): string | null {
  if (!branch.startsWith(BRANCH_PREFIX)) return null;
  const t = branch.slice(BRANCH_PREFIX.length);
  return isTaskId(t) ? t : null;
}

/**
 * The directory a leg's worktree must lie strictly inside for ariel to touch it: the worktree
 * root for the legs ariel made, the workspace root for an adopted one (made where git or
 * another tool put it). Nothing outside it is ever removed.
 *
 * @example
 * ```ts
 * legContainer({ adopted: true }, { root: "/w", worktreeRoot: "/w/.ariel/worktrees" }); // "/w"
 * legContainer({}, { root: "/w", worktreeRoot: "/w/.ariel/worktrees" });                // "/w/.ariel/worktrees"
 * ```
 */
export function legContainer(leg: { adopted?: boolean }, ws: { root: string; worktreeRoot: string }): string {
  return leg.adopted === true ? ws.root : ws.worktreeRoot;
}
