import { PER_WORKTREE_REF_PREFIXES } from "../../discovery/refs.ts";
import type { Ports } from "../../ports.ts";
import { nodeCrypto } from "../builtins.ts";
import { splitZ } from "../git.ts";
import { gitDirsOf, resolveCommit } from "./facts.ts";
import { git, gitRaw, literal } from "./git.ts";
import { addAll } from "./nested_git.ts";

/** What {@link makeSnapshot} saved. */
export interface Snapshot {
  ref: string;
  commit: string;
  /** The HEAD the snapshot sits on (its first parent); with HEAD's branch deleted, the newest kept commit, or null. */
  parent: string | null;
}

/** The trailer naming each reflog commit a snapshot keeps (one line per commit). */
export const KEPT_TRAILER = "Ariel-Kept-From-Reflog";

/** The trailer naming each per-worktree ref a snapshot keeps: `<name> <object>`, one line per ref. */
export const KEPT_REF_TRAILER = "Ariel-Kept-Ref";

/**
 * Trailer naming a commit of the worktree's index when it differed from both HEAD and the
 * worktree (a version staged, then edited again): an extra parent, so the staged version is kept.
 */
export const KEPT_INDEX_TRAILER = "Ariel-Kept-Index";

/** A per-worktree ref (`refs/worktree/…`, `refs/bisect/…`, `refs/rewritten/…`) and the object it names. */
export interface KeptRef {
  name: string;
  oid: string;
}

