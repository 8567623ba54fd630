import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import type { OutputRead, OutputStream } from "../../runs/backend.ts";
import type { RunPaths } from "../../runs/paths.ts";
import { DEFAULT_OUTPUT_CAP, dropTo, keptPart, LINE_RESUME_WINDOW, lineResume } from "../../runs/segments.ts";
import { nodeChildProcess } from "../builtins.ts";
import { writeAtomic } from "../fs.ts";

/** The file a stream's child writes and the record of how much of its head was dropped. */
function files(paths: RunPaths, stream: OutputStream): { current: string; meta: string } {
  const current = paths[stream];
  return { current, meta: `${current}.dropped` };
}

/**
 * A stream's drop record (`<stream>.dropped`): where its kept output begins (`dropped`) and where
 * a reader moved past the drop goes on (`resume`: the first line start at or after `dropped`; the
 * same offset in a record written before it existed). Nothing dropped yet is 0 and 0.
 */
export function readDropMark(paths: RunPaths, stream: OutputStream): { dropped: number; resume: number } {
  try {
    const v = JSON.parse(readFileSync(files(paths, stream).meta, "utf8")) as {
      dropped?: unknown;
      resume?: unknown;
    };
    const ok = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
    if (ok(v.dropped))
      return { dropped: v.dropped, resume: ok(v.resume) && v.resume >= v.dropped ? v.resume : v.dropped };
  } catch {}
  return { dropped: 0, resume: 0 };
}

/** Where a stream's kept output begins (`<stream>.dropped`); nothing dropped yet is 0. */
export function readDropped(paths: RunPaths, stream: OutputStream): number {
  return readDropMark(paths, stream).dropped;
}

/** Write a stream's drop record (temp file and rename, owner only). */
function writeDropMark(meta: string, mark: { dropped: number; resume: number }): Promise<void> {
  return writeAtomic(meta, `${JSON.stringify(mark)}\n`, 0o600);
}

/** The output size cap per stream: `ARIEL_RUN_OUTPUT_CAP` bytes in the monitor's environment, else 64 MiB. */
export function outputCap(env: Readonly<Record<string, string | undefined>>): number {
  const n = Number(env.ARIEL_RUN_OUTPUT_CAP);
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_OUTPUT_CAP;
}

/** Frees bytes `offset .. offset+length` of a file in place (a hole: they read as zeros, the length stays). */
export type PunchHole = (path: string, offset: number, length: number) => Promise<void>;

/**
 * `fallocate --punch-hole` (util-linux): Node has no fallocate(2). No shell; fails with the
 * tool's own message when it is missing or the filesystem cannot punch holes.
 */
export const punchHole: PunchHole = (path, offset, length) =>
  new Promise((resolve, reject) => {
    const child = nodeChildProcess().spawn(
      "fallocate",
      ["--punch-hole", "--offset", String(offset), "--length", String(length), path],
      { stdio: ["ignore", "ignore", "pipe"], shell: false },
    );
    let err = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (s: string) => {
      err += s;
    });
    child.once("error", (e) =>
      reject(new Error(`fallocate: ${(e as NodeJS.ErrnoException).code ?? e.message}`)),
    );
    child.once("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(err.trim().split("\n")[0] || `fallocate exited with ${code}`)),
    );
  });

/**
 * Enforce the cap on one stream: when more than `cap` plus a segment is kept, record the new
 * `dropped` offset, then punch the hole over the bytes under it. The record comes first: a
 * reader checks it again after each read, so it never takes a punched (zeroed) byte for output.
 * When the hole cannot be punched, the record goes back and the error is returned: the stream is
 * then kept whole. Returns null when nothing had to go.
 */
export async function capStream(
  paths: RunPaths,
  stream: OutputStream,
  cap: number,
  punch: PunchHole = punchHole,
): Promise<{ dropped: number } | { error: string } | null> {
  const f = files(paths, stream);
  let size: number;
  try {
    size = statSync(f.current).size;
  } catch {
    return null;
  }
  const before = readDropMark(paths, stream);
  const to = dropTo(size, before.dropped, cap);
  if (to === null) return null;
  // The byte before `to` is still there: the line the drop cuts is known before the hole.
  const resume = lineResume(readFileAt(f.current, to - 1, LINE_RESUME_WINDOW).bytes, to);
  await writeDropMark(f.meta, { dropped: to, resume });
  try {
    await punch(f.current, before.dropped, to - before.dropped);
  } catch (e) {
    await writeDropMark(f.meta, before);
    return { error: (e as Error).message };
  }
  return { dropped: to };
}

/**
 * Read up to `max` bytes of a stream from sequence `from` (its byte offset); when `from` was
 * dropped by the cap, from the first whole line kept (`start` says where).
 */
export function readOutputAt(paths: RunPaths, stream: OutputStream, from: number, max: number): OutputRead {
  const f = files(paths, stream);
  const mark = readDropMark(paths, stream);
  const at = from < mark.dropped ? mark.resume : from;
  const r = readFileAt(f.current, at, max);
  if (r.bytes.length === 0) return { start: at, bytes: r.bytes, size: Math.max(r.size, at) };
  // A drop recorded while we read may have zeroed what we got: cut it off, up to its line start.
  const after = readDropMark(paths, stream);
  const kept = keptPart(at, r.bytes.length, after.dropped > at ? after.resume : at);
  return { start: kept.start, bytes: r.bytes.subarray(kept.skip), size: Math.max(r.size, kept.start) };
}

/** Up to `max` bytes of a file from byte `from`, and its size; an absent file is empty. */
function readFileAt(path: string, from: number, max: number): { bytes: Uint8Array; size: number } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { bytes: new Uint8Array(0), size: 0 };
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    const n = Math.max(0, Math.min(max, size - from));
    const bytes = new Uint8Array(n);
    let got = 0;
    while (got < n) {
      const k = readSync(fd, bytes, got, n - got, from + got);
      if (k <= 0) break;
      got += k;
    }
    return { bytes: bytes.subarray(0, got), size };
  } finally {
    closeSync(fd);
  }
}

/** Which stream names exist. */
export const OUTPUT_STREAMS: readonly OutputStream[] = ["stdout", "stderr"];
