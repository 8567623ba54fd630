import type { Ports } from "../../ports.ts";
import { nodeCrypto } from "../builtins.ts";
import { splitZ } from "../git.ts";
import { git, gitRaw, literal } from "./_git.ts";
import { resolveCommit } from "./facts.ts";

/** What {@link makeSnapshot} saved. */
export interface Snapshot {
  ref: string;
  commit: string;
  /** The HEAD the snapshot sits on (its first parent). */
  parent: string;
}

const FALLBACK_IDENT = ["-c", "user.name=ariel", "-c", "user.email=ariel@localhost"];

/**
 * Save all local work of a worktree as one commit under `ref`, without touching the worktree's
 * own index: tracked changes, untracked files, the changed overlay files and modified
 * skip-worktree files go into a tree built in a temporary index (GIT_INDEX_FILE); the commit's
 * first parent is HEAD (so unreachable HEAD commits stay reachable through the ref), and a
 * previous snapshot at `ref` becomes its second parent (so it is not lost either).
 * Unchanged overlay copies (secrets from the source) are left out.
 */
export async function makeSnapshot(
  ports: Ports,
  worktree: string,
  ref: string,
  overlay: { all: readonly string[]; changed: readonly string[] },
  message: string,
): Promise<Snapshot> {
  const gitDir = (await git(ports, worktree, ["rev-parse", "--absolute-git-dir"])).trim();
  const index = `${gitDir}/ariel-snapshot-${nodeCrypto().randomBytes(6).toString("hex")}.index`;
  const env = { GIT_INDEX_FILE: index };
  try {
    const parent = (await git(ports, worktree, ["rev-parse", "HEAD"])).trim();
    await git(ports, worktree, ["read-tree", parent], { env });
    const changed = new Set(overlay.changed);
    const unchanged = overlay.all.filter((p) => !changed.has(p));
    await git(ports, worktree, ["add", "-A", "--", ":(top)"], { env });
    if (unchanged.length > 0) {
      // Unchanged overlay copies (the source's secrets) stay out: back to HEAD's version, or out.
      await git(ports, worktree, ["reset", "-q", parent, "--", ...literal(unchanged)], { env });
    }
    const present: string[] = [];
    for (const p of overlay.changed) if (await ports.fs.lstat(`${worktree}/${p}`)) present.push(p);
    if (present.length > 0) await git(ports, worktree, ["add", "-f", "--", ...literal(present)], { env });
    const tree = (await git(ports, worktree, ["write-tree"], { env })).trim();
    const previous = await resolveCommit(ports, worktree, ref);
    const parents = ["-p", parent, ...(previous && previous !== parent ? ["-p", previous] : [])];
    let r = await gitRaw(ports, worktree, ["commit-tree", tree, ...parents, "-m", message]);
    if (r.code !== 0 && /ident|identity|empty ident|tell me who you are/i.test(r.stderr)) {
      r = await gitRaw(ports, worktree, [...FALLBACK_IDENT, "commit-tree", tree, ...parents, "-m", message]);
    }
    if (r.code !== 0) await git(ports, worktree, ["commit-tree", tree, ...parents, "-m", message]);
    const commit = r.stdout.trim();
    await git(ports, worktree, [
      "update-ref",
      "-m",
      "ariel: snapshot",
      ref,
      commit,
      previous ?? "0000000000000000000000000000000000000000",
    ]);
    return { ref, commit, parent };
  } finally {
    await ports.fs.remove(index);
  }
}

/** Paths a snapshot changes relative to its first parent. */
export async function snapshotPaths(ports: Ports, cwd: string, snapshot: string): Promise<string[]> {
  return splitZ(
    await git(ports, cwd, ["diff", "--name-only", "--no-renames", "-z", `${snapshot}^1`, snapshot]),
  );
}

/**
 * Bring a snapshot's changes back into a worktree as local changes: a two-tree
 * `git read-tree -m -u <snapshot>^1 <snapshot>` moves the files from the snapshot's parent to the
 * snapshot, then `git reset -q` puts the index back at HEAD. The branch does not move; changes
 * come back unstaged and new files untracked. Run it before the overlay is copied in.
 */
export async function applySnapshot(ports: Ports, worktree: string, snapshot: string): Promise<void> {
  await git(ports, worktree, ["read-tree", "-m", "-u", `${snapshot}^1`, snapshot]);
  await git(ports, worktree, ["reset", "-q"]);
}
