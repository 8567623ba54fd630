import { ArielError, ERROR_CODES, type ErrorCode } from "../errors.ts";

/** The hint of a refusal about `task`: the code's, with the commands to run spelt out. */
function refusalHint(code: ErrorCode, task: string): string {
  if (code === "ERR_WORKTREE_MISSING") {
    return `run ariel-worktree restore --task ${task} to bring it back, or ariel-worktree reconcile`;
  }
  return ERROR_CODES[code].hint;
}

/**
 * An ArielError for a refusal about `context.task` (a land's or a removal's leg), whose hint says
 * that nothing was changed: what `ariel-worktree land` and `remove` print for each refused leg,
 * and what the terminal UI shows. `removedFirst` names the legs a removal took before the leg that
 * refused (new work met at its turn): the hint then says so instead.
 *
 * @example
 * ```ts
 * refusalError("ERR_DIRTY", "api has uncommitted changes", { task: "t1" }).hint;
 * // "commit or stash the changes, pass --snapshot, or --allow dirty; nothing was changed"
 * ```
 */
export function refusalError(
  code: string,
  message: string,
  context: { task: string } & Record<string, unknown>,
  removedFirst: readonly string[] = [],
): ArielError {
  const c = (code in ERROR_CODES ? code : "ERR_REFUSED") as ErrorCode;
  const changed =
    removedFirst.length === 0
      ? "nothing was changed"
      : `${removedFirst.join(", ")} ${removedFirst.length === 1 ? "was" : "were"} removed before it, nothing else was changed`;
  // ERR_REFUSED's own hint is "nothing was changed": said once.
  const hint = c === "ERR_REFUSED" ? changed : `${refusalHint(c, context.task)}; ${changed}`;
  return new ArielError(c, message, {
    hint,
    context,
  });
}
