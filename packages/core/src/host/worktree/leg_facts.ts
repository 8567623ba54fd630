import { type HeadInfo, isPerWorktree, PER_WORKTREE_REF_PREFIXES } from "../../discovery/refs.ts";
import type { Ports } from "../../ports.ts";
import type { Leg } from "../../schema/task.ts";
import { compareBytewise, isWithin } from "../../worktree/_deps.ts";
import { parseStatusV2, type StatusV2, type WorktreeEntry } from "../../worktree/porcelain.ts";
import type { LegFacts } from "../../worktree/refusals.ts";
import { splitZ } from "../git.ts";
import { gitDirsOf, listWorktrees, readHeadFiles } from "./facts.ts";
import { git, gitError, gitRaw } from "./git.ts";
import { withPrivateView } from "./nested_git.ts";
import { sha256Hex } from "./overlay.ts";

/** The most commits a fact lists (a refusal shows the first few). */
export const MAX_ITEMS = 1000;

/**
 * `rev-list` arguments for the worktree's own refs (`refs/worktree/*`, `refs/bisect/*`,
 * `refs/rewritten/*`, in `.git/worktrees/<id>/refs/`): `--glob=refs/*` run inside a linked
 * worktree lists them, yet they go with the worktree, so they protect nothing.
 */
const OWN_REFS = PER_WORKTREE_REF_PREFIXES.map((p) => `--glob=${p}*`);

/** `--glob=refs/*` without {@link OWN_REFS}: the refs that outlive the worktree (`--exclude` binds to the next `--glob`). */
const LASTING_REFS = [...PER_WORKTREE_REF_PREFIXES.map((p) => `--exclude=${p}*`), "--glob=refs/*"];

/**
 * HEAD and the changed paths of a checkout, from one `git status --porcelain=v2 -z --branch
 * --no-ahead-behind --untracked-files=all --ignored=no --ignore-submodules=dirty` (the
 * `# branch.oid` header is HEAD's commit, so no separate `rev-parse HEAD`; `--no-ahead-behind`
 * keeps an upstream from costing a history walk). A submodule shows when its checked-out commit
 * differs from the recorded one, never for its own files: for those git would run `git status`
 * inside it, under that submodule's config ({@link nestedWork} looks at them safely).
 */
export async function statusFacts(ports: Ports, worktree: string): Promise<StatusV2> {
  return parseStatusV2(
    await git(ports, worktree, [
      "status",
      "--porcelain=v2",
      "-z",
      "--branch",
      "--no-ahead-behind",
      "--untracked-files=all",
      "--ignored=no",
      "--ignore-submodules=dirty",
    ]),
  );
}

/** Changed, staged, unmerged and untracked paths of a checkout (ignored files left out). */
export async function statusPaths(ports: Ports, worktree: string): Promise<string[]> {
  return (await statusFacts(ports, worktree)).paths;
}

/** One entry of `git ls-files -s -v -z`: its `-v` tag, mode, blob and path. */
export interface IndexEntry {
  tag: string;
  mode: string;
  sha: string;
  path: string;
}

/** The worktree's index, once for every check that needs it (`git ls-files -s -v -z`). */
export async function indexEntries(ports: Ports, worktree: string): Promise<IndexEntry[]> {
  const out: IndexEntry[] = [];
  for (const f of splitZ(await git(ports, worktree, ["ls-files", "-s", "-v", "-z"]))) {
    const m = /^(\S) (\d+) ([0-9a-f]+) \d\t(.*)$/s.exec(f);
    if (m) out.push({ tag: m[1] ?? "", mode: m[2] ?? "", sha: m[3] ?? "", path: m[4] ?? "" });
  }
  return out;
}

/** Overlay copies whose bytes no longer match the sha256 recorded at add time (or are gone). */
export async function changedOverlay(ports: Ports, worktree: string, leg: Leg): Promise<string[]> {
  const out: string[] = [];
  for (const o of leg.overlay) {
    const path = `${worktree}/${o.path}`;
    const st = await ports.fs.lstat(path);
    if (st?.kind !== "file") {
      out.push(o.path);
      continue;
    }
    if (sha256Hex(await ports.fs.readBytes(path)) !== o.sha256) out.push(o.path);
  }
  return out;
}

/**
 * Skip-worktree (`S`) and assume-unchanged (lowercase tag) files of `git ls-files -v` whose
 * content differs from their index blob, overlay paths excluded (they are checked by sha256).
 */
