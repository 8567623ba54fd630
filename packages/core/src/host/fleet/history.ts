import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { type FleetEvent, normalizeEvent } from "../../fleet/events.ts";

/** Where a reader stopped in one history file: the next byte to read and the last seq given. */
export interface HistoryPosition {
  offset: number;
  seq: number;
}

export interface HistoryChunk {
  events: FleetEvent[];
  /** The file's size when it was read (0 when missing). */
  size: number;
  /** Lines that were not fleet events (torn, not JSON, unknown kinds): skipped and counted. */
  skipped: number;
  position: HistoryPosition;
}

/** Read at most this much of a history file per call; the rest comes with the next one. */
export const HISTORY_MAX_READ = 4 * 1024 * 1024;

/**
 * The complete lines of a history file from `from` on, as fleet events numbered by line (seq =
 * 1-based line number, so every line, also a skipped one, takes its number). A last line without
 * its newline is still being written: it is left for the next call. A missing file reads as
 * empty.
 *
 * @example
 * ```ts
 * let pos = { offset: 0, seq: 0 };
 * const { events, position } = await readHistory(path, "ae89cb2b620ea8fc", "r1", pos);
 * pos = position; // the next call returns only what was appended since
 * ```
 */
export async function readHistory(
  path: string,
  workspace: string,
  runId: string,
  from: HistoryPosition = { offset: 0, seq: 0 },
): Promise<HistoryChunk> {
  // Synchronous reads: a history is small and read whole most of the time, and a promise per
  // open/stat/read/close costs a thread-pool round trip each (about half of /api/fleet's time).
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { events: [], size: 0, skipped: 0, position: from };
    throw e;
  }
  let buf: Buffer;
  let bytesRead: number;
  let size: number;
  try {
    size = fstatSync(fd).size;
    if (size <= from.offset) return { events: [], size, skipped: 0, position: from };
    const want = Math.min(size - from.offset, HISTORY_MAX_READ);
    buf = Buffer.alloc(want);
    bytesRead = readSync(fd, buf, 0, want, from.offset);
  } finally {
    closeSync(fd);
  }
  const end = buf.lastIndexOf(10, bytesRead - 1);
  if (end < 0) return { events: [], size, skipped: 0, position: from };
  const text = buf.toString("utf8", 0, end);
  const events: FleetEvent[] = [];
  let skipped = 0;
  let seq = from.seq;
  for (const line of text.split("\n")) {
    seq++;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const e =
      record !== null && typeof record === "object" && !Array.isArray(record)
        ? normalizeEvent(record as Record<string, unknown>, { workspace, runId, seq })
        : null;
    if (e) events.push(e);
    else skipped++;
  }
  return { events, size, skipped, position: { offset: from.offset + end + 1, seq } };
}

/** Chunks read lately, by file and offset: a history only grows, so a chunk read once never changes. */
const recent = new Map<string, HistoryChunk>();
const RECENT_MAX = 512;

/**
 * {@link readHistory} that shares what it read: many readers following one run (SSE clients)
 * at the same position get the same chunk, parsed once. A reader that comes later than the
 * chunk was read gets the rest on its next call: positions chain, so nothing is skipped or
 * repeated.
 */
export async function readHistoryShared(
  path: string,
  workspace: string,
  runId: string,
  from: HistoryPosition = { offset: 0, seq: 0 },
): Promise<HistoryChunk> {
  const key = `${path}\0${from.offset}\0${from.seq}`;
  const hit = recent.get(key);
  if (hit) return hit;
  const chunk = await readHistory(path, workspace, runId, from);
  // Only a chunk that ended on a line end at a known place is worth sharing.
  if (chunk.position.offset > from.offset) {
    if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
    recent.set(key, chunk);
  }
  return chunk;
}

/** Every event of a history file (looping over {@link readHistory} until the end). */
export async function readAllHistory(path: string, workspace: string, runId: string): Promise<HistoryChunk> {
  let pos: HistoryPosition = { offset: 0, seq: 0 };
  const events: FleetEvent[] = [];
  let skipped = 0;
  for (;;) {
    const chunk = await readHistory(path, workspace, runId, pos);
    events.push(...chunk.events);
    skipped += chunk.skipped;
    const done = chunk.position.offset === pos.offset || chunk.position.offset >= chunk.size;
    pos = chunk.position;
    if (done) return { events, size: chunk.size, skipped, position: pos };
  }
}
