import { shellWords } from "../shell_words.ts";
import { nextRemoveCommand } from "../worktree/next_step.ts";
import type { TargetOutcome } from "./exit.ts";

/** A worktree the run left for the user, and why. */
export interface KeptWorktree {
  source: string;
  /** A refusal reason (`dirty`, ...), `keep`, or the code of an error that stopped the removal. */
  reason: string;
  /** Its task, when the run made several (one per source); else the run's `task`. */
  task?: string;
}

/** Everything the closing line of a run needs. */
export interface RunSummaryInput {
  outcomes: readonly TargetOutcome[];
  /** The signal that interrupted ariel-spawn, if any (`SIGINT`). */
  interrupted: string | null;
  failFast: boolean;
  task: string | null;
  kept: readonly KeptWorktree[];
  /** The root to name with -C in the next command (when the cwd would not find it). */
  root?: string;
  /** The history file as the user should type it (relative to the cwd when inside it). */
  history: string;
}

function label(o: TargetOutcome): string {
  const name = o.source ?? "(span)";
  return o.signal ? `${name} (${o.signal})` : `${name} (exit ${o.status})`;
}

/**
 * The one line ariel-spawn ends with on stderr when a run failed, was interrupted, or left
 * worktrees behind: which targets failed and how, what was kept and the command that deals with
 * it, and the history file. Null for a clean success (a quiet run stays quiet).
 *
 * @example
 * ```ts
 * runSummaryLine({
 *   outcomes: [{ source: "api", status: 0 }, { source: "citty", status: 3 }],
 *   interrupted: null, failFast: false, task: "t1", kept: [{ source: "citty", reason: "dirty" }],
 *   history: ".ariel/runs/20261202T112251Z-mwio4v.ndjson",
 * });
 * // "1 of 2 failed: citty (exit 3); kept citty (dirty): ariel-worktree remove --task t1 --snapshot;
 * //  history: .ariel/runs/20261202T112251Z-mwio4v.ndjson" (one line)
 * ```
 */
export function runSummaryLine(s: RunSummaryInput): string | null {
  const failed = s.outcomes.filter((o) => o.status !== null && o.status !== 0);
  const skipped = s.outcomes.filter((o) => o.status === null).length;
  if (failed.length === 0 && s.kept.length === 0 && s.interrupted === null) return null;
  const parts: string[] = [];
  const head = s.interrupted !== null ? `interrupted (${s.interrupted})` : "";
  if (failed.length > 0) {
    const what = `${failed.length} of ${s.outcomes.length} failed: ${failed.map(label).join(", ")}`;
    parts.push(head ? `${head}: ${what}` : what);
  } else if (head) parts.push(head);
  if (skipped > 0) {
    const why = s.interrupted !== null ? "" : s.failFast && failed.length > 0 ? " (--fail-fast)" : "";
    parts.push(`${skipped} not started${why}`);
  }
  for (const [task, kept] of keptByTask(s)) {
    const legs = kept.map((k) => `${k.source} (${k.reason})`).join(", ");
    const next = nextRemoveCommand({
      task,
      reasons: kept.map((k) => k.reason),
      ...(s.root !== undefined ? { root: s.root } : {}),
    });
    parts.push(`kept ${legs}: ${next}`);
  }
  parts.push(`history: ${shellWords([s.history])}`);
  return parts.join("; ");
}

/** The kept worktrees grouped by task, in the order they were kept (a leg without a task is left out). */
function keptByTask(s: RunSummaryInput): Map<string, KeptWorktree[]> {
  const by = new Map<string, KeptWorktree[]>();
  for (const k of s.kept) {
    const task = k.task ?? s.task;
    if (task === null) continue;
    by.set(task, [...(by.get(task) ?? []), k]);
  }
  return by;
}
