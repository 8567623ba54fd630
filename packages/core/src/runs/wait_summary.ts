import { plural } from "../plural.ts";
import type { RunView } from "./backend.ts";
import { keptWorktree } from "./kept.ts";
import { RUN_STATES } from "./state.ts";

/**
 * The exit status `wait` gives one run: its own, or 1 when it is unknown (lost, crashed).
 *
 * @example
 * ```ts
 * waitStatus({ exit: null } as RunView); // 1
 * ```
 */
export function waitStatus(v: Pick<RunView, "exit">): number {
  return v.exit?.status ?? 1;
}

/**
 * The worst status of the runs `wait` waited for: the highest of their {@link waitStatus}es, so a
 * signal (128+N) outranks a command that could not start (126/127), which outranks any plain
 * failure, which outranks success; 0 only when every run exited 0 (and for no run at all).
 *
 * @example
 * ```ts
 * worstStatus([{ exit: { status: 0 } }, { exit: { status: 143 } }, { exit: null }] as RunView[]); // 143
 * ```
 */
export function worstStatus(views: readonly Pick<RunView, "exit">[]): number {
  return views.reduce((worst, v) => Math.max(worst, waitStatus(v)), 0);
}

function label(v: RunView): string {
  const who = v.record.name ?? v.record.runId;
  return v.exit ? `${who} (${v.exit.status})` : `${who} (${v.state})`;
}

/**
 * The one line `wait` ends with on stderr: how many runs ended in each state, the ones that did
 * not exit 0 with their status, and each worktree a run kept with the command that deals with it.
 *
 * @example
 * ```ts
 * waitSummaryLine(views);
 * // "5 runs: 4 exited, 1 failed: agent@chalk (1); kept agent@chalk (dirty):
 * //  ariel-worktree remove --task t1 --source chalk --snapshot" (one line)
 * ```
 */
export function waitSummaryLine(views: readonly RunView[], root?: string): string {
  const counts = RUN_STATES.flatMap((s) => {
    const n = views.filter((v) => v.state === s).length;
    return n > 0 ? [`${n} ${s}`] : [];
  });
  const bad = views.filter((v) => waitStatus(v) !== 0);
  let line = plural(views.length, "run");
  if (counts.length > 0) line += `: ${counts.join(", ")}`;
  if (bad.length > 0) line += `: ${bad.map(label).join(", ")}`;
  for (const v of views) {
    const kept = keptWorktree(v.record, root);
    if (kept) line += `; kept ${v.record.name ?? v.record.runId} (${kept.reason}): ${kept.next}`;
  }
  return line;
}
