/**
 * The workspace (docs/architecture.md, The workspace): which directory is the root, its identity hash, and its state
 * directory `<root>/.ariel/`.
 *
 * @example
 * ```ts
 * const ws = await resolveWorkspaceRoot(ports, flags["workspace-root"]);
 * // { root: "/home/me/ws", hash: "…16 hex…", via: "git" }
 * await ensureStateDir(ports, ws.root); // "/home/me/ws/.ariel", and /.ariel/ in .git/info/exclude
 * ```
 */
import { ArielError } from "./errors.ts";
import { workspaceHash } from "./hash.ts";
import { quoteValue } from "./names.ts";
import { dirnamePosix, isWithin, joinPosix } from "./paths.ts";
import type { FsPort, Ports } from "./ports.ts";
import { shellWords } from "./shell_words.ts";
import { STATE_DIR, stateDir } from "./state_paths.ts";
import { taskOwner } from "./task_owner.ts";

export { STATE_DIR, stateDir };

/** How the root was chosen, in order of precedence. */
export type WorkspaceVia = "flag" | "env" | "marker" | "git" | "cwd";

export interface Workspace {
  /** Canonical (realpath) absolute root. */
  root: string;
  /** {@link workspaceHash} of the root. */
  hash: string;
  via: WorkspaceVia;
  /**
   * With via `marker`: the top level of the git checkout holding the cwd that the ancestor's
   * `.ariel/` won over (absent when there is none, or when it is a worktree under that `.ariel/`).
   */
  shadows?: string;
  /**
   * The directory the root was first found at lies in a task's directory (or is one): that task
   * belongs to the workspace `root`, which the command acts on instead (decision 0106). `path` is
   * that directory, `task` the task when known.
   */
  inTask?: { path: string; task: string | null };
}

/** The environment variable naming the workspace root. */
export const WORKSPACE_ENV = "ARIEL_WORKSPACE_ROOT";

function codeOf(e: unknown): string | undefined {
  return (e as { code?: string } | null)?.code;
}

function notFound(dir: string, via: WorkspaceVia, what: string, hint?: string): ArielError {
  return new ArielError("ERR_WORKSPACE_NOT_FOUND", `workspace root ${quoteValue(dir)} ${what}`, {
    ...(hint ? { hint } : {}),
    context: { root: dir, via },
  });
}

/** realpath + must be a readable directory, else ERR_WORKSPACE_NOT_FOUND (exit 66). */
async function canonicalDir(fs: FsPort, dir: string, via: WorkspaceVia): Promise<string> {
  let real: string;
  try {
    real = await fs.realpath(dir);
  } catch (e) {
    const code = codeOf(e);
    if (code === "ENOENT") throw notFound(dir, via, "does not exist");
    if (code === "ENOTDIR") throw notFound(dir, via, "is not a directory");
    if (code === "EACCES" || code === "EPERM") {
      throw notFound(dir, via, "cannot be read", "check the directory's permissions");
    }
    if (code === "ELOOP") throw notFound(dir, via, "is a symbolic link loop");
    throw e;
  }
  const st = await fs.stat(real);
  if (st === null) throw notFound(dir, via, "does not exist");
  if (st.kind !== "dir") throw notFound(dir, via, "is not a directory");
  try {
    await fs.readDir(real);
  } catch (e) {
    const code = codeOf(e);
    if (code === "EACCES" || code === "EPERM") {
      throw notFound(dir, via, "cannot be read", "check the directory's permissions");
    }
    throw e;
  }
  return real;
}

/**
 * The workspace root, by precedence: `flag` (--workspace-root, --repo-root, -C) > env
 * `ARIEL_WORKSPACE_ROOT` > the nearest ancestor of the cwd holding `.ariel/` > the top level of
 * the git checkout holding the cwd (nearest ancestor with a `.git` file or directory; no git
 * process) > the cwd. Relative paths are taken from the cwd. The result is canonical (realpath).
 * A root that is missing, not a directory or unreadable is ERR_WORKSPACE_NOT_FOUND (exit 66).
 */
export async function resolveWorkspaceRoot(
  ports: Pick<Ports, "fs" | "env" | "cwd">,
  flag?: string,
): Promise<Workspace> {
  const { root, ...rest } = await locateWorkspaceRoot(ports, flag);
  return { root, hash: await workspaceHash(root), ...rest };
}

/**
 * {@link resolveWorkspaceRoot} without the hash, for a command that only needs the root
 * (ariel-discover): hashing is the first use of Web Crypto, which costs a start-up its module load.
 */
export async function locateWorkspaceRoot(
  ports: Pick<Ports, "fs" | "env" | "cwd">,
  flag?: string,
): Promise<Omit<Workspace, "hash">> {
  const { fs } = ports;
  let root: string;
  let via: WorkspaceVia;
  let shadows: string | undefined;
  const env = ports.env[WORKSPACE_ENV];
  if (flag !== undefined) {
    if (flag === "") throw notFound(flag, "flag", "is empty");
    via = "flag";
    root = await canonicalDir(fs, joinPosix(ports.cwd, flag), via);
  } else if (env !== undefined && env !== "") {
    via = "env";
    root = await canonicalDir(fs, joinPosix(ports.cwd, env), via);
  } else {
    const cwd = await canonicalDir(fs, ports.cwd, "cwd");
    ({ root, via, shadows } = await searchUp(fs, cwd));
  }
  // A task's directory is never a workspace: its owner is (a root found by the marker search
  // has a .ariel/ of its own: only a stray one inside another's .ariel/ is looked past).
  const owner = await taskOwner(fs, root, via !== "marker");
  if (owner !== null && owner.root !== root) {
    return { root: owner.root, via, inTask: { path: root, task: owner.task } };
  }
  return { root, via, ...(shadows !== undefined ? { shadows } : {}) };
}