export async function modifiedHidden(
  ports: Ports,
  worktree: string,
  skip: ReadonlySet<string>,
  index?: readonly IndexEntry[],
): Promise<string[]> {
  const hidden = new Set<string>();
  const skipWorktree = new Set<string>();
  const blobs = new Map<string, { mode: string; sha: string }>();
  for (const e of index ?? (await indexEntries(ports, worktree))) {
    const tag = e.tag;
    if ((tag === "S" || tag === "s" || (tag >= "a" && tag <= "z")) && !skip.has(e.path)) {
      hidden.add(e.path);
      blobs.set(e.path, { mode: e.mode, sha: e.sha });
    }
    if (tag === "S" || tag === "s") skipWorktree.add(e.path);
  }
  // In a sparse checkout (add --sparse) the files outside the cone are skip-worktree and absent
  // by design: their absence is not a change.
  let sparse: boolean | null = null;
  const isSparse = async () => {
    sparse ??=
      (await gitRaw(ports, worktree, ["config", "--get", "--bool", "core.sparseCheckout"])).stdout.trim() ===
      "true";
    return sparse;
  };
  if (hidden.size === 0) return [];
  const modified: string[] = [];
  const files: string[] = [];
  for (const p of hidden) {
    const st = await ports.fs.lstat(`${worktree}/${p}`);
    const blob = blobs.get(p);
    if (!st && blob && skipWorktree.has(p) && (await isSparse())) continue;
    if (!st || !blob) modified.push(p);
    else if (st.kind === "symlink") {
      const target = await ports.fs.readLink(`${worktree}/${p}`);
      const sha = (await git(ports, worktree, ["hash-object", "--stdin"], { input: target })).trim();
      if (blob.mode !== "120000" || sha !== blob.sha) modified.push(p);
    } else if (st.kind !== "file" || blob.mode === "120000" || p.includes("\n")) modified.push(p);
    else files.push(p);
  }
  if (files.length > 0) {
    const shas = (
      await git(ports, worktree, ["hash-object", "--stdin-paths"], { input: `${files.join("\n")}\n` })
    )
      .trim()
      .split("\n");
    files.forEach((p, i) => {
      if (shas[i] !== blobs.get(p)?.sha) modified.push(p);
    });
  }
  return modified.sort(compareBytewise);
}

/**
 * Commits reachable from the worktree's HEAD and from no ref that outlives the worktree: none
 * when HEAD is on a branch that exists (read from the ref files), else one
 * `git rev-list HEAD --not --exclude=refs/worktree/* … --glob=refs/*` (every ref of this
 * worktree's view but its own per-worktree refs, which go with it; a ref to a tree or blob marks
 * nothing). `--all` cannot be used: it includes HEAD itself (and other worktrees' HEADs). When
 * that fails (a ref naming a missing object, say), the same question is asked the long way,
 * {@link unreachableByRefList}, whose errors are the caller's.
 */
export async function unreachableCommits(ports: Ports, worktree: string): Promise<string[]> {
  // HEAD on a branch (any ref but a per-worktree one) that exists: everything HEAD reaches, that
  // ref reaches. Only a detached HEAD (or files that cannot tell) needs git.
  const head = await readHeadFiles(ports.fs, worktree);
  if (head !== undefined && head.head !== null && head.branch !== null && !isOwnRef(head.branch)) return [];
  const r = await gitRaw(ports, worktree, [
    "rev-list",
    `--max-count=${MAX_ITEMS}`,
    "HEAD",
    "--not",
    ...LASTING_REFS,
  ]);
  if (r.code === 0) return r.stdout.split("\n").filter((l) => l !== "");
  return unreachableByRefList(ports, worktree);
}

/**
 * {@link unreachableCommits} from `git for-each-ref`'s commits (tags peeled) fed to
 * `rev-list --stdin`. An unborn HEAD (its branch deleted while checked out) reaches nothing;
 * any other failure is ERR_GIT, never a silent "nothing unreachable".
 */
