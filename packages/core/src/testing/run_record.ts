import type { RunRecord } from "../runs/record.ts";

/** The run id of {@link runRecord}. */
export const RUN_ID = "20261202T110943Z-abc123";
/** The time {@link runRecord} was made and started. */
export const RUN_AT = "2026-12-02T11:09:43.000Z";

/**
 * A whole, valid run.json of a local run (`sleep 1` in `/ws`, live under its monitor), with the
 * fields of `over` in place of its own: the pure tests' one spelt-out run record.
 */
export function runRecord(over: Partial<RunRecord> = {}): RunRecord {
  return {
    v: 1,
    type: "run",
    runId: RUN_ID,
    name: "agent",
    backend: "local",
    workspace: { root: "/ws", hash: "0123456789abcdef" },
    source: ".",
    cwd: "/ws",
    task: null,
    worktree: null,
    branch: null,
    argv: ["sleep", "1"],
    createdAt: RUN_AT,
    startedAt: RUN_AT,
    endedAt: null,
    monitor: { pid: 10, startTime: "5", bootId: "b" },
    child: { pid: 11, pgid: 11, startTime: "6" },
    restart: { policy: "no", max: 0, count: 0 },
    respawnOf: null,
    exit: null,
    timeoutMs: null,
    graceMs: 10000,
    onExit: null,
    interactive: false,
    isolate: null,
    kill: null,
    worktreeOutcome: null,
    version: 2,
    fencingToken: 0,
    ...over,
  };
}