/**
 * Walk up from `start` for a `.ariel/` directory (wins) or the first `.git` entry. A checkout
 * passed on the way to a `.ariel/` is reported as `shadows`, unless it lies inside that
 * `.ariel/` (a task's worktree is meant to resolve to its workspace).
 */
async function searchUp(
  fs: FsPort,
  start: string,
): Promise<{ root: string; via: WorkspaceVia; shadows?: string }> {
  let gitTop: string | undefined;
  for (let dir = start; ; dir = dirnamePosix(dir)) {
    const marker = await fs.stat(joinPosix(dir, STATE_DIR));
    if (marker?.kind === "dir") {
      const shadowed = gitTop !== undefined && !isWithin(stateDir(dir), gitTop);
      return { root: dir, via: "marker", ...(shadowed ? { shadows: gitTop } : {}) };
    }
    if (gitTop === undefined) {
      const git = await fs.lstat(joinPosix(dir, ".git"));
      if (git && (git.kind === "dir" || git.kind === "file")) gitTop = dir;
    }
    if (dir === "/") break;
  }
  return gitTop === undefined ? { root: start, via: "cwd" } : { root: gitTop, via: "git" };
}

/**
 * The common git directory of the checkout at `dir`, or null when `dir` is not one: `.git`
 * itself when it is a directory; for a `.git` file, its `gitdir:` and that directory's
 * `commondir` (both may be relative).
 */
export async function commonGitDir(fs: FsPort, dir: string): Promise<string | null> {
  const dotGit = joinPosix(dir, ".git");
  const st = await fs.lstat(dotGit);
  if (st === null) return null;
  if (st.kind === "dir") return dotGit;
  if (st.kind !== "file") return null;
  const text = await fs.readText(dotGit);
  const m = /^gitdir: *(.+?)\s*$/m.exec(text);
  if (!m?.[1]) return null;
  const gitDir = joinPosix(dir, m[1]);
  let common: string;
  try {
    common = (await fs.readText(joinPosix(gitDir, "commondir"))).trim();
  } catch (e) {
    if (codeOf(e) === "ENOENT" || codeOf(e) === "ENOTDIR") return gitDir;
    throw e;
  }
  return common === "" ? gitDir : joinPosix(gitDir, common);
}

/**
 * May a command create `<root>/.ariel/` at a root found this way? Only where the root was given
 * (`-C`, `ARIEL_WORKSPACE_ROOT`), already has `.ariel/`, or is a git top level: never at a root
 * that is merely the cwd, because `.ariel/` changes how every later command below it resolves
 * its root.
 *
 * @example
 * ```ts
 * mayCreateStateDir("git"); // true
 * mayCreateStateDir("cwd"); // false
 * ```
 */
export function mayCreateStateDir(via: WorkspaceVia): boolean {
  return via !== "cwd";
}

/**
 * Refuse (ERR_NOT_A_WORKSPACE, exit 66) a command that must keep state in `<root>/.ariel/`
 * (tasks, worktrees) when {@link mayCreateStateDir} says no, with the commands that make the
 * directory a workspace.
 */
export function requireStateRoot(ws: Pick<Workspace, "root" | "via">): void {
  if (mayCreateStateDir(ws.via)) return;
  throw new ArielError(
    "ERR_NOT_A_WORKSPACE",
    `${quoteValue(ws.root)} is not a workspace: it has no .ariel/ and is not a git checkout`,
    {
      hint: `name it once to make it one: -C ${shellWords([ws.root])} (or ARIEL_WORKSPACE_ROOT=${shellWords([ws.root])})`,
      context: { root: ws.root, via: ws.via },
    },
  );
}

/** The line ariel adds to a checkout's info/exclude. */
export const EXCLUDE_LINE = `/${STATE_DIR}/`;

/**
 * Create `<root>/.ariel/` and, when the root is itself a checkout, add `/.ariel/` once to its
 * common git dir's `info/exclude`. Idempotent. Returns the state directory.
 */
export async function ensureStateDir(ports: Pick<Ports, "fs">, root: string): Promise<string> {
  const { fs } = ports;
  const dir = stateDir(root);
  await fs.mkdirp(dir);
  const common = await commonGitDir(fs, root);
  if (common === null) return dir;
  const exclude = joinPosix(common, "info/exclude");
  let text = "";
  try {
    text = await fs.readText(exclude);
  } catch (e) {
    if (codeOf(e) !== "ENOENT") throw e;
  }
  if (text.split(/\r?\n/).some((l) => l.trim() === EXCLUDE_LINE)) return dir;
  await fs.mkdirp(dirnamePosix(exclude));
  const sep = text === "" || text.endsWith("\n") ? "" : "\n";
  await fs.writeAtomic(exclude, `${text}${sep}${EXCLUDE_LINE}\n`);
  return dir;
}

/**
 * The root a next command must name with `-C` (it was given by flag or env and is not the cwd,
 * so the cwd would not find it again), or undefined.
 *
 * @example
 * ```ts
 * rootForNextCommand({ root: "/ws", via: "flag" }, "/elsewhere"); // "/ws"
 * rootForNextCommand({ root: "/ws", via: "git" }, "/ws/src");     // undefined
 * ```
 */
export function rootForNextCommand(ws: Pick<Workspace, "root" | "via">, cwd: string): string | undefined {
  return (ws.via === "flag" || ws.via === "env") && ws.root !== cwd ? ws.root : undefined;
}
