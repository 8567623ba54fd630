/**
 * The resume cursor of the fleet-wide event stream. One run's events are numbered by `seq`, so a
 * run's stream resumes from a number; the fleet stream interleaves many runs, so its cursor is
 * a start time plus, for each run seen since, the last history seq delivered and, for a detached
 * run, how far its stdout and stderr files were delivered (byte offsets, the runs' own output
 * sequence): a history event is new when its run has an entry and its seq is past it, or its run
 * has none and it happened at or after the start; an output line is new when it starts at or
 * after its stream's offset. The cursor is what SSE sends as `id:` and gets back as
 * `Last-Event-ID`.
 *
 * @example
 * ```ts
 * let c = startCursor(Date.parse("2026-12-02T11:00:00Z"));
 * const e = { ts: "2026-12-02T11:00:01Z", workspace: "ae89cb2b620ea8fc", runId: "r1", seq: 4 };
 * cursorAdmits(c, e); // true
 * c = advanceCursor(c, e);
 * formatCursor(c); // "mx60kww0;ae89cb2b620ea8fc/r1:4"
 * cursorAdmits(parseCursor(formatCursor(c))!, e); // false
 * formatCursor(advanceOutput(c, e, "stdout", 120)); // "mx60kww0;ae89cb2b620ea8fc/r1:4.120.0"
 * ```
 */
import { WORKSPACE_HASH_SOURCE } from "../hash.ts";
import type { RunCursor } from "./run_cursor.ts";

export interface FleetCursor {
  /** Epoch ms: events of runs without an entry count from here. */
  since: number;
  /**
   * `<workspace>/<runId>` → the last history seq delivered and, for a detached run, the offset
   * up to which each output stream was delivered (0 for a foreground run).
   */
  seen: Map<string, RunCursor>;
}

type Positioned = { ts: string; workspace: string; runId: string; seq: number };

/** Longest cursor accepted back (a header a browser sends on every reconnect). */
export const MAX_CURSOR_CHARS = 32 * 1024;

const KEY = new RegExp(`^${WORKSPACE_HASH_SOURCE}/[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`);

export function startCursor(since: number): FleetCursor {
  return { since, seen: new Map() };
}

export function keyOf(e: Pick<Positioned, "workspace" | "runId">): string {
  return `${e.workspace}/${e.runId}`;
}

/** Whether `e` comes after the cursor (was not delivered yet). */
export function cursorAdmits(c: FleetCursor, e: Positioned): boolean {
  const last = c.seen.get(keyOf(e));
  if (last !== undefined) return e.seq > last.seq;
  const t = Date.parse(e.ts);
  return Number.isFinite(t) && t >= c.since;
}

const NONE: RunCursor = { seq: 0, stdout: 0, stderr: 0 };

/** The cursor after delivering history event `e` (a new cursor; the old one is unchanged). */
export function advanceCursor(c: FleetCursor, e: Positioned): FleetCursor {
  const seen = new Map(c.seen);
  const cur = seen.get(keyOf(e)) ?? NONE;
  seen.set(keyOf(e), { ...cur, seq: Math.max(e.seq, cur.seq) });
  return { since: c.since, seen };
}

/**
 * The cursor after delivering a detached run's output line of `stream` that ends at byte `next`
 * (a new cursor; the old one is unchanged).
 */
export function advanceOutput(
  c: FleetCursor,
  run: Pick<Positioned, "workspace" | "runId">,
  stream: "stdout" | "stderr",
  next: number,
): FleetCursor {
  const seen = new Map(c.seen);
  const cur = seen.get(keyOf(run)) ?? NONE;
  seen.set(keyOf(run), { ...cur, [stream]: Math.max(next, cur[stream]) });
  return { since: c.since, seen };
}

/**
 * The cursor with an entry for a run it has none for (a new cursor): where a detached run's
 * output is taken up when the run began before the cursor's start (its lines carry no time).
 */
export function pinRun(
  c: FleetCursor,
  run: Pick<Positioned, "workspace" | "runId">,
  at: RunCursor,
): FleetCursor {
  if (c.seen.has(keyOf(run))) return c;
  const seen = new Map(c.seen);
  seen.set(keyOf(run), { ...at });
  return { since: c.since, seen };
}

/** `<since base36>;<ws>/<run>:<seq>[.<stdout>.<stderr>];…` (the offsets when either is not 0). */
export function formatCursor(c: FleetCursor): string {
  const parts = [c.since.toString(36)];
  for (const [k, s] of c.seen) {
    parts.push(s.stdout === 0 && s.stderr === 0 ? `${k}:${s.seq}` : `${k}:${s.seq}.${s.stdout}.${s.stderr}`);
  }
  return parts.join(";");
}

/** A cursor back from a client, or null when it is not one of ours. */
export function parseCursor(text: string): FleetCursor | null {
  if (text.length > MAX_CURSOR_CHARS) return null;
  const [head, ...rest] = text.split(";");
  if (head === undefined || !/^[0-9a-z]{1,12}$/.test(head)) return null;
  const since = Number.parseInt(head, 36);
  const seen = new Map<string, RunCursor>();
  for (const p of rest) {
    const i = p.lastIndexOf(":");
    const key = p.slice(0, i);
    const m = /^(\d{1,15})(?:\.(\d{1,15})\.(\d{1,15}))?$/.exec(p.slice(i + 1));
    if (i < 0 || !KEY.test(key) || !m) return null;
    seen.set(key, { seq: Number(m[1]), stdout: Number(m[2] ?? 0), stderr: Number(m[3] ?? 0) });
  }
  return { since, seen };
}

/** Fleet order: by time, then workspace, run and seq (stable across servers and reconnects). */
export function compareEvents(a: Positioned, b: Positioned): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  if (a.workspace !== b.workspace) return a.workspace < b.workspace ? -1 : 1;
  if (a.runId !== b.runId) return a.runId < b.runId ? -1 : 1;
  return a.seq - b.seq;
}
