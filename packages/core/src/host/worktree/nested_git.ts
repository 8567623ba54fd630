import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { GitResult, Ports } from "../../ports.ts";
import { gitError, gitRaw } from "./git.ts";

/**
 * git in a repository nested in a leg (a submodule initialized there, or one an agent made)
 * without anything of that repository's own that could run a command.
 *
 * Such a repository's config, hooks and attributes are the agent's to write: a sandboxed run
 * may write the git dir of a submodule in its worktree's admin dir, and can replace any
 * submodule's `.git` by a directory of its own. git run there would start what that config
 * names, outside any sandbox: a clean filter at `git status`, a `post-index-change` hook, a
 * promisor remote's `uploadpack` when `rev-list` meets a missing object. So ariel never runs
 * git inside one: it reads where the git dir is from `.git` itself, copies the data git needs
 * (HEAD, index, refs, shallow list, info/exclude) into a private git dir of its own, names the
 * repository's object store as that dir's alternate, and runs git there with the nested
 * checkout as work tree. Only the user's own config (global, system) applies; filters named by
 * the nested repository's attributes but configured nowhere else do not run.
 */

/** The git dir of the repository whose work tree is `dir`, and its common dir. */
export interface NestedGitDirs {
  gitDir: string;
  common: string;
}

/** The target of a `gitdir: X` / `commondir` style pointer file (relative to `base`), or null. */
async function pointer(path: string, base: string, prefix: string): Promise<string | null> {
  const st = await fsp.lstat(path).catch(() => null);
  if (st === null || !st.isFile() || st.size > 4096) return null;
  const text = (await fsp.readFile(path, "utf8")).replace(/\r?\n$/, "");
  if (!text.startsWith(prefix)) return null;
  const target = text.slice(prefix.length);
  if (target === "" || target.includes("\n") || target.includes("\0")) return null;
  return isAbsolute(target) ? target : resolve(base, target);
}

/**
 * Where the repository at `dir` keeps its git dir, read from `dir/.git` without git: that
 * directory, or the one a `gitdir: X` file names; the common dir from its `commondir` file.
 * Canonical paths; null when `.git` is neither (a link, gone) or names no directory.
 */
export async function nestedGitDirs(dir: string): Promise<NestedGitDirs | null> {
  const dotGit = join(dir, ".git");
  const st = await fsp.lstat(dotGit).catch(() => null);
  if (st === null) return null;
  let gitDir: string | null = null;
  if (st.isDirectory()) gitDir = dotGit;
  else if (st.isFile()) gitDir = await pointer(dotGit, dir, "gitdir: ");
  if (gitDir === null) return null;
  const real = await fsp.realpath(gitDir).catch(() => null);
  if (real === null || !(await fsp.lstat(real)).isDirectory()) return null;
  const common = (await pointer(join(real, "commondir"), real, "")) ?? real;
  const commonReal = await fsp.realpath(common).catch(() => null);
  return commonReal === null ? null : { gitDir: real, common: commonReal };
}

/** Copy `from` to `to` when it is a regular file (never through a link); false when it is not one. */
async function copyRegular(from: string, to: string): Promise<boolean> {
  const st = await fsp.lstat(from).catch(() => null);
  if (st === null || !st.isFile()) return false;
  await fsp.copyFile(from, to);
  return true;
}

/** The loose refs under `from` (regular files only, links and other kinds left out), copied to `to`. */
async function copyRefs(from: string, to: string): Promise<void> {
  const entries = await fsp.readdir(from, { withFileTypes: true }).catch(() => []);
  await fsp.mkdir(to, { recursive: true });
  for (const e of entries) {
    if (e.isDirectory()) await copyRefs(join(from, e.name), join(to, e.name));
    else if (e.isFile()) await fsp.copyFile(join(from, e.name), join(to, e.name));
  }
}

/** git options that keep even the user's own config from starting anything in a private view. */
const QUIET = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "protocol.allow=never"];

/** A private git dir that sees one nested repository (see the module comment). */
export interface PrivateView {
  /** git run on the view, with the nested checkout as its work tree (cwd: the checkout). */
  git(args: readonly string[]): Promise<GitResult>;
}

/**
 * Run `fn` with a private view of the repository checked out at `dir`, removed afterwards;
 * null when `dir/.git` names no git dir or its HEAD cannot be read.
 *
 * @example
 * ```ts
 * const out = await withPrivateView(ports, "/w/.ariel/worktrees/t1/api/lib", (v) => v.git(["status", "--porcelain"]));
 * ```
 */
