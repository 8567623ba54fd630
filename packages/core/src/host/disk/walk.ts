/**
 * The disk walker of `ariel-worktree du`: allocated bytes (st_blocks × 512) under a directory,
 * split by class, never following a symbolic link, each hardlinked file counted once per run.
 * Synchronous on purpose: one lstat per entry costs ~5 µs that way, and batches of async lstats
 * through the thread pool or a walk split over worker threads were slower on 2 cores (decision
 * 0035); the git listings that classify the paths run while the walk does.
 */
import { lstatSync, readdirSync, type Stats, statfs } from "node:fs";
import { promisify } from "node:util";
import type { FreeSpace } from "../../disk/guard.ts";
import { classifyTree, type DuTree, type PathClassifier, type Usage } from "../../disk/usage.ts";

const statfsAsync = promisify(statfs);

/** A path the walk could not read (it goes on and reports it). */
export interface WalkWarning {
  code: "WARN_DU_UNREADABLE";
  path: string;
  reason: string;
}

/** State shared by every walk of one `du` run. */
export interface WalkState {
  /** `dev:ino` of every multiply-linked file counted so far, and the walk that counted it. */
  seen: Map<string, DuTree>;
  warnings: WalkWarning[];
}

export function newWalkState(): WalkState {
  return { seen: new Map(), warnings: [] };
}

const NO_THROW = { throwIfNoEntry: false } as const;

function lstatOrNull(path: string, state: WalkState): Stats | null {
  try {
    return lstatSync(path, NO_THROW) ?? null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    state.warnings.push({ code: "WARN_DU_UNREADABLE", path, reason: code ?? "error" });
    return null;
  }
}

/**
 * Record the allocated bytes under `dir` (nothing when it is gone): one synchronous `readdir`
 * per directory and one `lstat` per entry, links never followed, a file with several links
 * counted only the first time this run meets it (`state.seen`, by `dev:ino`, only for
 * `nlink > 1`). Unreadable directories are reported in `state.warnings` and skipped.
 * {@link classifyTree} splits the result by class.
 *
 * @example
 * ```ts
 * const state = newWalkState();
 * const usage = emptyUsage();
 * classifyTree(walkTree("/w/.git/worktrees/api", state), null, usage); // all admin
 * ```
 */
export function walkTree(dir: string, state: WalkState): DuTree {
  const tree: DuTree = { dirs: [], hardlinked: 0 };
  const top = lstatOrNull(dir, state);
  if (!top) return tree;
  const bytesOf = (st: Stats): number => {
    const bytes = st.blocks * 512;
    if (st.nlink > 1 && !st.isDirectory()) {
      const key = `${st.dev}:${st.ino}`;
      if (state.seen.has(key)) return 0;
      state.seen.set(key, tree);
      tree.hardlinked += bytes;
    }
    return bytes;
  };
  const own = bytesOf(top);
  if (!top.isDirectory()) {
    tree.dirs.push({ parent: -1, name: "", own: 0, files: own });
    return tree;
  }
  tree.dirs.push({ parent: -1, name: "", own, files: 0 });
  const paths = [dir];
  // Depth first with an explicit stack of indexes; a child is always pushed after its parent.
  const stack = [0];
  while (stack.length > 0) {
    const i = stack.pop()!;
    const abs = paths[i]!;
    const d = tree.dirs[i]!;
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") {
        state.warnings.push({ code: "WARN_DU_UNREADABLE", path: abs, reason: code ?? "error" });
      }
      continue;
    }
    for (const name of names) {
      const p = `${abs}/${name}`;
      const st = lstatOrNull(p, state);
      if (!st) continue;
      // lstat: a symbolic link is never a directory here, so links are never followed.
      if (st.isDirectory()) {
        stack.push(tree.dirs.length);
        paths.push(p);
        tree.dirs.push({ parent: i, name, own: bytesOf(st), files: 0 });
      } else {
        d.files += bytesOf(st);
      }
    }
  }
  return tree;
}

/**
 * Add the allocated bytes under `dir` to `usage`: everything as `admin` when `classifier` is
 * null, else each path by class (see {@link walkTree} and {@link classifyTree}).
 */
export function walkUsage(
  dir: string,
  classifier: PathClassifier | null,
  state: WalkState,
  usage: Usage,
): void {
  const tree = walkTree(dir, state);
  classifyTree(tree, classifier, usage, fileBytes(dir, tree, state));
}

/**
 * The bytes of one file of a walked tree, measured again for {@link classifyTree}: 0 when it is
 * gone, a directory now, or a link to a file another walk counted.
 */
export function fileBytes(dir: string, tree: DuTree, state: WalkState): (rel: string) => number {
  return (rel) => {
    const st = lstatOrNull(`${dir}/${rel}`, state);
    if (!st || st.isDirectory()) return 0;
    if (st.nlink > 1 && state.seen.get(`${st.dev}:${st.ino}`) !== tree) return 0;
    return st.blocks * 512;
  };
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
