/**
 * The walk of large trees for `ariel-worktree du`: this process lists the top levels of each tree
 * itself, then hands the subtrees below them to a few GNU `find` processes running in parallel
 * (one `fstatat` per entry on a directory fd, like `du`), and adds up the short records they
 * print. Where find is missing, not GNU's, or fails, the same subtrees are walked here
 * (walk.ts) instead: the numbers are the same either way. See decision 0042.
 */
import type { Dirent } from "node:fs";
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, unlinkSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { createLimiter } from "../../discovery/limit.ts";
import {
  appendFound,
  countLinks,
  FIND_EXPRESSION,
  FindOutputParser,
  type FindRoot,
  type FoundLink,
  type FoundTree,
} from "../../disk/find_output.ts";
import type { DuTree } from "../../disk/usage.ts";
import { nodeChildProcess } from "../builtins.ts";
import { addEntry, lstatOrNull, type WalkState, walkUnder } from "./walk.ts";

/** Directories this process lists itself per tree before find takes over (a level at a time). */
const READDIR_BUDGET = 128;
/** Entries this process `lstat`s itself per tree: a tree this small needs no find at all. */
const LSTAT_BUDGET = 4096;
/** A directory holding more non-directories than this goes to find whole, not listed here. */
const FLAT = 512;
/**
 * Start points per find process are cut to stay under this many bytes of arguments (Linux takes
 * at least 128 KiB whatever the stack limit). They are relative to the tree (`./node_modules/x`,
 * find runs in it), a third of the bytes of absolute paths.
 */
const ARGV_BYTES = 96 * 1024;

export interface ParallelWalkOptions {
  /** find processes at once (default: the CPUs this process may use, at most 4). */
  jobs?: number;
  /** The find executable (default `find`, looked up on PATH). */
  find?: string;
}

/** find executables this process found unusable (missing, or printing another format). */
const unusable = new Set<string>();
/** Temporary files made by this process (their names: `ariel-du-<pid>-<n>`, unlinked at once). */
let tempFiles = 0;

interface Batch {
  roots: FindRoot[];
  /** The start points, absolute (to walk here if find fails). */
  paths: string[];
  found: Promise<FoundTree | null>;
}

interface PlannedTree {
  /** The tree's top, find's working directory. */
  dir: string;
  tree: DuTree;
  /** Multiply-linked files met while listing the top levels. */
  links: FoundLink[];
  batches: Batch[];
}

/**
 * Record the allocated bytes under each of `dirs` (nothing for one that is gone), like
 * `walkTree` (walk.ts) but with the work below the top levels spread over parallel find
 * processes. Each tree is complete when it is returned: a hardlinked file is counted in the
 * first tree of `dirs` that holds it (in the order the walk meets it there), as a sequential walk
 * of the same trees would.
 *
 * @example
 * ```ts
 * const state = newWalkState();
 * const [leg, admin] = await walkTrees(["/w/.ariel/worktrees/t1/api", "/w/api/.git/worktrees/api"], state);
 * ```
 */
export async function walkTrees(
  dirs: readonly string[],
  state: WalkState,
  options: ParallelWalkOptions = {},
): Promise<DuTree[]> {
  // Fewer than one slot is one (a find per tree, one at a time), for the groups as for the limiter.
  const jobs = Math.max(
    1,
    options.jobs ?? Math.min(4, typeof availableParallelism === "function" ? availableParallelism() : 2),
  );
  const exe = options.find ?? "find";
  const limit = createLimiter(jobs);
  const find = (roots: FindRoot[], args: string[], cwd: string) =>
    limit(() => runFind(exe, roots, args, cwd));
  const planned = dirs.map((dir) => planTree(dir, state, find, jobs));
  const trees: DuTree[] = [];
  for (const p of planned) trees.push(await finishTree(p, state));
  return trees;
}

/** A directory seen in a listing, not measured yet. */
interface Candidate {
  parent: number;
  name: string;
  abs: string;
}

