import { commonDirOf, type HeadInfo, readHead } from "../../discovery/refs.ts";
import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { FsPort, Ports } from "../../ports.ts";
import { parseWorktreeList, type WorktreeEntry } from "../../worktree/porcelain.ts";
import { git, gitRaw } from "./git.ts";

/** `git worktree list --porcelain -z` of the repository holding `cwd`. */
export async function listWorktrees(ports: Ports, cwd: string): Promise<WorktreeEntry[]> {
  return parseWorktreeList(await git(ports, cwd, ["worktree", "list", "--porcelain", "-z"]));
}

/** The commit a ref names in `cwd`, or null when it names none. */
export async function resolveCommit(ports: Ports, cwd: string, ref: string): Promise<string | null> {
  const r = await gitRaw(ports, cwd, ["rev-parse", "-q", "--verify", "--end-of-options", `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * The base commit of a leg: `--base REF` or the source's HEAD, as a full object id. `head`, when
 * given, is the source's HEAD already read (`git status --porcelain=v2 --branch`; null: unborn),
 * so no git process is needed for it.
 */
export async function resolveBase(
  ports: Ports,
  source: string,
  name: string,
  base?: string,
  head?: string | null,
): Promise<string> {
  if (base !== undefined && (base === "" || base.startsWith("-") || base.includes("\0"))) {
    throw new ArielError("ERR_INVALID_INPUT", `invalid --base ${quoteValue(base)}`, {
      hint: "name a commit, branch or tag",
    });
  }
  const commit =
    base === undefined && head !== undefined ? head : await resolveCommit(ports, source, base ?? "HEAD");
  if (commit === null) {
    throw new ArielError(
      "ERR_NOINPUT",
      base === undefined
        ? `source ${name} has no commit at HEAD`
        : `base ${base} not found in source ${name}`,
      { hint: "pass --base with a commit that exists in every source", context: { source: name, base } },
    );
  }
  return commit;
}

/** The git dir (per worktree) and common git dir of the checkout at `dir`; null when `.git` is neither a directory nor a `gitdir:` file. */
export async function gitDirsOf(fs: FsPort, dir: string): Promise<{ gitDir: string; common: string } | null> {
  const dotGit = `${dir}/.git`;
  const st = await fs.lstat(dotGit);
  let gitDir: string;
  if (st?.kind === "dir") gitDir = dotGit;
  else if (st?.kind === "file") {
    const m = /^gitdir: *(.+?)\s*$/m.exec(await fs.readText(dotGit));
    if (!m?.[1]) return null;
    gitDir = m[1].startsWith("/") ? m[1] : `${dir}/${m[1]}`;
  } else return null;
  const common = await commonDirOf(fs, gitDir);
  // reftable (git ≥ 2.45) keeps refs out of files: only git can read them.
  if ((await fs.lstat(`${common}/reftable`)) !== null) return null;
  return { gitDir, common };
}

/**
 * Read HEAD, or `ref` (a full name) when given, of the checkout at `dir` from git's files without
 * a git process: HEAD in the worktree's git dir, loose refs, then `packed-refs` (the files
 * backend's formats, unchanged since long before git 2.36). Undefined when the files cannot
 * answer for certain (reftable, an unreadable or odd file): the caller asks git.
 */
export async function readHeadFiles(fs: FsPort, dir: string, ref?: string): Promise<HeadInfo | undefined> {
  try {
    const dirs = await gitDirsOf(fs, dir);
    if (dirs === null) return undefined;
    return await readHead(
      fs,
      dirs.gitDir,
      dirs.common,
      ref === undefined ? {} : { headText: `ref: ${ref}\n` },
    );
  } catch {
    return undefined;
  }
}

/** {@link readHeadFiles}' commit: null when the ref (or HEAD's branch) does not exist. */
export async function readRefFiles(fs: FsPort, dir: string, ref: string): Promise<string | null | undefined> {
  return (await readHeadFiles(fs, dir, ref === "HEAD" ? undefined : ref))?.head;
}

/**
 * The commit of branch ref `ref` (`refs/heads/…`) in the checkout at `cwd`, or null when there is
 * no such branch. That it is absent is read from the ref files (no git process: the usual answer
 * for a new task); a branch that exists, or files that cannot answer, are asked of git
 * (`rev-parse --verify <ref>^{commit}`), so a found commit is always git's.
 */
export async function branchCommit(ports: Ports, cwd: string, ref: string): Promise<string | null> {
  if ((await readRefFiles(ports.fs, cwd, ref)) === null) return null;
  return resolveCommit(ports, cwd, ref);
}

/** HEAD's commit in the checkout at `cwd`: from the ref files when they answer, else `git rev-parse HEAD` (ERR_GIT when unborn). */
export async function headCommit(ports: Ports, cwd: string): Promise<string> {
  const fromFiles = await readRefFiles(ports.fs, cwd, "HEAD");
  if (typeof fromFiles === "string") return fromFiles;
  return (await git(ports, cwd, ["rev-parse", "HEAD"])).trim();
}

/**
 * The entry `git worktree list` gives for the linked worktree at `path` of the repository whose
 * common dir is `common`, read from git's admin files without a git process: `<path>/.git`
 * names `<common>/worktrees/<id>`, whose `gitdir` names `<path>/.git` back and whose `commondir`
 * leads to `common`; then its `locked` file (trimmed, as git reads it) and its HEAD. Undefined
 * whenever any of that does not hold exactly (a main worktree, a moved or broken link, a
 * directory that is gone, reftable): the caller asks git.
 */
export async function linkedWorktreeFromFiles(
  fs: FsPort,
  common: string,
  path: string,
): Promise<WorktreeEntry | undefined> {
  try {
    const dotGit = `${path}/.git`;
    if ((await fs.lstat(dotGit))?.kind !== "file") return undefined;
    const admin = /^gitdir: (\/[^\n]+)\n?$/.exec(await fs.readText(dotGit))?.[1];
    const id = admin?.startsWith(`${common}/worktrees/`) ? admin.slice(common.length + 11) : "";
    if (admin === undefined || id === "" || id.includes("/")) return undefined;
    if ((await fs.readText(`${admin}/gitdir`)).replace(/\n$/, "") !== dotGit) return undefined;
    const dirs = await gitDirsOf(fs, path);
    if (dirs === null || dirs.gitDir !== admin || dirs.common !== common) return undefined;
    let locked: string | null = null;
    try {
      locked = (await fs.readText(`${admin}/locked`)).trim();
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") return undefined;
    }
    const headText = (await fs.readText(`${admin}/HEAD`)).trim();
    const branch = headText.startsWith("ref:") ? headText.slice(4).trim() : null;
    if (branch !== null && !branch.startsWith("refs/")) return undefined;
    const { head } = await readHead(fs, admin, common, { headText });
    return {
      path,
      head,
      branch,
      bare: false,
      detached: branch === null,
      locked,
      prunable: null,
      main: false,
    };
  } catch {
    return undefined;
  }
}