const isOwnRefName = (name: string): boolean =>
  PER_WORKTREE_REF_PREFIXES.some((p) => name.startsWith(p) && name.length > p.length) &&
  !/[\s\x00-\x1f\x7f\\~^:?*[]|\.\.|@\{|\/\.|\.lock(\/|$)|\/\/|[/.]$/.test(name);

const FALLBACK_IDENT = ["-c", "user.name=ariel", "-c", "user.email=ariel@localhost"];

/**
 * Save all local work of a worktree as one commit under `ref`, without touching the worktree's
 * own index: tracked changes, untracked files, the changed overlay files and modified
 * skip-worktree files go into a tree built in a temporary index (GIT_INDEX_FILE). Its parents:
 * HEAD first (so unreachable HEAD commits stay reachable through the ref), then a previous
 * snapshot at `ref` (so it is not lost either), then `keep` (commits only HEAD's reflog holds,
 * which removal would leave unreferenced; restore writes them back into the new worktree's
 * HEAD reflog). `ownRefs` (the worktree's per-worktree refs) are named in trailers, so restore
 * recreates them under their names. Unchanged overlay copies (secrets from the source) are left
 * out. When HEAD's branch is gone, the first of `keep` stands in for HEAD.
 */
export async function makeSnapshot(
  ports: Ports,
  worktree: string,
  ref: string,
  overlay: { all: readonly string[]; changed: readonly string[] },
  message: string,
  keep: readonly string[] = [],
  ownRefs: readonly KeptRef[] = [],
): Promise<Snapshot> {
  const head = await gitRaw(ports, worktree, ["rev-parse", "-q", "--verify", "HEAD^{commit}"]);
  const parent = head.code === 0 ? head.stdout.trim() : (keep[0] ?? null);
  const tree = await worktreeTree(ports, worktree, overlay, parent);
  const previous = await resolveCommit(ports, worktree, ref);
  const unchanged = overlay.all.filter((p) => !overlay.changed.includes(p));
  const staged = await stagedCommit(ports, worktree, tree, parent, unchanged);
  const ids = [...new Set([parent, previous, ...keep, staged])].filter((c): c is string => c !== null);
  const trailers = [
    ...keep.map((c) => `${KEPT_TRAILER}: ${c}`),
    ...ownRefs.map((r) => `${KEPT_REF_TRAILER}: ${r.name} ${r.oid}`),
    ...(staged === null ? [] : [`${KEPT_INDEX_TRAILER}: ${staged}`]),
  ];
  if (trailers.length > 0) message += `\n\n${trailers.join("\n")}`;
  const commit = await commitTree(ports, worktree, tree, ids, message);
  await git(ports, worktree, [
    "update-ref",
    "-m",
    "ariel: snapshot",
    ref,
    commit,
    previous ?? "0000000000000000000000000000000000000000",
  ]);
  return { ref, commit, parent };
}

/** `git commit-tree`, as ariel <ariel@localhost> when no identity is configured. */
async function commitTree(
  ports: Ports,
  worktree: string,
  tree: string,
  ids: readonly string[],
  message: string,
): Promise<string> {
  const parents = ids.flatMap((c) => ["-p", c]);
  let r = await gitRaw(ports, worktree, ["commit-tree", tree, ...parents, "-m", message]);
  if (r.code !== 0 && /ident|identity|empty ident|tell me who you are/i.test(r.stderr)) {
    r = await gitRaw(ports, worktree, [...FALLBACK_IDENT, "commit-tree", tree, ...parents, "-m", message]);
  }
  if (r.code !== 0) await git(ports, worktree, ["commit-tree", tree, ...parents, "-m", message]);
  return r.stdout.trim();
}

/** A copy of the worktree's own index at `to` (GIT_INDEX_FILE for git); false when it has none. */
async function copyIndex(ports: Ports, gitDir: string, to: string): Promise<boolean> {
  const bytes = await ports.fs.readBytes(`${gitDir}/index`).catch(() => null);
  if (bytes === null) return false;
  await ports.fs.writeAtomic(to, bytes, 0o600);
  return true;
}

/**
 * A commit of the worktree's index (on `parent`) when it holds what neither `parent` nor the
 * snapshot's `tree` does: a version staged, then edited again, which the worktree no longer has.
 * Written from a copy of the index (`git write-tree` on the index itself would rewrite it); null
 * when there is nothing of that kind, or the index cannot be written as a tree (a merge's
 * unresolved entries: the worktree's files are in the snapshot).
 */
async function stagedCommit(
  ports: Ports,
  worktree: string,
  tree: string,
  parent: string | null,
  unchanged: readonly string[],
): Promise<string | null> {
  const gitDir = (await git(ports, worktree, ["rev-parse", "--absolute-git-dir"])).trim();
  const index = `${gitDir}/ariel-staged-${nodeCrypto().randomBytes(6).toString("hex")}.index`;
  const env = { GIT_INDEX_FILE: index };
  try {
    if (!(await copyIndex(ports, gitDir, index))) return null;
    if (unchanged.length > 0) await leaveOut(ports, worktree, unchanged, parent, env);
    const r = await gitRaw(ports, worktree, ["write-tree"], { env });
    if (r.code !== 0) return null;
    const staged = r.stdout.trim();
    if (staged === tree) return null;
    // Kept only when some path's staged version is neither the snapshot's nor the parent's.
    const differ = async (a: string, b: string) =>
      new Set(
        splitZ(await git(ports, worktree, ["diff-tree", "-r", "--name-only", "--no-renames", "-z", a, b])),
      );
    const fromTree = await differ(staged, tree);
    if (parent !== null) {
      const fromParent = await differ(parent, staged);
      if (![...fromTree].some((p) => fromParent.has(p))) return null;
    }
    const message = "ariel: the index when the snapshot was made";
    return await commitTree(ports, worktree, staged, parent === null ? [] : [parent], message);
  } finally {
    await ports.fs.remove(index);
  }
}

/** Unchanged overlay copies (the source's secrets) out of a temporary index: back to `parent`'s version, or out. */
async function leaveOut(
  ports: Ports,
  worktree: string,
  unchanged: readonly string[],
  parent: string | null,
  env: Record<string, string>,
): Promise<void> {
  await git(
    ports,
    worktree,
    parent === null
      ? ["rm", "-q", "--cached", "--ignore-unmatch", "--", ...literal(unchanged)]
      : ["reset", "-q", parent, "--", ...literal(unchanged)],
    { env },
  );
}

/**
 * The tree a snapshot of the worktree would hold now, built in a temporary index
 * (GIT_INDEX_FILE) on `parent`'s tree (empty when null): tracked changes, untracked files, the
 * changed overlay files, modified skip-worktree files; unchanged overlay copies left out. The
 * worktree's own index is not touched.
 */
export async function worktreeTree(
  ports: Ports,
  worktree: string,
  overlay: { all: readonly string[]; changed: readonly string[] },
  parent: string | null,
): Promise<string> {
  const gitDir = (await git(ports, worktree, ["rev-parse", "--absolute-git-dir"])).trim();
  const index = `${gitDir}/ariel-snapshot-${nodeCrypto().randomBytes(6).toString("hex")}.index`;
  const env = { GIT_INDEX_FILE: index };
  try {
    await git(ports, worktree, parent === null ? ["read-tree", "--empty"] : ["read-tree", parent], { env });
    const changed = new Set(overlay.changed);
    const unchanged = overlay.all.filter((p) => !changed.has(p));
    // Repositories nested in the worktree (git lists each as one untracked `path/`) stay out:
    // `git add` would record a commit id whose objects go with them, or fail on one with none.
    const nested = splitZ(
      await git(ports, worktree, ["ls-files", "-z", "--others", "--exclude-standard", "--", ":(top)"]),
    ).filter((p) => p.endsWith("/"));
    const skip = nested.map((p) => `:(top,exclude,literal)${p.slice(0, -1)}`);
    await addAll(ports, worktree, [":(top)", ...skip], env);
    if (parent === null) {
      // No parent (HEAD's branch gone, nothing kept): `add -A` passed over the files the worktree
      // tracks that .gitignore matches (they are not in the empty index it started from).
      const tracked = splitZ(
        await git(ports, worktree, [
          "ls-files",
          "-z",
          "--cached",
          "--ignored",
          "--exclude-standard",
          "--",
          ":(top)",
        ]),
      );
      const present: string[] = [];
      for (const p of new Set(tracked)) if (await ports.fs.lstat(`${worktree}/${p}`)) present.push(p);
      if (present.length > 0) await git(ports, worktree, ["add", "-f", "--", ...literal(present)], { env });
    }
    if (unchanged.length > 0) await leaveOut(ports, worktree, unchanged, parent, env);
    const present: string[] = [];
    for (const p of overlay.changed) if (await ports.fs.lstat(`${worktree}/${p}`)) present.push(p);
    if (present.length > 0) await git(ports, worktree, ["add", "-f", "--", ...literal(present)], { env });
    return (await git(ports, worktree, ["write-tree"], { env })).trim();
  } finally {
    await ports.fs.remove(index);
  }
}

/** The reflog commits a snapshot keeps (its {@link KEPT_TRAILER} lines), from one `git cat-file commit`. */
export async function keptCommits(ports: Ports, cwd: string, snapshot: string): Promise<string[]> {
  const body = await git(ports, cwd, ["cat-file", "commit", snapshot]);
  const out: string[] = [];
  for (const m of body.matchAll(new RegExp(`^${KEPT_TRAILER}: ([0-9a-f]{40,64})$`, "gm")))
    out.push(m[1] ?? "");
  return out.filter((c) => c !== "");
}

/**
 * Write `commits` into HEAD's reflog of a worktree (appended to `<git dir>/logs/HEAD`, HEAD
 * unchanged), so the commits a snapshot kept are where they were before the worktree was
 * removed. Skipped when the reflog is not a file (reftable): the snapshot ref still holds them.
 */
export async function restoreReflog(
  ports: Ports,
  worktree: string,
  commits: readonly string[],
): Promise<void> {
  if (commits.length === 0) return;
  const dirs = await gitDirsOf(ports.fs, worktree);
  if (dirs === null) return;
  const log = `${dirs.gitDir}/logs/HEAD`;
  const before = (await ports.fs.lstat(log)) === null ? "" : await ports.fs.readText(log);
  const ident =
    (await gitRaw(ports, worktree, ["var", "GIT_COMMITTER_IDENT"])).stdout.trim() ||
    `ariel <ariel@localhost> ${Math.floor(ports.clock.now() / 1000)} +0000`;
  const lines = commits.map((c) => `${c} ${c} ${ident}\tariel: restored from a snapshot\n`).join("");
  await ports.fs.writeAtomic(log, `${before}${before === "" || before.endsWith("\n") ? "" : "\n"}${lines}`);
}

/**
 * The worktree's own refs (`refs/worktree/*`, `refs/bisect/*`, `refs/rewritten/*`: files in its
 * admin dir that `git worktree remove` deletes), from one `git for-each-ref` run in it.
 */
export async function ownRefsOf(ports: Ports, worktree: string): Promise<KeptRef[]> {
  const out = await git(ports, worktree, [
    "for-each-ref",
    "--format=%(refname) %(objectname)",
    ...PER_WORKTREE_REF_PREFIXES.map((p) => p.slice(0, -1)),
  ]);
  const refs: KeptRef[] = [];
  for (const line of out.split("\n")) {
    const [name = "", oid = ""] = line.split(" ");
    if (isOwnRefName(name) && /^[0-9a-f]{40,64}$/.test(oid)) refs.push({ name, oid });
  }
  return refs;
}

/**
 * The per-worktree refs a snapshot keeps (its {@link KEPT_REF_TRAILER} lines). Only names in the
 * per-worktree namespaces are taken, whatever the message says: restore never writes any other ref.
 */
export async function keptRefs(ports: Ports, cwd: string, snapshot: string): Promise<KeptRef[]> {
  const body = await git(ports, cwd, ["cat-file", "commit", snapshot]);
  const out: KeptRef[] = [];
  for (const m of body.matchAll(new RegExp(`^${KEPT_REF_TRAILER}: (\\S+) ([0-9a-f]{40,64})$`, "gm"))) {
    const name = m[1] ?? "";
    if (isOwnRefName(name)) out.push({ name, oid: m[2] ?? "" });
  }
  return out;
}

/**
 * Recreate `refs` in a worktree under their names (one `git update-ref --stdin` transaction of
 * `create` lines run in it, so each lands in its admin dir), leaving out the ones whose object is
 * gone from the object store (one `cat-file --batch-check`). Returns the refs written.
 */
export async function restoreRefs(
  ports: Ports,
  worktree: string,
  refs: readonly KeptRef[],
): Promise<KeptRef[]> {
  if (refs.length === 0) return [];
  const check = await git(ports, worktree, ["cat-file", "--batch-check=%(objectname)"], {
    input: `${refs.map((r) => r.oid).join("\n")}\n`,
  });
  const present = new Set(check.split("\n").filter((l) => /^[0-9a-f]{40,64}$/.test(l)));
  const write = refs.filter((r) => present.has(r.oid));
  if (write.length === 0) return [];
  await git(ports, worktree, ["update-ref", "-m", "ariel: restored from a snapshot", "--stdin"], {
    input: write.map((r) => `create ${r.name} ${r.oid}\n`).join(""),
  });
  return write;
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
