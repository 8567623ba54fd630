/**
 * The disk walk of `ariel-worktree du` in this process: allocated bytes (st_blocks × 512) under a
 * directory, never following a symbolic link, each hardlinked file counted once per run. One
 * synchronous `readdir` per directory and one `lstat` per entry (~5 µs each). It walks the top
 * levels of every tree and whatever GNU find cannot (parallel_walk.ts), and small trees
 * (`gc`'s sizes) whole. `ariel-worktree list --size` measures legs with it too.
 */
import { lstatSync, readdirSync, type Stats } from "node:fs";
import { countLinks, type FoundLink } from "../../disk/find_output.ts";
import { classifyTree, type DuTree, type PathClassifier, type Usage } from "../../disk/usage.ts";

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

/** `lstat` of `path`; null when it is gone, and when it cannot be read (then also a warning). */
export function lstatOrNull(path: string, state: WalkState): Stats | null {
  try {
    return lstatSync(path, NO_THROW) ?? null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    state.warnings.push({ code: "WARN_DU_UNREADABLE", path, reason: code ?? "error" });
    return null;
  }
}

/**
 * Add `st`, a non-directory in `tree.dirs[dir]`, to that directory: its bytes, or for a file with
 * several links a {@link FoundLink} for {@link countLinks} to count once per run.
 */
export function addEntry(tree: DuTree, dir: number, st: Stats, links: FoundLink[]): void {
  const bytes = st.blocks * 512;
  if (st.nlink > 1) links.push({ dir, bytes, key: `${st.dev}:${st.ino}` });
  else tree.dirs[dir]!.files += bytes;
}

/**
 * Walk what is under the directory `abs`, which is `tree.dirs[index]` already: one synchronous
 * `readdir` per directory and one `lstat` per entry, links never followed (lstat: a symbolic
 * link is never a directory here). Unreadable directories are reported in `state.warnings` and
 * skipped; multiply-linked files go to `links`.
 */
export function walkUnder(
  tree: DuTree,
  index: number,
  abs: string,
  state: WalkState,
  links: FoundLink[],
): void {
  const paths = new Map<number, string>([[index, abs]]);
  // Depth first with an explicit stack of indexes; a child is always pushed after its parent.
  const stack = [index];
  while (stack.length > 0) {
    const i = stack.pop()!;
    const dir = paths.get(i)!;
    paths.delete(i);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") {
        state.warnings.push({ code: "WARN_DU_UNREADABLE", path: dir, reason: code ?? "error" });
      }
      continue;
    }
    for (const name of names) {
      const p = `${dir}/${name}`;
      const st = lstatOrNull(p, state);
      if (!st) continue;
      if (st.isDirectory()) {
        stack.push(tree.dirs.length);
        paths.set(tree.dirs.length, p);
        tree.dirs.push({ parent: i, name, own: st.blocks * 512, files: 0 });
      } else addEntry(tree, i, st, links);
    }
  }
}

/**
 * Record the allocated bytes under `dir` (nothing when it is gone) with {@link walkUnder}, in
 * this process, a file with several links counted only the first time this run meets it
 * (`state.seen`, by `dev:ino`). {@link classifyTree} splits the result by class;
 * {@link walkTrees} (parallel_walk.ts) is the faster walk of large trees.
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
  const links: FoundLink[] = [];
  const top = lstatOrNull(dir, state);
  if (!top) return tree;
  if (top.isDirectory()) {
    tree.dirs.push({ parent: -1, name: "", own: top.blocks * 512, files: 0 });
    walkUnder(tree, 0, dir, state, links);
  } else {
    tree.dirs.push({ parent: -1, name: "", own: 0, files: 0 });
    addEntry(tree, 0, top, links);
  }
  countLinks(tree, links, state.seen);
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
