/**
 * Every path under a workspace's state directory `<root>/.ariel/`, built in one place. A builder
 * for a per-task file validates the task id first (ERR_INVALID_TASK_ID, exit 65), so no code path
 * can create `.ariel/leases/a..b.json` or a task directory for a name that is not a task id.
 *
 * @example
 * ```ts
 * taskRecordPath("/ws", "fix-login"); // "/ws/.ariel/tasks/fix-login.json"
 * leasePath("/ws", "fix-login");      // "/ws/.ariel/leases/fix-login.json"
 * runsDir("/ws");                    // "/ws/.ariel/runs" (each run's paths: runs/paths.ts)
 * taskDirPath("/ws/.ariel/worktrees", "a..b");      // throws ERR_INVALID_TASK_ID
 * ```
 */
import { validateTaskId } from "./names.ts";
import { joinPosix } from "./paths.ts";

/** The state directory's name under the root. */
export const STATE_DIR = ".ariel";

/** `<root>/.ariel`. */
export function stateDir(root: string): string {
  return joinPosix(root, STATE_DIR);
}

/** `<root>/.ariel/tasks`: one record per task. */
export function tasksDir(root: string): string {
  return joinPosix(root, STATE_DIR, "tasks");
}

/** `<root>/.ariel/leases`: one lease file per task. */
export function leasesDir(root: string): string {
  return joinPosix(root, STATE_DIR, "leases");
}

/** The last root {@link runsDir} joined, and the result: `list` asks once per run, for one root. */
let lastRuns: { root: string; dir: string } | null = null;

/** `<root>/.ariel/runs`: a history file per run, a directory per detached run. */
export function runsDir(root: string): string {
  if (lastRuns?.root !== root) lastRuns = { root, dir: joinPosix(root, STATE_DIR, "runs") };
  return lastRuns.dir;
}

/** `<root>/.ariel/worktrees`: the default worktree root. */
export function defaultWorktreeRoot(root: string): string {
  return joinPosix(root, STATE_DIR, "worktrees");
}

/** `<root>/.ariel/tasks/<task>.json` (ERR_INVALID_TASK_ID for a bad id). */
export function taskRecordPath(root: string, taskId: string): string {
  return joinPosix(tasksDir(root), `${validateTaskId(taskId)}.json`);
}

/** `<root>/.ariel/leases/<task>.json` (ERR_INVALID_TASK_ID for a bad id). */
export function leasePath(root: string, taskId: string): string {
  return joinPosix(leasesDir(root), `${validateTaskId(taskId)}.json`);
}

/** `<worktreeRoot>/<task>`: the task directory holding its legs (ERR_INVALID_TASK_ID for a bad id). */
export function taskDirPath(worktreeRoot: string, taskId: string): string {
  return joinPosix(worktreeRoot, validateTaskId(taskId));
}

/** The task a file name in `.ariel/tasks` or `.ariel/leases` stands for, or null when it names none. */
export function taskOfStateFile(name: string): string | null {
  if (!name.endsWith(".json") || name.startsWith(".")) return null;
  return name.slice(0, -".json".length);
}

/** `<root>/.ariel/hooks`: one log per task of what its lifecycle hooks printed. */
export function hooksDir(root: string): string {
  return joinPosix(root, STATE_DIR, "hooks");
}

/** `<root>/.ariel/hooks/<task>.log` (ERR_INVALID_TASK_ID for a bad id). */
export function hookLogPath(root: string, taskId: string): string {
  return joinPosix(hooksDir(root), `${validateTaskId(taskId)}.log`);
}