/**
 * List the top levels of `dir` here, breadth first, while the budgets last (a whole level or
 * none), and start find on what is below them: the directories of the first level not listed,
 * and directories too full of files to `lstat` here. Balance comes from many start points:
 * the level find gets is usually hundreds of directories (each package of a `node_modules`).
 */
function planTree(
  dir: string,
  state: WalkState,
  find: (roots: FindRoot[], args: string[], cwd: string) => Promise<FoundTree | null>,
  jobs: number,
): PlannedTree {
  const tree: DuTree = { dirs: [], hardlinked: 0 };
  const planned: PlannedTree = { dir, tree, links: [], batches: [] };
  const top = lstatOrNull(dir, state);
  if (!top) return planned;
  if (!top.isDirectory()) {
    tree.dirs.push({ parent: -1, name: "", own: 0, files: 0 });
    addEntry(tree, 0, top, planned.links);
    return planned;
  }
  tree.dirs.push({ parent: -1, name: "", own: top.blocks * 512, files: 0 });
  const roots: { root: FindRoot; abs: string }[] = [];
  let readdirs = READDIR_BUDGET;
  let lstats = LSTAT_BUDGET;
  let level: Candidate[] = [];
  const list = (index: number, abs: string) => {
    readdirs--;
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT")
        state.warnings.push({ code: "WARN_DU_UNREADABLE", path: abs, reason: code ?? "error" });
      return;
    }
    let files = 0;
    for (const e of entries) if (!e.isDirectory()) files++;
    if (files > FLAT || files > lstats) {
      roots.push({ root: { dir: index }, abs });
      return;
    }
    lstats -= files;
    for (const e of entries) {
      const abs2 = `${abs}/${e.name}`;
      if (e.isDirectory()) {
        level.push({ parent: index, name: e.name, abs: abs2 });
        continue;
      }
      const st = lstatOrNull(abs2, state);
      if (!st) continue;
      if (st.isDirectory()) level.push({ parent: index, name: e.name, abs: abs2 });
      else addEntry(tree, index, st, planned.links);
    }
  };
  list(0, dir);
  while (level.length > 0 && level.length <= readdirs && level.length <= lstats) {
    const current = level;
    level = [];
    lstats -= current.length;
    for (const c of current) {
      const st = lstatOrNull(c.abs, state);
      if (!st) continue;
      if (!st.isDirectory()) {
        addEntry(tree, c.parent, st, planned.links);
        continue;
      }
      tree.dirs.push({ parent: c.parent, name: c.name, own: st.blocks * 512, files: 0 });
      list(tree.dirs.length - 1, c.abs);
    }
  }
  for (const c of level) roots.push({ root: { parent: c.parent }, abs: c.abs });
  planned.batches = splitRoots(roots, dir, jobs).map((g) => ({
    roots: g.roots,
    paths: g.paths,
    found: find(g.roots, g.args, dir),
  }));
  return planned;
}

/** A start point as find's argument in `dir`: `./rel` (never read as an option), `.` for `dir`. */
const findArg = (abs: string, dir: string) => (abs === dir ? "." : `./${abs.slice(dir.length + 1)}`);

/** A path find printed (relative to `dir`, as its start points) as the walk's absolute path. */
export function foundPath(text: string, dir: string): string {
  if (text === ".") return dir;
  return text.startsWith("./") ? `${dir}/${text.slice(2)}` : text;
}

/**
 * The start points of one tree in `jobs` groups, round robin: neighbours, often alike in size, go
 * to different processes. When their arguments would be too long for `jobs` processes, in a
 * multiple of `jobs` groups: with `jobs` running at once, 3 groups on 2 slots would leave one
 * slot walking alone for a third of the time, 4 keep both busy.
 */
export function splitRoots(roots: { root: FindRoot; abs: string }[], dir: string, jobs: number) {
  if (roots.length === 0) return [];
  const args = roots.map((r) => findArg(r.abs, dir));
  let bytes = 0;
  for (const a of args) bytes += a.length + 1;
  const n = Math.min(roots.length, jobs * Math.max(1, Math.ceil(bytes / ARGV_BYTES / jobs)));
  const groups = Array.from({ length: n }, () => ({
    roots: [] as FindRoot[],
    paths: [] as string[],
    args: [] as string[],
  }));
  roots.forEach((r, i) => {
    groups[i % n]!.roots.push(r.root);
    groups[i % n]!.paths.push(r.abs);
    groups[i % n]!.args.push(args[i]!);
  });
  return groups;
}

