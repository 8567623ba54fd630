import { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, statSync } from "node:fs";
import type { OutputRead, OutputStream } from "../../runs/backend.ts";
import type { RunPaths } from "../../runs/paths.ts";
import { DEFAULT_OUTPUT_CAP, locate, rotate, type Segments } from "../../runs/segments.ts";
import { writeAtomic } from "../fs.ts";

/** The files of one output stream: the current one, the previous segment, and their bases. */
function files(paths: RunPaths, stream: OutputStream): { current: string; previous: string; meta: string } {
  const current = paths[stream];
  return { current, previous: `${current}.1`, meta: `${current}.seg` };
}

/** A stream's segments (`<stream>.seg`); none written yet means one file from sequence 0. */
export function readSegments(paths: RunPaths, stream: OutputStream): Segments {
  try {
    const v = JSON.parse(readFileSync(files(paths, stream).meta, "utf8")) as Segments;
    if (Number.isSafeInteger(v.base) && (v.prevBase === null || Number.isSafeInteger(v.prevBase))) return v;
  } catch {}
  return { base: 0, prevBase: null };
}

/** The output size cap per stream: `ARIEL_RUN_OUTPUT_CAP` bytes, else 64 MiB. */
export function outputCap(env: Readonly<Record<string, string | undefined>>): number {
  const n = Number(env.ARIEL_RUN_OUTPUT_CAP);
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_OUTPUT_CAP;
}

/**
 * Before the monitor (re)starts a child: rotate each stream whose current file reached `cap`
 * (it becomes `<stream>.1`, replacing the older segment; the sequence goes on from its end). No
 * child holds the files then, so nothing written is lost to the rotation itself.
 */
export async function rotateOutput(paths: RunPaths, cap: number): Promise<void> {
  for (const stream of ["stdout", "stderr"] as const) {
    const f = files(paths, stream);
    let size: number;
    try {
      size = statSync(f.current).size;
    } catch {
      continue;
    }
    const next = rotate(readSegments(paths, stream), size, cap);
    if (next === null) continue;
    // The bases first: a reader that sees the new bases before the rename reads a short current
    // file (it looks again); the reverse order could hand it bytes under the wrong sequence.
    await writeAtomic(f.meta, `${JSON.stringify(next)}\n`, 0o600);
    renameSync(f.current, f.previous);
  }
}

/** Read up to `max` bytes of a stream from sequence `from` (absolute, across rotations). */
export function readOutputAt(paths: RunPaths, stream: OutputStream, from: number, max: number): OutputRead {
  const f = files(paths, stream);
  const seg = readSegments(paths, stream);
  const at = locate(seg, from);
  const current = readFileAt(
    f.current,
    at.file === "current" ? at.offset : 0,
    at.file === "current" ? max : 0,
  );
  const size = seg.base + current.size;
  if (at.file === "current") return { start: at.start, bytes: current.bytes, size };
  const prev = readFileAt(f.previous, at.offset, max);
  return { start: at.start, bytes: prev.bytes, size };
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
