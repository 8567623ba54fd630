/**
 * The arithmetic of `ariel-worktree du`: which class a path of a leg belongs to, and usage
 * totals. Pure; the walk itself is in host/walk/walk.ts: it records a {@link DuTree} while git
 * lists the untracked and ignored paths, and {@link classifyTree} splits it afterwards.
 */

/** The parts of a leg's disk usage (allocated bytes, hardlinks counted once per run). */
export interface Usage {
  /** Tracked files and the directories holding them. */
  checkout: number;
  /** Untracked files not ignored (new work). */
  untracked: number;
  /** Ignored files (build outputs, `node_modules`, …). */
  ignored: number;
  /** The worktree's admin dir under the common git dir, and its `.git` file. */
  admin: number;
  /** Sum of the four. */
  total: number;
  /** Part of `total` in files with more than one link (shared with another tree, e.g. `--share`). */
  hardlinked: number;
}

export type UsageClass = "checkout" | "untracked" | "ignored";

export function emptyUsage(): Usage {
  return { checkout: 0, untracked: 0, ignored: 0, admin: 0, total: 0, hardlinked: 0 };
}

/** The sum of usages (a task's legs, a workspace's tasks). */
export function sumUsage(parts: readonly Usage[]): Usage {
  const out = emptyUsage();
  for (const p of parts) {
    out.checkout += p.checkout;
    out.untracked += p.untracked;
    out.ignored += p.ignored;
    out.admin += p.admin;
    out.total += p.total;
    out.hardlinked += p.hardlinked;
  }
  return out;
}

/** Split `git ls-files -z --directory` output into paths without the trailing `/` of directories. */
export function lsFilesPaths(z: string): Set<string> {
  const out = new Set<string>();
  for (const p of z.split("\0")) if (p !== "") out.add(p.endsWith("/") ? p.slice(0, -1) : p);
  return out;
}

/**
 * Classifies the paths of one leg from two git listings (`--others --directory`, and the same
 * with `--ignored`): a path under an ignored entry is ignored, else under an untracked entry is
 * untracked, else it is part of the checkout. `parent` is the class of the containing directory.
 */
export class PathClassifier {
  private readonly untracked: ReadonlySet<string>;
  private readonly ignored: ReadonlySet<string>;

  constructor(untracked: ReadonlySet<string>, ignored: ReadonlySet<string>) {
    this.untracked = untracked;
    this.ignored = ignored;
  }

  /** The paths git listed in one class (files and whole directories). */
  listed(cls: "untracked" | "ignored"): Iterable<string> {
    return cls === "ignored" ? this.ignored : this.untracked;
  }

  classify(rel: string, parent: UsageClass): UsageClass {
    if (parent === "ignored" || this.ignored.has(rel)) return "ignored";
    if (parent === "untracked" || this.untracked.has(rel)) return "untracked";
    return "checkout";
  }
}

/** One directory of a walked tree: its own bytes and its files' bytes. */
export interface DuDir {
  /** Index of the parent in {@link DuTree.dirs}; -1 for the top. Parents come before children. */
  parent: number;
  /** Name in the parent ("" for the top). */
  name: string;
  /** Allocated bytes of the directory entry itself. */
  own: number;
  /** Allocated bytes of the entries in it that are not directories (files, links, …). */
  files: number;
}

/** What a walk of one directory recorded, before classification. */
export interface DuTree {
  dirs: DuDir[];
  /** Bytes of multiply-linked files counted in this walk. */
  hardlinked: number;
}

/**
 * Add a walked tree to `usage`: every byte as `admin` when `classifier` is null, else by class.
 * Directories are classified by path; a directory untracked or ignored as a whole is summed, not
 * looked into, but for what git lists as ignored inside an untracked one (moved to ignored). Files are checkout unless git listed them one by one (an untracked or ignored
 * file next to tracked ones, and the `.git` file at the top, which is admin): those few are
 * measured again with `bytesOf(rel)` (0 when gone, or counted already elsewhere) and moved out
 * of checkout. The walk thus keeps no per-file state.
 *
 * @example
 * ```ts
 * const usage = emptyUsage();
 * const tree = { hardlinked: 0, dirs: [{ parent: -1, name: "", own: 4096, files: 8192 }] };
 * classifyTree(tree, new PathClassifier(new Set(), new Set()), usage);
 * // usage.checkout === 12288, usage.total === 12288
 * ```
 */
