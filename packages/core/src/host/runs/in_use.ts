import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { ArielError, isArielError } from "../../errors.ts";
import { isExpired } from "../../lease/decide.ts";
import { quoteValue } from "../../names.ts";
import { runPaths, runsDir } from "../../runs/paths.ts";
import type { LeaseRecord } from "../../schema/lease.ts";
import { RUN_ID_PATTERN, runIdStamp } from "../../spawn/run_id.ts";
import { readLease } from "../lease-store.ts";
import { isProcessAlive } from "../proc.ts";
import { activeCheckoutRuns, activeTaskRuns } from "./active.ts";

/**
 * A run at work in a task: a detached one, found by its record ({@link activeTaskRuns}), or a
 * foreground `ariel-spawn --isolate`, found by the task's lease it holds for its whole run
 * (decision 0054) and its history's `run.started` (the same pid).
 */
export interface TaskUser {
  runId: string;
  mode: "detached" | "foreground";
  /** `starting`, `running`, `settling` (ended, its monitor not done), `lost` (its group alive). */
  state: string;
  /** The foreground spawn's pid. */
  pid: number | null;
  /** How a hint names it: its name while that means it, else its id. */
  ref: string;
}

/** The detached runs at work in task `taskId` of the workspace at `root` ({@link activeTaskRuns}), oldest first. */
export function detachedTaskUsers(root: string, taskId: string): TaskUser[] {
  return activeTaskRuns(root, taskId).map((r) => ({
    runId: r.runId,
    mode: "detached",
    state: r.settling ? "settling" : r.state,
    pid: null,
    ref: r.ref,
  }));
}

/**
 * The foreground spawn that holds the task's lease now (another live process of this host), or
 * null: no lease, an expired or released one, a dead holder, this process, or a holder that is
 * no spawn run (an `ariel-worktree` command at work for a moment).
 */
export async function foregroundTaskUser(root: string, taskId: string): Promise<TaskUser | null> {
  const lease = await readLease(root, taskId).catch(() => null);
  if (lease === null || isExpired(lease, Date.now()) || lease.pid === process.pid) return null;
  if (!isProcessAlive(lease)) return null;
  const runId = foregroundRunOf(root, lease);
  return runId === null ? null : { runId, mode: "foreground", state: "running", pid: lease.pid, ref: runId };
}

/** How many of the newest histories are read to find a lease holder's run. */
const HISTORIES_LOOKED_AT = 256;

/**
 * The foreground run whose `run.started` names the lease holder's pid: its history is a file
 * without a run directory, its id (a time stamp) no later than the lease. Newest first.
 */
function foregroundRunOf(root: string, lease: LeaseRecord): string | null {
  let names: string[];
  try {
    names = readdirSync(runsDir(root));
  } catch {
    return null;
  }
  const dirs = new Set(names.filter((n) => RUN_ID_PATTERN.test(n)));
  const acquired = runIdStamp(Date.parse(lease.acquiredAt));
  const ids = names
    .filter((n) => n.endsWith(".ndjson"))
    .map((n) => n.slice(0, -".ndjson".length))
    .filter((id) => RUN_ID_PATTERN.test(id) && !dirs.has(id) && id.slice(0, acquired.length) <= acquired)
    .sort((a, b) => (a < b ? 1 : -1))
    .slice(0, HISTORIES_LOOKED_AT);
  return ids.find((id) => startedPid(runPaths(root, id).history) === lease.pid) ?? null;
}

