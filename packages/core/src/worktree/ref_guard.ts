/**
 * Which refs a command may delete or move for a task, whatever its record says: the task's own
 * snapshot refs (`refs/ariel/snapshots/<task>/<name>`) and the branches of its legs
 * (`refs/heads/<branch>`). A record is a file anyone can write (or import): every ref deletion
 * or update of gc, remove, restore, import and reconcile asks {@link checkTaskRef} first. Pure.
 */
import { ArielError } from "../errors.ts";
import { branchNameProblem, quoteValue } from "../names.ts";

/** The prefix of a task's snapshot refs. */
export function snapshotPrefix(taskId: string): string {
  return `refs/ariel/snapshots/${taskId}/`;
}

/**
 * Why `ref` is not one of `taskId`'s snapshot refs, or null: `refs/ariel/snapshots/<task>/`
 * and one more name that is a clean branch-like name (no `..`, no component starting with `.`,
 * none ending in `.lock`, no control or special characters).
 *
 * @example
 * ```ts
 * snapshotRefProblem("t1", "refs/ariel/snapshots/t1/api"); // null
 * snapshotRefProblem("t1", "refs/heads/main"); // "is not under refs/ariel/snapshots/t1/"
 * ```
 */
export function snapshotRefProblem(taskId: string, ref: string): string | null {
  const prefix = snapshotPrefix(taskId);
  if (typeof ref !== "string" || !ref.startsWith(prefix)) return `is not under ${prefix}`;
  const rest = ref.slice(prefix.length);
  const problem = branchNameProblem(rest);
  return problem === null ? null : `has a bad name after ${prefix}: ${problem}`;
}

/** Why `ref` may not be changed for the task, or null when it may (see the module comment). */
export function taskRefProblem(taskId: string, ref: string, branches: readonly string[]): string | null {
  if (typeof ref === "string" && ref.startsWith("refs/heads/")) {
    const branch = ref.slice("refs/heads/".length);
    if (branchNameProblem(branch) !== null) return "is not a valid branch";
    return branches.includes(branch) ? null : "is not a branch of the task's legs";
  }
  return snapshotRefProblem(taskId, ref);
}

/**
 * ERR_REF_PROTECTED (exit 3) unless `ref` is the task's own (see the module comment): the
 * guard every ref deletion and update of a task passes, so a record naming `refs/heads/main`
 * or `refs/ariel/snapshots/<other task>/…` changes nothing.
 *
 * @example
 * ```ts
 * checkTaskRef({ taskId: "t1", legs: [{ branch: "ariel/t1" }] }, "refs/heads/ariel/t1"); // fine
 * checkTaskRef({ taskId: "t1", legs: [{ branch: "ariel/t1" }] }, "refs/heads/main"); // throws
 * ```
 */
export function checkTaskRef(
  task: { taskId: string; legs: readonly { branch: string }[] },
  ref: string,
): void {
  const problem = taskRefProblem(
    task.taskId,
    ref,
    task.legs.map((l) => l.branch),
  );
  if (problem === null) return;
  throw new ArielError("ERR_REF_PROTECTED", `ref ${quoteValue(ref)} ${problem}: not changed`, {
    context: { task: task.taskId, ref },
  });
}
