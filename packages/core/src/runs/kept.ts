import { nextRemoveCommand } from "../worktree/next_step.ts";
import type { RunRecord } from "./record.ts";

/** A worktree a detached isolated run left for the user, and the command that deals with it. */
export interface KeptRunWorktree {
  task: string;
  source: string;
  /** Why it was kept: a refusal reason (`dirty`, ...), `keep` (asked for), or an error code. */
  reason: string;
  /** `ariel-worktree remove --task T --source S [--snapshot]`: removes it without losing work. */
  next: string;
}

/**
 * What an ended isolated run left behind: its leg, kept (dirty, asked for, or not removable),
 * with the next command; null when the run was not isolated or its worktree was removed or
 * snapshotted. The command names the run's own leg only, so it never touches a leg another run
 * works in; `root` adds `-C ROOT` (when the cwd would not find the workspace).
 *
 * @example
 * ```ts
 * keptWorktree({ task: "t1", source: "chalk", worktreeOutcome: { outcome: "kept", reason: "dirty" } });
 * // { task: "t1", source: "chalk", reason: "dirty",
 * //   next: "ariel-worktree remove --task t1 --source chalk --snapshot" }
 * ```
 */
export function keptWorktree(
  r: Pick<RunRecord, "task" | "source" | "worktreeOutcome">,
  root?: string,
): KeptRunWorktree | null {
  if (r.worktreeOutcome?.outcome !== "kept" || r.task === null) return null;
  const source = r.source ?? ".";
  const reason = r.worktreeOutcome.reason ?? "keep";
  const next = nextRemoveCommand({
    task: r.task,
    reasons: [reason],
    sources: [source],
    ...(root !== undefined ? { root } : {}),
  });
  return { task: r.task, source, reason, next };
}

/**
 * How a run's worktree ended, in a word or two for a table cell: `kept (dirty)`, `removed`,
 * `snapshotted`, `-` when the run was not isolated or has not settled it yet.
 *
 * @example
 * ```ts
 * worktreeCell({ task: "t1", source: "api", worktreeOutcome: { outcome: "kept", reason: "dirty" } });
 * // "kept (dirty)"
 * ```
 */
export function worktreeCell(r: Pick<RunRecord, "task" | "source" | "worktreeOutcome">): string {
  const kept = keptWorktree(r);
  if (kept) return `kept (${kept.reason})`;
  return r.worktreeOutcome?.outcome ?? "-";
}
