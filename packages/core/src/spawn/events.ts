/**
 * Event records of a spawn run (docs/spawn.md, Events): printed with --json and always appended to
 * `<root>/.ariel/runs/<runId>.ndjson`.
 *
 * @example
 * ```ts
 * eventRecord("20261202T110943Z-abc123", 0, "process.exited", "api", { code: 0, signal: null });
 * // {"v":1,"type":"event","event":"process.exited","runId":"20261202T110943Z-abc123",
 * //  "ts":"1970-01-01T00:00:00.000Z","source":"api","code":0,"signal":null}
 * ```
 */

export const EVENT_NAMES = [
  "run.started",
  "worktree.created",
  "process.started",
  "output",
  "process.exited",
  "worktree.removed",
  "worktree.kept",
  "worktree.snapshotted",
  "run.finished",
  "disk.low",
  "output.uncapped",
  "run.attention",
  "sandbox.synced",
  // What a run's agent reports about itself (runs/agents/events.ts).
  "agent.session",
  "agent.turn",
  "agent.tool",
  "agent.notice",
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

export interface EventRecord {
  v: 1;
  type: "event";
  event: EventName;
  runId: string;
  ts: string;
  source: string | null;
  [key: string]: unknown;
}

/** One event record; `fields` come after the fixed ones and cannot override them. */
export function eventRecord(
  runId: string,
  nowMs: number,
  event: EventName,
  source: string | null,
  fields: Record<string, unknown> = {},
): EventRecord {
  const record: EventRecord = {
    v: 1,
    type: "event",
    event,
    runId,
    ts: new Date(nowMs).toISOString(),
    source,
  };
  for (const [k, v] of Object.entries(fields)) if (!(k in record)) record[k] = v;
  return record;
}
