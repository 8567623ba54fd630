/**
 * Where a reader of one run's stream is: the last history line (seq) it has, and for a detached
 * run the byte offset up to which it has each output stream. Sent as SSE `id:` and taken back as
 * `Last-Event-ID` or `?from=`: `SEQ` for a foreground run, `SEQ.STDOUT.STDERR` for a detached one.
 *
 * @example
 * ```ts
 * parseRunCursor("7"); // { seq: 7, stdout: 0, stderr: 0 }
 * formatRunCursor({ seq: 3, stdout: 120, stderr: 0 }, true); // "3.120.0"
 * ```
 */

export interface RunCursor {
  seq: number;
  stdout: number;
  stderr: number;
}

export const RUN_CURSOR_START: RunCursor = { seq: 0, stdout: 0, stderr: 0 };

export function parseRunCursor(text: string): RunCursor | null {
  const m = /^(\d{1,15})(?:\.(\d{1,15})\.(\d{1,15}))?$/.exec(text);
  if (!m) return null;
  return { seq: Number(m[1]), stdout: Number(m[2] ?? 0), stderr: Number(m[3] ?? 0) };
}

export function formatRunCursor(c: RunCursor, detached: boolean): string {
  return detached ? `${c.seq}.${c.stdout}.${c.stderr}` : String(c.seq);
}