export async function unreachableByRefList(ports: Ports, worktree: string): Promise<string[]> {
  const input = (await refTips(ports, worktree)).lasting.map((s) => `^${s}\n`).join("");
  const args = ["rev-list", `--max-count=${MAX_ITEMS}`, "--stdin", "HEAD"];
  const r = await gitRaw(ports, worktree, args, { input });
  if (r.code === 0) return r.stdout.split("\n").filter((l) => l !== "");
  if ((await headOf(ports, worktree)).head === null) return [];
  throw gitError(args, r, worktree);
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const NULL_ID = /^0+$/;

/**
 * The commits HEAD's reflog of a worktree names (both sides of every entry), read from
 * `<git dir>/logs/HEAD` directly (no git process); with reftable, one `git reflog show`. This
 * reflog lives in the worktree's own admin dir and goes when the worktree is removed.
 */
export async function headReflog(ports: Ports, worktree: string): Promise<string[]> {
  const dirs = await gitDirsOf(ports.fs, worktree).catch(() => null);
  let ids: string[];
  if (dirs !== null) {
    let text: string;
    try {
      text = await ports.fs.readText(`${dirs.gitDir}/logs/HEAD`);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw e;
    }
    ids = text.split("\n").flatMap((line) => line.split(" ", 2));
  } else {
    const r = await gitRaw(ports, worktree, ["reflog", "show", "--format=%H", "HEAD", "--"]);
    ids = r.code === 0 ? r.stdout.split("\n") : [];
  }
  return [...new Set(ids.filter((id) => OBJECT_ID.test(id) && !NULL_ID.test(id)))];
}

/**
 * What HEAD of a checkout is on, from the files ({@link readHeadFiles}) or else from git:
 * `head` null when its branch does not exist (unborn, or deleted while checked out).
 */
export async function headOf(ports: Ports, worktree: string): Promise<HeadInfo> {
  const files = await readHeadFiles(ports.fs, worktree);
  if (files !== undefined) return files;
  const [commit, ref] = await Promise.all([
    gitRaw(ports, worktree, ["rev-parse", "-q", "--verify", "HEAD^{commit}"]),
    gitRaw(ports, worktree, ["symbolic-ref", "-q", "HEAD"]),
  ]);
  return {
    head: commit.code === 0 ? commit.stdout.trim() : null,
    branch: ref.code === 0 ? ref.stdout.trim().replace(/^refs\/heads\//, "") : null,
  };
}

/** Commits that only HEAD's reflog or the worktree's own refs hold (see {@link reflogOnlyCommits}), and their tips. */
export interface ReflogOnly {
  /** Newest first, at most `limit`. */
  commits: string[];
  /** The ones no other listed commit has as a parent: keeping these keeps them all. */
  tips: string[];
}

/**
 * Commits reachable from HEAD's reflog or from the worktree's own refs (`refs/worktree/*`,
 * `refs/bisect/*`, `refs/rewritten/*`) and from no other ref and not from HEAD: what removing the
 * worktree would leave unreferenced, since that reflog and those refs live in its admin dir (an
 * agent that detached, committed and switched back; the commits of a branch it deleted; the
 * pre-rebase commits of a rebase; a commit it kept under `refs/worktree/`). One
 * `git rev-list --parents --stdin <own refs> --not <lasting refs> HEAD` with the reflog's commits
 * on stdin, whatever their number of entries or refs; commits that are gone from the object store
 * are left out first (one `cat-file --batch-check` and one `for-each-ref`, only when rev-list
 * failed). `limit` caps the list (the refusal shows the first few); leave it out to get every tip
 * (a snapshot keeps them). `replacing` names a ref about to be moved (the leg's own snapshot ref,
 * which a new snapshot replaces): it does not count as keeping anything, so what only it and this
 * worktree hold is listed too and the new snapshot names it for restore again.
 */
export async function reflogOnlyCommits(
  ports: Ports,
  worktree: string,
  limit?: number,
  replacing?: string,
): Promise<ReflogOnly> {
  let ids = await headReflog(ports, worktree);
  const args = ["rev-list", "--parents", ...(limit ? [`--max-count=${limit}`] : []), "--stdin"];
  const head = (await headOf(ports, worktree)).head;
  const notHead = head === null ? [] : [head];
  const lasting = replacing ? [`--exclude=${replacing}`, ...LASTING_REFS] : LASTING_REFS;
  let r = await gitRaw(ports, worktree, [...args, ...OWN_REFS, "--not", ...lasting, ...notHead], {
    input: ids.length === 0 ? "" : `${ids.join("\n")}\n`,
  });
  if (r.code !== 0) {
    // A ref naming a missing object, or a reflog entry whose commit was pruned: the long way,
    // with only the commits that exist, the worktree's own refs as positives and every other
    // ref's commit as a negative.
    const check =
      ids.length === 0
        ? ""
        : await git(ports, worktree, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
            input: `${ids.join("\n")}\n`,
          });
    const tips = await refTips(ports, worktree, replacing);
    ids = check
      .split("\n")
      .filter((l) => l.endsWith(" commit"))
      .map((l) => l.slice(0, l.indexOf(" ")));
    ids.push(...tips.own);
    if (ids.length === 0) return { commits: [], tips: [] };
    const negatives = [...notHead, ...tips.lasting].map((n) => `^${n}`);
    const stdout = await git(ports, worktree, args, { input: `${[...ids, ...negatives].join("\n")}\n` });
    r = { code: 0, stdout, stderr: "" };
  }
  const commits: string[] = [];
  const parents = new Set<string>();
  for (const line of r.stdout.split("\n")) {
    const [c, ...ps] = line.split(" ");
    if (!c) continue;
    commits.push(c);
    for (const p of ps) parents.add(p);
  }
  return { commits, tips: commits.filter((c) => !parents.has(c)) };
}

/** True for a per-worktree ref (`refs/worktree/…`, `refs/bisect/…`, `refs/rewritten/…`). */
function isOwnRef(ref: string): boolean {
  return ref.startsWith("refs/") && isPerWorktree(ref);
}

/**
 * The commits every ref points at (tags peeled), from one `git for-each-ref`: `own` for the
 * worktree's per-worktree refs, which go with it, `lasting` for the rest.
 */
async function refTips(
  ports: Ports,
  worktree: string,
  replacing?: string,
): Promise<{ own: string[]; lasting: string[] }> {
  const refs = await git(ports, worktree, [
    "for-each-ref",
    "--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname) %(refname)",
  ]);
  const own = new Set<string>();
  const lasting = new Set<string>();
  for (const line of refs.split("\n")) {
    const [type, sha, peeledType, peeled, ...name] = line.split(" ");
    const ref = name.join(" ");
    if (ref === replacing) continue;
    const into = isOwnRef(ref) ? own : lasting;
    if (type === "commit" && sha) into.add(sha);
    else if (type === "tag" && peeledType === "commit" && peeled) into.add(peeled);
  }
  return { own: [...own], lasting: [...lasting] };
}

/**
 * Commits of the leg's initialized submodules that removal would delete: a submodule whose
 * repository lies inside the worktree or inside its admin dir (`.git/worktrees/<id>/modules/`,
 * where git puts a linked worktree's submodules) goes with the worktree, so every commit its
 * refs, HEAD or stash hold that no remote-tracking ref holds is listed as `<path>@<commit>`, or
 * `<path>` alone when git cannot say (an object missing). git never runs inside the submodule,
 * only on a private view of it (nested_git.ts). One level deep (submodules of submodules are
 * not looked at).
 */
export async function submoduleCommits(
  ports: Ports,
  worktree: string,
  index?: readonly IndexEntry[],
): Promise<string[]> {
  const links = (index ?? (await indexEntries(ports, worktree)))
    .filter((e) => e.mode === "160000")
    .map((e) => e.path);
  if (links.length === 0) return [];
  const admin = await ports.fs.realpath(
    (await git(ports, worktree, ["rev-parse", "--absolute-git-dir"])).trim(),
  );
  const out: string[] = [];
  for (const p of links) {
    if ((await ports.fs.lstat(`${worktree}/${p}/.git`)) === null) continue; // not initialized
    const found = await withPrivateView(ports, `${worktree}/${p}`, async (view, dirs) => {
      if (!isWithin(admin, dirs.common) && !isWithin(worktree, dirs.common)) return []; // survives removal
      const r = await view.git(["rev-list", `--max-count=${MAX_ITEMS}`, "--all", "--not", "--remotes"]);
      if (r.code !== 0) return [p];
      return r.stdout
        .split("\n")
        .filter((c) => c !== "")
        .map((c) => `${p}@${c}`);
    });
    out.push(...(found ?? [p])); // a .git that names no git dir, a HEAD that is no file: cannot say
  }
  return out;
}

/**
 * Work in git repositories nested in the leg that neither the leg's own checks nor a snapshot
 * can keep. A repository made or cloned there that is not a submodule (git status lists it as
 * one untracked `path/` and never looks inside; a snapshot leaves it out) is listed as `<path>/`
 * whatever it holds. A submodule initialized there (a snapshot records its commit id only) is
 * listed as `<path>/<file>` for each path its status shows changed or untracked, or as `<path>`
 * when git cannot say. git never runs inside either: their config is the agent's to write (a
 * clean filter or a hook would run a command outside the run's sandbox); a submodule's status
 * comes from a private view of it (nested_git.ts). One level deep; ignored directories are not
 * looked into (as for the leg's own ignored files).
 */
export async function nestedWork(
  ports: Ports,
  worktree: string,
  dirty: readonly string[],
  index: readonly IndexEntry[],
): Promise<string[]> {
  const out = dirty.filter((p) => p.endsWith("/"));
  for (const e of index) {
    if (e.mode !== "160000" || (await ports.fs.lstat(`${worktree}/${e.path}/.git`)) === null) continue;
    const status = await withPrivateView(ports, `${worktree}/${e.path}`, (view) =>
      view.git([
        "status",
        "--porcelain=v2",
        "-z",
        "--untracked-files=all",
        "--ignored=no",
        "--ignore-submodules=all",
      ]),
    );
    if (status === null || status.code !== 0) out.push(e.path);
    else for (const f of parseStatusV2(status.stdout).paths) out.push(`${e.path}/${f}`);
  }
  return out;
}

/**
 * Everything `remove` needs to know about one leg. `worktrees` is the source's
 * `git worktree list` (read once per source), or the leg's own entry as
 * {@link linkedWorktreeFromFiles} read it (a linked worktree: never the main one).
 */
export async function gatherLegFacts(
  ports: Ports,
  /** Where the leg must lie strictly inside to be ours (`legContainer` in worktree/ours.ts). */
  worktreeRoot: string,
  leg: Leg,
  worktrees: readonly WorktreeEntry[] | { linked: WorktreeEntry } | null,
): Promise<LegFacts> {
  const path = leg.worktreePath;
  const st = await ports.fs.lstat(path);
  const present = st?.kind === "dir";
  let entry: WorktreeEntry | null;
  let main: boolean;
  if (worktrees !== null && "linked" in worktrees) {
    entry = worktrees.linked.path === path ? worktrees.linked : null;
    main = path === leg.sourcePath;
  } else {
    const wts = worktrees ?? (await listWorktrees(ports, leg.sourcePath).catch(() => []));
    entry = wts.find((w) => w.path === path) ?? null;
    main = entry?.main === true || path === leg.sourcePath || wts[0]?.path === path;
  }
  // Ours: the worktree git knows, or nothing at all (gone: only the record and git's admin entry
  // are left). Anything else at the path — a symbolic link, a file — is not: `git worktree
  // remove --force` would follow a link and delete what is behind it.
  const owned =
    isWithin(worktreeRoot, path) && path !== worktreeRoot && (st === null || (present && entry !== null));
  const base: LegFacts = {
    source: leg.source,
    worktreePath: path,
    present,
    main,
    owned,
    lock: entry?.locked ?? null,
    checkedOut: entry?.branch ?? null,
    recordedBranch: leg.branch,
    dirty: [],
    overlayChanged: [],
    skipWorktreeModified: [],
    unreachable: [],
  };
  if (!present || main || !owned || entry === null) return base;
  const overlayPaths = new Set(leg.overlay.map((o) => o.path));
  const index = indexEntries(ports, path);
  index.catch(() => {});
  const dirtyPaths = statusPaths(ports, path);
  dirtyPaths.catch(() => {});
  const [status, overlayChanged, hidden, unreachable, submodules, head, reflog, nested] = await Promise.all([
    dirtyPaths,
    changedOverlay(ports, path, leg),
    index.then((entries) => modifiedHidden(ports, path, overlayPaths, entries)),
    unreachableCommits(ports, path),
    index.then((entries) => submoduleCommits(ports, path, entries)),
    headOf(ports, path),
    reflogOnlyCommits(ports, path, MAX_ITEMS),
    Promise.all([dirtyPaths, index]).then(([d, entries]) => nestedWork(ports, path, d, entries)),
  ]);
  return {
    ...base,
    dirty: status.filter((p) => !overlayPaths.has(p)),
    overlayChanged,
    skipWorktreeModified: hidden,
    unreachable,
    branchMissing: head.head === null && head.branch !== null,
    reflogOnly: reflog.commits,
    submoduleCommits: submodules,
    nestedWork: nested,
  };
}