/** The `pid` of a history's first record (`run.started`), or null. */
function startedPid(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(16 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const line = buf.subarray(0, n).toString("utf8").split("\n")[0] ?? "";
    const rec = JSON.parse(line) as { event?: unknown; pid?: unknown };
    return rec.event === "run.started" && typeof rec.pid === "number" ? rec.pid : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Every run at work in the task: the foreground spawn holding its lease first, then the detached ones. */
export async function taskUsers(root: string, taskId: string): Promise<TaskUser[]> {
  const holder = await foregroundTaskUser(root, taskId);
  return [...(holder ? [holder] : []), ...detachedTaskUsers(root, taskId)];
}

/** "run X (running)" / "runs X (running), agent (Y, settling)": a named run by its name, its id beside it. */
export function describeUsers(users: readonly TaskUser[]): string {
  const one = (u: TaskUser) => {
    const how = u.mode === "foreground" ? `foreground ariel-spawn, pid ${u.pid}` : u.state;
    return u.ref === u.runId ? `${u.runId} (${how})` : `${u.ref} (${u.runId}, ${how})`;
  };
  return `${users.length === 1 ? "run" : "runs"} ${users.map(one).join(", ")}`;
}

/**
 * ERR_TASK_IN_USE (exit 75): a new run would enter a task other runs work in. The hint names
 * the next command: wait for the first of them, or share the task with `--join` (detached runs
 * only: a foreground spawn holds the task's lease until it ends).
 */
export function taskInUseError(taskId: string, users: readonly TaskUser[]): ArielError {
  const first = users[0];
  const foreground = users.find((u) => u.mode === "foreground");
  const hint = foreground
    ? `wait for that ariel-spawn (pid ${foreground.pid}) to end, or use another --task; a foreground run's task cannot be joined`
    : `wait for it (ariel-runs wait ${first?.ref}), use another --task, or pass --join to work in it too`;
  return new ArielError(
    "ERR_TASK_IN_USE",
    `task ${quoteValue(taskId)} is in use by ${describeUsers(users)}; nothing was started`,
    { hint, context: { task: taskId, runs: users.map((u) => u.runId) } },
  );
}

/**
 * What a new run meets when it would enter the existing task `taskId`: ERR_TASK_IN_USE when
 * detached runs work in it, unless `join`; else the ids of the runs it joins (empty when none).
 * Looked at under the task's lease, which every start of a run in it holds.
 */
export function enterTask(root: string, taskId: string, join: boolean): string[] {
  const users = detachedTaskUsers(root, taskId);
  if (users.length > 0 && !join) throw taskInUseError(taskId, users);
  return users.map((u) => u.runId);
}

/**
 * The error a new run of task `taskId` gives when taking the task's lease failed with `held`: a
 * foreground spawn holding it makes it ERR_TASK_IN_USE (`--join` cannot share its lease); any
 * other holder (an `ariel-worktree` command at work for a moment) leaves it as it is.
 */
export async function leaseHeldError(root: string, taskId: string, held: unknown): Promise<unknown> {
  if (!isArielError(held) || held.code !== "ERR_LEASE_HELD") return held;
  const holder = await foregroundTaskUser(root, taskId);
  return holder === null ? held : taskInUseError(taskId, [holder, ...detachedTaskUsers(root, taskId)]);
}

/**
 * What a new detached run without --isolate meets in the checkout `source` (at `path`):
 * ERR_CHECKOUT_IN_USE (exit 75) while another such run works there, unless `shared`. A look,
 * not a lock: two starts at the same moment can both pass it.
 */
export function enterCheckout(root: string, source: { name: string; path: string }, shared: boolean): void {
  if (shared) return;
  const users = activeCheckoutRuns(root, source.path);
  const first = users[0];
  if (first === undefined) return;
  const what =
    source.name === "." ? `the checkout ${source.path}` : `the checkout of ${quoteValue(source.name)}`;
  throw new ArielError(
    "ERR_CHECKOUT_IN_USE",
    `${what} is in use by detached ${describeUsers([{ runId: first.runId, mode: "detached", state: first.settling ? "settling" : first.state, pid: null, ref: first.ref }])}; nothing was started`,
    {
      hint: `add --isolate for a worktree of its own, wait for it (ariel-runs wait ${first.ref}), or pass --shared to work there too`,
      context: { source: source.name, path: source.path, runs: users.map((u) => u.runId) },
    },
  );
}
