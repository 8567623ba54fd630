/**
 * Resuming a followed pod log (`GET …/log?follow=true&timestamps=true`) after the connection
 * dropped, without losing or repeating a line (docs/kubernetes.md, Runs on the cluster). Every
 * line comes with the runtime's RFC3339Nano timestamp; the API's `sinceTime` takes whole seconds
 * only, so a reconnect asks from the last timestamp's second and this cursor drops what was
 * already printed: every line older than the last one printed, and as many lines with exactly
 * its timestamp as were printed with it.
 *
 * @example
 * ```ts
 * const c = newLogCursor();
 * const key = timestampKey("2026-12-02T10:00:00.5Z");
 * acceptLogLine(c, key); // true
 * sinceTimeOf(c); // "2026-12-02T10:00:00Z"
 * const again = reopenLogCursor(c);
 * acceptLogLine(again, key); // false: printed before the drop
 * ```
 */

export interface LogCursor {
  /** The normalized timestamp of the last line printed (null before the first one). */
  last: string | null;
  /** How many lines with exactly `last` were printed. */
  sameCount: number;
  /** On this connection: how many lines with `last` are still to be skipped. */
  skip: number;
}

export function newLogCursor(): LogCursor {
  return { last: null, sameCount: 0, skip: 0 };
}

/** The cursor for a new connection (from {@link sinceTimeOf}): the lines at `last` are skipped again. */
export function reopenLogCursor(c: LogCursor): LogCursor {
  return { last: c.last, sameCount: c.sameCount, skip: c.sameCount };
}

const TS = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/**
 * A log timestamp as a key that sorts like the time it names (UTC, nanoseconds padded to 9
 * digits: RFC3339Nano drops trailing zeros, so the raw strings do not sort), or null when it
 * is not one.
 */
export function timestampKey(ts: string): string | null {
  const m = TS.exec(ts);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) return null;
  return `${new Date(ms).toISOString().slice(0, 19)}.${(m[2] ?? "").padEnd(9, "0")}`;
}

/** Split one line of a timestamped log into its timestamp key and the rest (after one space). */
export function splitTimestamp(line: Uint8Array): { key: string | null; content: Uint8Array } {
  const sp = line.indexOf(0x20);
  if (sp <= 0 || sp > 40) return { key: null, content: line };
  const key = timestampKey(new TextDecoder().decode(line.subarray(0, sp)));
  return key === null ? { key, content: line } : { key, content: line.subarray(sp + 1) };
}

/**
 * Whether a line with timestamp `key` (from {@link timestampKey}) is new, to print; the cursor
 * moves when it is. A line without a timestamp (null) is always new.
 */
export function acceptLogLine(c: LogCursor, key: string | null): boolean {
  if (key === null) return true;
  if (c.last !== null && key < c.last) return false;
  if (key === c.last) {
    if (c.skip > 0) {
      c.skip--;
      return false;
    }
    c.sameCount++;
    return true;
  }
  c.last = key;
  c.sameCount = 1;
  c.skip = 0;
  return true;
}

/** The `sinceTime` of a reconnect: the last printed line's second (RFC3339), or null from the start. */
export function sinceTimeOf(c: LogCursor): string | null {
  return c.last === null ? null : `${c.last.slice(0, 19)}Z`;
}
