/**
 * The resume cursor of the fleet-wide event stream. One run's events are numbered by `seq`, so a
 * run's stream resumes from a number; the fleet stream interleaves many runs, so its cursor is
 * a start time plus the last seq delivered of each run seen since: an event is new when its run
 * has an entry and its seq is past it, or its run has none and it happened at or after the start.
 * The cursor is what SSE sends as `id:` and gets back as `Last-Event-ID`.
 *
 * @example
 * ```ts
 * let c = startCursor(Date.parse("2026-12-02T11:00:00Z"));
 * const e = { ts: "2026-12-02T11:00:01Z", workspace: "ae89cb2b620ea8fc", runId: "r1", seq: 4 };
 * cursorAdmits(c, e); // true
 * c = advanceCursor(c, e);
 * formatCursor(c); // "mx60kww0;ae89cb2b620ea8fc/r1:4"
 * cursorAdmits(parseCursor(formatCursor(c))!, e); // false
 * ```
 */

export interface FleetCursor {
  /** Epoch ms: events of runs without an entry count from here. */
  since: number;
  /** `<workspace>/<runId>` → last seq delivered. */
  seen: Map<string, number>;
}

type Positioned = { ts: string; workspace: string; runId: string; seq: number };

/** Longest cursor accepted back (a header a browser sends on every reconnect). */
export const MAX_CURSOR_CHARS = 32 * 1024;

const KEY = /^[0-9a-f]{16}\/[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function startCursor(since: number): FleetCursor {
  return { since, seen: new Map() };
}

function keyOf(e: Pick<Positioned, "workspace" | "runId">): string {
  return `${e.workspace}/${e.runId}`;
}

/** Whether `e` comes after the cursor (was not delivered yet). */
export function cursorAdmits(c: FleetCursor, e: Positioned): boolean {
  const last = c.seen.get(keyOf(e));
  if (last !== undefined) return e.seq > last;
  const t = Date.parse(e.ts);
  return Number.isFinite(t) && t >= c.since;
}

/** The cursor after delivering `e` (a new cursor; the old one is unchanged). */
export function advanceCursor(c: FleetCursor, e: Positioned): FleetCursor {
  const seen = new Map(c.seen);
  seen.set(keyOf(e), Math.max(e.seq, seen.get(keyOf(e)) ?? 0));
  return { since: c.since, seen };
}

/** `<since base36>;<ws>/<run>:<seq>;…` */
export function formatCursor(c: FleetCursor): string {
  const parts = [c.since.toString(36)];
  for (const [k, s] of c.seen) parts.push(`${k}:${s}`);
  return parts.join(";");
}

/** A cursor back from a client, or null when it is not one of ours. */
export function parseCursor(text: string): FleetCursor | null {
  if (text.length > MAX_CURSOR_CHARS) return null;
  const [head, ...rest] = text.split(";");
  if (head === undefined || !/^[0-9a-z]{1,12}$/.test(head)) return null;
  const since = Number.parseInt(head, 36);
  const seen = new Map<string, number>();
  for (const p of rest) {
    const i = p.lastIndexOf(":");
    const key = p.slice(0, i);
    const seq = p.slice(i + 1);
    if (i < 0 || !KEY.test(key) || !/^\d{1,15}$/.test(seq)) return null;
    seen.set(key, Number(seq));
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
