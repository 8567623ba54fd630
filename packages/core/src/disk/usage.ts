/**
 * The arithmetic of `ariel-worktree du`: which class a path of a leg belongs to, and usage
 * totals. Pure; the walk itself is in host/disk/walk.ts.
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

  classify(rel: string, parent: UsageClass): UsageClass {
    if (parent === "ignored" || this.ignored.has(rel)) return "ignored";
    if (parent === "untracked" || this.untracked.has(rel)) return "untracked";
    return "checkout";
  }
}