/**
 * One find process in `cwd` over `args` (start points relative to it, `./…`, so none reads as an
 * option). Its records go to an
 * unlinked temporary file, not a pipe: a pipe holds 64 KiB, and on a busy machine find would
 * wait for this process to be scheduled and read every 64 KiB of its ~0.5 MB. Parsed once find
 * exits 0; null when it could not run, exited non-zero, or printed something else: the caller
 * walks those paths itself.
 */
function runFind(exe: string, roots: FindRoot[], args: string[], cwd: string): Promise<FoundTree | null> {
  if (unusable.has(exe)) return Promise.resolve(null);
  const fd = tempFile();
  if (fd === null) return Promise.resolve(null);
  return new Promise<FoundTree | null>((resolve) => {
    const child = nodeChildProcess().spawn(exe, [...args, ...FIND_EXPRESSION], {
      cwd,
      stdio: ["ignore", fd, "ignore"],
      shell: false,
    });
    // ENOENT is also what a vanished working directory gives: find stays usable for the rest
    // (here and when it closes).
    child.on("error", () => {
      if (existsSync(cwd)) unusable.add(exe);
    });
    child.on("close", (code) => {
      try {
        const out = readAll(fd);
        // Exit 1 without a record: not a find that takes these arguments (BSD's has no -printf).
        if (code !== 0 && out.length === 0 && existsSync(cwd)) unusable.add(exe);
        if (code !== 0) return resolve(null);
        const parser = new FindOutputParser(roots);
        parser.push(out);
        resolve(parser.end());
      } catch {
        unusable.add(exe);
        resolve(null);
      }
    });
  })
    .catch(() => null) // spawn itself threw (a runtime without fd stdio, say): walk here
    .finally(() => closeSync(fd));
}

/** A new, already unlinked file in the temporary directory, open for reading and writing. */
function tempFile(): number | null {
  const file = `${tmpdir()}/ariel-du-${process.pid}-${++tempFiles}`;
  let fd: number;
  try {
    fd = openSync(file, "wx+", 0o600);
  } catch {
    return null;
  }
  try {
    unlinkSync(file);
    return fd;
  } catch {
    closeSync(fd);
    return null;
  }
}

/** Everything written to the file `fd` (from its start). */
function readAll(fd: number): Uint8Array {
  const size = fstatSync(fd).size;
  const buf = new Uint8Array(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, buf, got, size - got, got);
    if (n <= 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** Wait for a tree's find processes and add their parts in order (or walk a failed part here). */
async function finishTree(planned: PlannedTree, state: WalkState): Promise<DuTree> {
  const { tree } = planned;
  countLinks(tree, planned.links, state.seen);
  for (const batch of planned.batches) {
    const found = await batch.found;
    if (found) {
      appendFound(tree, found, state.seen);
      for (const path of found.unreadable)
        state.warnings.push({
          code: "WARN_DU_UNREADABLE",
          path: foundPath(path, planned.dir),
          reason: "EACCES",
        });
      continue;
    }
    batch.roots.forEach((root, i) => {
      const abs = batch.paths[i]!;
      const links: FoundLink[] = [];
      if ("dir" in root) walkUnder(tree, root.dir, abs, state, links);
      else {
        const st = lstatOrNull(abs, state);
        if (st?.isDirectory()) {
          tree.dirs.push({
            parent: root.parent,
            name: abs.slice(abs.lastIndexOf("/") + 1),
            own: st.blocks * 512,
            files: 0,
          });
          walkUnder(tree, tree.dirs.length - 1, abs, state, links);
        } else if (st) addEntry(tree, root.parent, st, links);
      }
      countLinks(tree, links, state.seen);
    });
  }
  return tree;
}
