import type { RunView } from "./backend.ts";
import { keptWorktree } from "./kept.ts";

/** The `end` record `ariel-runs logs -f --json` ends with: the run's final state and what it left. */
export interface RunEndRecord {
  v: 1;
  type: "end";
  runId: string;
  name: string | null;
  state: RunView["state"];
  /** The shell-style exit status; null when it is unknown (lost, crashed). */
  status: number | null;
  code: number | null;
  signal: string | null;
  /** An isolated run's worktree at the end (`removed`, `kept`, `snapshotted`), else null. */
  worktree: { outcome: "removed" | "kept" | "snapshotted"; reason: string | null } | null;
  /** The command that deals with a kept worktree, else null. */
  next: string | null;
}

/**
 * The end of a followed run as a record (`root`: the `-C` the next command needs, if any).
 *
 * @example
 * ```ts
 * runEndRecord(view).state; // "exited"
 * ```
 */
export function runEndRecord(view: RunView, root?: string): RunEndRecord {
  const r = view.record;
  return {
    v: 1,
    type: "end",
    runId: r.runId,
    name: r.name,
    state: view.state,
    status: view.exit?.status ?? null,
    code: view.exit?.code ?? null,
    signal: view.exit?.signal ?? null,
    worktree: r.worktreeOutcome,
    next: keptWorktree(r, root)?.next ?? null,
  };
}

/**
 * The line `ariel-runs logs -f` ends with on stderr: the run's final state and status, and a kept
 * worktree with its next command.
 *
 * @example
 * ```ts
 * runEndLine({ runId: "20261203T091500Z-k3x9a2", name: "agent", state: "failed", status: 1,
 *   worktree: { outcome: "kept", reason: "dirty" },
 *   next: "ariel-worktree remove --task t1 --source . --snapshot" } as RunEndRecord);
 * // "run 20261203T091500Z-k3x9a2 (agent) failed with status 1; kept its worktree (dirty):
 * //  ariel-worktree remove --task t1 --source . --snapshot" (one line)
 * ```
 */
export function runEndLine(e: RunEndRecord): string {
  const who = e.name === null ? `run ${e.runId}` : `run ${e.runId} (${e.name})`;
  const how =
    e.status === null ? `${e.state}: its exit status is unknown` : `${e.state} with status ${e.status}`;
  const kept =
    e.worktree?.outcome === "kept" && e.next !== null
      ? `; kept its worktree (${e.worktree.reason ?? "keep"}): ${e.next}`
      : e.worktree?.outcome === "snapshotted"
        ? "; its worktree was snapshotted and removed"
        : "";
  return `${who} ${how}${kept}`;
}