export function classifyTree(
  tree: DuTree,
  classifier: PathClassifier | null,
  usage: Usage,
  bytesOf: (rel: string) => number = () => 0,
): void {
  const { dirs } = tree;
  const sums = new Float64Array(dirs.length);
  for (let i = dirs.length - 1; i >= 0; i--) {
    const d = dirs[i]!;
    const s = sums[i]! + d.own + d.files;
    sums[i] = s;
    if (d.parent >= 0) sums[d.parent] = sums[d.parent]! + s;
  }
  usage.hardlinked += tree.hardlinked;
  if (dirs.length === 0) return;
  usage.total += sums[0]!;
  if (!classifier) {
    usage.admin += sums[0]!;
    return;
  }
  // rel path of each directory classified as checkout (null under a whole-class directory).
  const rel: (string | null)[] = new Array(dirs.length).fill(null);
  const checkoutDirs = new Set<string>([""]);
  const classified = new Set<string>([""]);
  const untrackedDirs = new Set<string>();
  rel[0] = "";
  usage.checkout += dirs[0]!.own + dirs[0]!.files;
  for (let i = 1; i < dirs.length; i++) {
    const d = dirs[i]!;
    const parentRel = rel[d.parent];
    if (parentRel == null) continue; // counted with its whole untracked, ignored or admin parent
    const r = parentRel === "" ? d.name : `${parentRel}/${d.name}`;
    classified.add(r);
    const cls = parentRel === "" && d.name === ".git" ? "admin" : classifier.classify(r, "checkout");
    if (cls !== "checkout") {
      usage[cls] += sums[i]!;
      if (cls === "untracked") untrackedDirs.add(r);
      continue;
    }
    rel[i] = r;
    checkoutDirs.add(r);
    usage.checkout += d.own + d.files;
  }
  const move = (path: string, cls: Exclude<UsageClass, "checkout"> | "admin") => {
    const slash = path.lastIndexOf("/");
    if (classified.has(path) || !checkoutDirs.has(slash < 0 ? "" : path.slice(0, slash))) return;
    const bytes = bytesOf(path);
    usage.checkout -= bytes;
    usage[cls] += bytes;
  };
  move(".git", "admin");
  for (const p of classifier.listed("ignored")) move(p, "ignored");
  for (const p of classifier.listed("untracked")) {
    if (classifier.classify(p, "checkout") === "untracked") move(p, "untracked");
  }
  ignoredInUntracked(tree, sums, classifier, untrackedDirs, usage, bytesOf);
}

/**
 * What git lists as ignored inside a directory counted untracked as a whole (a new package's
 * `node_modules/`, its logs) moves from untracked to ignored: a directory by its walked sum, a
 * file measured again with `bytesOf`. Paths are built for the walked directories only when
 * there is such an ignored path.
 */
function ignoredInUntracked(
  tree: DuTree,
  sums: Float64Array,
  classifier: PathClassifier,
  untrackedDirs: ReadonlySet<string>,
  usage: Usage,
  bytesOf: (rel: string) => number,
): void {
  if (untrackedDirs.size === 0) return;
  const inside = (p: string) => {
    for (let at = p.indexOf("/"); at > 0; at = p.indexOf("/", at + 1)) {
      if (untrackedDirs.has(p.slice(0, at))) return true;
    }
    return false;
  };
  const moved = [...classifier.listed("ignored")].filter(inside);
  if (moved.length === 0) return;
  const index = new Map<string, number>();
  const paths: string[] = new Array(tree.dirs.length).fill("");
  for (let i = 1; i < tree.dirs.length; i++) {
    const d = tree.dirs[i]!;
    const parent = paths[d.parent]!;
    paths[i] = parent === "" ? d.name : `${parent}/${d.name}`;
    index.set(paths[i]!, i);
  }
  for (const p of moved) {
    const i = index.get(p);
    const bytes = i === undefined ? bytesOf(p) : sums[i]!;
    usage.untracked -= bytes;
    usage.ignored += bytes;
  }
}
