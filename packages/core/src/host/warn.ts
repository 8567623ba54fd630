import type { Reporter } from "./cli/mod.ts";

/** A coded warning and what to do about it. */
export interface HintedWarning {
  code: string;
  message: string;
  hint: string;
  context?: Record<string, unknown>;
}

/**
 * A warning with a hint: with --json one record carrying `hint` (after `message`); else the
 * warning line and a `hint:` line under it, as an error has.
 *
 * @example
 * ```ts
 * warnWithHint(ctx.log, { code: "WARN_CHANGES_LEFT_OUT", message: '"api" has …', hint: "pass --with-changes …" });
 * // ariel-worktree: warning: "api" has …
 * // ariel-worktree: hint: pass --with-changes …
 * ```
 */
export function warnWithHint(log: Pick<Reporter, "warn">, w: HintedWarning): void {
  log.warn(w.code, w.message, { ...w.context, hint: w.hint });
}
