/**
 * Exit statuses of a spawn run (docs/contract.md and docs/spawn.md, Exit status): one target passes its child's status through,
 * several give 0 when every child succeeded and 1 otherwise; an interrupted run gives 128+N.
 */

/** How one target ended. `status` is already the shell-style number (128+N for signal N). */
export interface TargetOutcome {
  source: string | null;
  /** null when the target never started (fail-fast, interrupted, or its worktree failed). */
  status: number | null;
  /** The signal that killed the child (`SIGTERM`), when one did. */
  signal?: string | null;
}

/** The status a shell would report for a child: its exit code, or 128+N when signal N killed it. */
export function childStatus(code: number | null, signalNumber: number | null): number {
  if (code !== null) return code;
  if (signalNumber !== null) return 128 + signalNumber;
  return 1;
}

export interface RunSummary {
  targets: number;
  succeeded: number;
  failed: number;
  /** Targets that never started (fail-fast or an interruption). */
  skipped: number;
  exit: number;
}

/**
 * Aggregate the outcomes of a run into its summary and exit status.
 *
 * @example
 * ```ts
 * summarize([{ source: "api", status: 3 }]).exit;                                // 3
 * summarize([{ source: "a", status: 0 }, { source: "b", status: 3 }]).exit;      // 1
 * summarize([{ source: "a", status: 0 }], { interruptedBy: 2 }).exit;             // 130
 * ```
 */
export function summarize(
  outcomes: readonly TargetOutcome[],
  options: { interruptedBy?: number | null } = {},
): RunSummary {
  const succeeded = outcomes.filter((o) => o.status === 0).length;
  const skipped = outcomes.filter((o) => o.status === null).length;
  const failed = outcomes.length - succeeded - skipped;
  let exit: number;
  if (options.interruptedBy) exit = 128 + options.interruptedBy;
  else if (outcomes.length === 1) exit = outcomes[0]?.status ?? 1;
  else exit = succeeded === outcomes.length ? 0 : 1;
  return { targets: outcomes.length, succeeded, failed, skipped, exit };
}
