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
 * and what the terminal UI shows.
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
): ArielError {
  const c = (code in ERROR_CODES ? code : "ERR_REFUSED") as ErrorCode;
  return new ArielError(c, message, {
    hint: `${refusalHint(c, context.task)}; nothing was changed`,
    context,
  });
}
