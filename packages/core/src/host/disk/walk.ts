/**
 * The disk walker of `ariel-worktree du`: allocated bytes (st_blocks × 512) under a directory,
 * split by class, never following a symbolic link, each hardlinked file counted once per run.
 * Uses the synchronous fs calls: one lstat per entry costs ~2 µs that way, against ~10 µs through
 * the thread pool (bench/disk.mjs), and legs are independent so the git calls around the walks
 * run together.
 */
import { lstatSync, readdirSync, type Stats, statfs } from "node:fs";
import { promisify } from "node:util";
import type { FreeSpace } from "../../disk/guard.ts";
import type { PathClassifier, Usage, UsageClass } from "../../disk/usage.ts";

const statfsAsync = promisify(statfs);

/** A path the walk could not read (it goes on and reports it). */
export interface WalkWarning {
  code: "WARN_DU_UNREADABLE";
  path: string;
  reason: string;
}

/** State shared by every walk of one `du` run. */
export interface WalkState {
  /** `dev:ino` of every multiply-linked file counted so far. */
  seen: Set<string>;
  warnings: WalkWarning[];
}

export function newWalkState(): WalkState {
  return { seen: new Set(), warnings: [] };
}

function lstatOrNull(path: string, state: WalkState): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") state.warnings.push({ code: "WARN_DU_UNREADABLE", path, reason: code ?? "error" });
    return null;
  }
}

/** Bytes of one entry, or 0 when it is a further link to a file counted already. */
function charge(st: Stats, state: WalkState, usage: Usage, cls: UsageClass | "admin"): void {
  const bytes = st.blocks * 512;
  if (!st.isDirectory() && st.nlink > 1) {
    const key = `${st.dev}:${st.ino}`;
    if (state.seen.has(key)) return;
    state.seen.add(key);
    usage.hardlinked += bytes;
  }
  usage[cls] += bytes;
  usage.total += bytes;
}

/**
 * Add the allocated bytes under `dir` to `usage`: everything as `admin` when `classifier` is
 * null, else each path by class. The `.git` entry at the top is admin. Unreadable directories
 * are reported in `state.warnings` and skipped.
 */
export function walkUsage(
  dir: string,
  classifier: PathClassifier | null,
  state: WalkState,
  usage: Usage,
): void {
  const top = lstatOrNull(dir, state);
  if (!top) return;
  const rootClass = classifier ? "checkout" : "admin";
  charge(top, state, usage, rootClass);
  if (!top.isDirectory()) return;
  const stack: { abs: string; rel: string; cls: UsageClass | "admin" }[] = [
    { abs: dir, rel: "", cls: rootClass },
  ];
  while (stack.length > 0) {
    const d = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(d.abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") {
        state.warnings.push({ code: "WARN_DU_UNREADABLE", path: d.abs, reason: code ?? "error" });
      }
      continue;
    }
    for (const name of names) {
      const abs = `${d.abs}/${name}`;
      const st = lstatOrNull(abs, state);
      if (!st) continue;
      const rel = d.rel === "" ? name : `${d.rel}/${name}`;
      let cls: UsageClass | "admin";
      if (d.cls === "admin" || (d.rel === "" && name === ".git")) cls = "admin";
      else cls = classifier ? classifier.classify(rel, d.cls) : "admin";
      charge(st, state, usage, cls);
      // lstat: a symbolic link is never a directory here, so links are never followed.
      if (st.isDirectory()) stack.push({ abs, rel, cls });
    }
  }
}

/** Free space of the filesystem holding `path` (or its nearest existing parent). */
export async function freeSpace(path: string): Promise<FreeSpace> {
  let p = path;
  for (;;) {
    try {
      const s = await statfsAsync(p);
      return { path: p, free: s.bavail * s.bsize, size: s.blocks * s.bsize };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const parent = p.slice(0, p.lastIndexOf("/")) || "/";
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === p) throw e;
      p = parent;
    }
  }
}
