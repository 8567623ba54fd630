/**
 * A task's directory is never a workspace (decision 0106): a root that lies inside a task's
 * directory (or is one) belongs to the workspace that owns the task. Two ways to tell:
 *
 * - anything inside `<X>/.ariel/` (the default worktree root `<X>/.ariel/worktrees/<task>/…`,
 *   and every other state path) belongs to X;
 * - a task directory under a configured worktree root elsewhere holds legs, git worktrees that
 *   ariel locked as `ariel:<task>`; their source's checkout lies in the workspace whose
 *   `.ariel/tasks/<task>.json` names the task.
 *
 * @example
 * ```ts
 * await taskOwner(fs, "/ws/.ariel/worktrees/login");     // { root: "/ws", task: "login" }
 * await taskOwner(fs, "/ws/.ariel/worktrees/login/api"); // { root: "/ws", task: "login" }
 * await taskOwner(fs, "/ws/api");                         // null
 * ```
 */
import { isTaskId } from "./names.ts";
import { dirnamePosix, joinPosix } from "./paths.ts";
import type { FsPort } from "./ports.ts";
import { STATE_DIR, taskRecordPath } from "./state_paths.ts";
import { taskOfLock } from "./worktree/ours.ts";

/** The workspace a directory inside a task belongs to, and the task when it is known. */
export interface TaskOwner {
  root: string;
  task: string | null;
}

/** How many entries of a directory are looked at for legs (a task spans at most this many). */
const LEGS_LOOKED_AT = 64;

function codeOf(e: unknown): string | undefined {
  return (e as { code?: string } | null)?.code;
}

async function readOrNull(fs: FsPort, path: string): Promise<string | null> {
  try {
    return await fs.readText(path);
  } catch (e) {
    const code = codeOf(e);
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES" || code === "EISDIR") return null;
    throw e;
  }
}

/**
 * The owner of `dir` (canonical) when it is in a task's directory, else null. `checkLegs`: also
 * look for legs of a configured worktree root (`dir` itself a leg or a task directory); a root
 * that holds a `.ariel/` of its own is a workspace, and is not looked into.
 */
export async function taskOwner(fs: FsPort, dir: string, checkLegs = true): Promise<TaskOwner | null> {
  const inState = await insideStateDir(fs, dir);
  if (inState !== null || !checkLegs) return inState;
  if ((await fs.stat(joinPosix(dir, STATE_DIR)))?.kind === "dir") return null;
  const leg = await legOwner(fs, dir);
  if (leg.owner !== null) return leg.owner;
  // A checkout itself is no task directory (its legs would be checkouts in a checkout).
  return leg.checkout === dir ? null : taskDirOwner(fs, dir);
}

/** `<X>/.ariel/…` belongs to X (the outermost such X); a task directory of the default root names its task. */
async function insideStateDir(fs: FsPort, dir: string): Promise<TaskOwner | null> {
  const parts = dir.split("/");
  const at = parts.indexOf(STATE_DIR);
  if (at < 1) return null;
  const root = parts.slice(0, at).join("/") || "/";
  if ((await fs.stat(joinPosix(root, STATE_DIR)))?.kind !== "dir") return null;
  const task =
    parts[at + 1] === "worktrees" && isTaskId(parts[at + 2] ?? "") ? (parts[at + 2] ?? null) : null;
  return { root, task };
}

/**
 * `dir` is in a leg of a task: the checkout holding it (the nearest ancestor with a `.git`, as
 * git finds it) is a linked worktree whose admin directory holds ariel's lock `ariel:<task>`; its
 * owner is the nearest ancestor of the source checkout (itself included) whose
 * `.ariel/tasks/<task>.json` exists.
 */
async function legOwner(
  fs: FsPort,
  dir: string,
): Promise<{ owner: TaskOwner | null; checkout: string | null }> {
  for (let d = dir; ; d = dirnamePosix(d)) {
    const dotGit = await fs.lstat(joinPosix(d, ".git"));
    if (dotGit !== null)
      return { owner: dotGit.kind === "file" ? await lockedLegOwner(fs, d) : null, checkout: d };
    if (d === "/") return { owner: null, checkout: null };
  }
}

/** The owner of the checkout `dir` whose `.git` is a file, when ariel locked it for a task. */
async function lockedLegOwner(fs: FsPort, dir: string): Promise<TaskOwner | null> {
  const text = await readOrNull(fs, joinPosix(dir, ".git"));
  const gitDir = text === null ? null : /^gitdir: *(.+?)\s*$/m.exec(text)?.[1];
  if (!gitDir) return null;
  const admin = joinPosix(dir, gitDir);
  const task = taskOfLock((await readOrNull(fs, joinPosix(admin, "locked")))?.trim() ?? null);
  if (task === null) return null;
  const common = ((await readOrNull(fs, joinPosix(admin, "commondir"))) ?? "").trim();
  const commonDir = common === "" ? admin : joinPosix(admin, common);
  for (let d = dirnamePosix(commonDir); ; d = dirnamePosix(d)) {
    if ((await fs.stat(taskRecordPath(d, task)))?.kind === "file") return { root: d, task };
    if (d === "/") return null;
  }
}

/**
 * `dir` holds legs of one task (it is that task's directory, named after it). The first clone
 * among its entries ends the look: a workspace of sources (`-C ~/ws`) costs one `lstat` more.
 */
async function taskDirOwner(fs: FsPort, dir: string): Promise<TaskOwner | null> {
  const name = dir.split("/").pop() ?? "";
  if (!isTaskId(name)) return null;
  let entries: Awaited<ReturnType<FsPort["readDir"]>>;
  try {
    entries = await fs.readDir(dir);
  } catch {
    return null;
  }
  for (const e of entries.filter((x) => x.kind === "dir").slice(0, LEGS_LOOKED_AT)) {
    const leg = joinPosix(dir, e.name);
    const dotGit = await fs.lstat(joinPosix(leg, ".git"));
    // A clone (its .git a directory) is never a leg: this is a directory of sources, not a task.
    if (dotGit?.kind === "dir") return null;
    if (dotGit?.kind !== "file") continue;
    const owner = await lockedLegOwner(fs, leg);
    if (owner !== null && owner.task === name) return owner;
  }
  return null;
}