export async function withPrivateView<T>(
  ports: Ports,
  dir: string,
  fn: (view: PrivateView, dirs: NestedGitDirs) => Promise<T>,
): Promise<T | null> {
  const dirs = await nestedGitDirs(dir);
  if (dirs === null) return null;
  const view = await fsp.mkdtemp(join(tmpdir(), "ariel-nested-"));
  try {
    const { gitDir, common } = dirs;
    if (!(await copyRegular(join(gitDir, "HEAD"), join(view, "HEAD")))) return null;
    await fsp.mkdir(join(view, "objects/info"), { recursive: true });
    await fsp.writeFile(join(view, "objects/info/alternates"), `${join(common, "objects")}\n`);
    await copyRefs(join(common, "refs"), join(view, "refs"));
    if (gitDir !== common) await copyRefs(join(gitDir, "refs"), join(view, "refs"));
    await copyRegular(join(common, "packed-refs"), join(view, "packed-refs"));
    await copyRegular(join(common, "shallow"), join(view, "shallow"));
    await fsp.mkdir(join(view, "info"));
    await copyRegular(join(common, "info/exclude"), join(view, "info/exclude"));
    if (await copyRegular(join(gitDir, "index"), join(view, "index"))) {
      // A split index names its shared part, beside it.
      for (const name of await fsp.readdir(gitDir)) {
        if (/^sharedindex\.[0-9a-f]+$/.test(name)) await copyRegular(join(gitDir, name), join(view, name));
      }
    }
    await fsp.writeFile(join(view, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n");
    return await fn(
      { git: (args) => gitRaw(ports, dir, [...QUIET, `--git-dir=${view}`, `--work-tree=${dir}`, ...args]) },
      dirs,
    );
  } finally {
    await fsp.rm(view, { recursive: true, force: true });
  }
}

/** The gitlinks (submodule entries) of an index: `git ls-files -s -z`, mode 160000. */
async function gitlinks(
  ports: Ports,
  cwd: string,
  env: Record<string, string> | undefined,
): Promise<Map<string, string>> {
  const r = await gitRaw(ports, cwd, ["ls-files", "-s", "-z"], env ? { env } : {});
  const out = new Map<string, string>();
  if (r.code !== 0) return out;
  for (const f of r.stdout.split("\0")) {
    const m = /^160000 ([0-9a-f]+) \d\t(.*)$/s.exec(f);
    if (m) out.set(m[2] ?? "", m[1] ?? "");
  }
  return out;
}

/**
 * `git add -A -- <pathspecs>` into the index `env` names (GIT_INDEX_FILE), with the checkout's
 * submodules recorded as `git add` would (the commit each has checked out) yet without git
 * entering them: `add` runs `git status` inside every populated submodule (a `.git` there) whose
 * files changed, under that submodule's config. Those paths are left out of the `add`, and each
 * is set to the commit its private view's HEAD names (the index's commit when it has none). A
 * submodule path with no `.git` (not populated, gone, or a file or link put in its place) goes
 * through the `add` as it would anyway: git does not enter it.
 */
export async function addAll(
  ports: Ports,
  cwd: string,
  pathspecs: readonly string[],
  env: Record<string, string>,
): Promise<void> {
  const [own, temp] = await Promise.all([gitlinks(ports, cwd, undefined), gitlinks(ports, cwd, env)]);
  const populated: string[] = [];
  for (const p of new Set([...own.keys(), ...temp.keys()])) {
    if ((await fsp.lstat(join(cwd, p, ".git")).catch(() => null)) !== null) populated.push(p);
  }
  const skip = populated.map((p) => `:(top,exclude,literal)${p}`);
  const add = await gitRaw(ports, cwd, ["add", "-A", "--", ...pathspecs, ...skip], { env });
  if (add.code !== 0) throw gitError(["add"], add, cwd);
  const lines: string[] = [];
  for (const p of populated) {
    const head = await withPrivateView(ports, join(cwd, p), (v) =>
      v.git(["rev-parse", "--verify", "-q", "HEAD"]),
    );
    const commit = head !== null && head.code === 0 ? head.stdout.trim() : (own.get(p) ?? temp.get(p));
    lines.push(`160000 ${commit}\t${p}`);
  }
  if (lines.length === 0) return;
  const set = await gitRaw(ports, cwd, ["update-index", "-z", "--index-info"], {
    env,
    input: `${lines.join("\0")}\0`,
  });
  if (set.code !== 0) throw gitError(["update-index"], set, cwd);
}
