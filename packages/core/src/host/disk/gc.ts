/**
 * `ariel-worktree gc`: gather the facts, plan with the pure {@link planGc}, then apply the plan
 * one action at a time, each under the task's lease, except `task.archive`, applied a batch at a
 * time under the batch's lease locks (archive.ts). Worktrees are removed through removeTask
 * with `snapshot: true`, so local work is saved under refs/ariel/snapshots/ first; a removal
 * that refuses, a lease held by someone else, or a detached run still at work in the task
 * (planned `running`, or found by removeTask under the lease: ERR_LEASE_HELD), is reported as
 * skipped and changes nothing.
 */

import { lstatSync, readdirSync, readFileSync } from "node:fs";
import {
  type GcAction,
  type GcPlan,
  type GcPolicy,
  type GcRunFacts,
  type GcStoreFacts,
  type GcTaskFacts,
  gcSteps,
  planGc,
} from "../../disk/gc.ts";
import { emptyUsage } from "../../disk/usage.ts";
import { toArielError } from "../../errors.ts";
import { isExpired } from "../../lease/decide.ts";
import type { Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { ensureStateDir } from "../../workspace.ts";
import { checkTaskRef } from "../../worktree/ref_guard.ts";
import { readLease, withLease } from "../lease-store.ts";
import type { TaskLifecyclePlan } from "../lifecycle/plan_hooks.ts";
import { isProcessAlive } from "../proc.ts";
import { withRepoLock } from "../repo-lock.ts";
import { activeTaskRuns, stillSettling } from "../runs/active.ts";
import { viewRun } from "../runs/view.ts";
import { syncTaskSandboxes } from "../sandbox/sync.ts";
import { withRunLock } from "../supervise/control.ts";
import { testPause } from "../test-hooks.ts";
import { newWalkState, walkUsage } from "../walk/walk.ts";
import { resolveCommit } from "../worktree/facts.ts";
import { leaseOptions } from "../worktree/fence.ts";
import { gitRaw } from "../worktree/git.ts";
import { ownerOf } from "../worktree/owner.ts";
import { removeTask } from "../worktree/remove.ts";
import { legUsesStore, listStores, strayStoreDirs, withShareLock } from "../worktree/share.ts";
import { readTask, writeTask } from "../worktree/store.ts";
import { readAllTasks } from "../worktree/tasks.ts";
import { openWorkspace, repoLockDir, type WorktreeWorkspace } from "../worktree/workspace.ts";
import { ARCHIVE_BATCH, archiveTasks } from "./archive.ts";

export { ARCHIVE_BATCH, ARCHIVE_FILE } from "./archive.ts";

export interface GcOptions {
  root: string;
  policy: GcPolicy;
  dryRun?: boolean;
  /** Called before each action is applied (`i` from 1): progress on a terminal. */
  onProgress?: (i: number, n: number, action: GcAction) => void;
  /** --no-hooks: a task's removal runs no pre-remove hook. */
  noHooks?: boolean;
}

/** What became of one planned action. */
export interface GcOutcome {
  action: GcAction;
  outcome: "done" | "skipped";
  /** Why it was skipped: an error code (ERR_LEASE_HELD, ERR_DIRTY, …) and its message. */
  reason?: { code: string; message: string };
  /**
   * Skipped by a safety refusal (exit 3: `remove` would lose work or touch what is not ours):
   * it waits for the user's decision. Other skips (a held lease, a task that changed) are
   * transient: a later gc takes them.
   */
  refused?: true;
  /** For a task.remove: the snapshot refs made. */
  snapshots?: { source: string; ref: string; commit: string }[];
}

export interface GcResult {
  plan: GcPlan;
  outcomes: GcOutcome[];
  /** Records that could not be read: never touched. */
  problems: { code: string; message: string }[];
  /** A dry run: the pre-remove hooks each task it removes would run (docs/lifecycle.md). */
  lifecycle?: TaskLifecyclePlan[];
}

function allocated(path: string): number {
  const usage = emptyUsage();
  walkUsage(path, null, newWalkState(), usage);
  return usage.total;
}

/**
 * The branches of the repository at `sourcePath` fully merged into its HEAD (`refs/heads/…`), by
 * one `git for-each-ref --merged=HEAD` (what `merge-base --is-ancestor <branch> HEAD` says of each);
 * none when git cannot tell (an unborn HEAD, say).
 */
async function mergedBranches(
  ws: WorktreeWorkspace,
  sourcePath: string,
): Promise<{ merged: Set<string>; all: Set<string> | null }> {
  // A source directory gone: git cannot tell (started there, it would fail as if missing itself).
  if ((await ws.ports.fs.lstat(sourcePath))?.kind !== "dir") return { merged: new Set(), all: null };
  const refs = async (...args: string[]) => {
    const r = await gitRaw(ws.ports, sourcePath, [
      "for-each-ref",
      ...args,
      "--format=%(refname)",
      "refs/heads/",
    ]);
    return r.code === 0 ? new Set(r.stdout.split("\n").filter((l) => l !== "")) : null;
  };
  // Every branch too: one that is gone (land --remove deleted it) is not "not merged".
  const [merged, all] = await Promise.all([refs("--merged=HEAD"), refs()]);
  return { merged: merged ?? new Set(), all };
}

async function gatherTasks(
  ws: WorktreeWorkspace,
  records: readonly TaskRecord[],
  policy: GcPolicy,
  now: number,
) {
  // Detached runs still at work in a task's worktrees: one read of the runs for every task.
  const running = new Map<string, string[]>();
  for (const r of activeTaskRuns(ws.root)) running.set(r.task, [...(running.get(r.task) ?? []), r.runId]);
  const facts: GcTaskFacts[] = [];
  // With --prune-merged: one git call per source repository, not one per leg.
  const mergedIn = new Map<string, ReturnType<typeof mergedBranches>>();
  const branchOf = async (sourcePath: string, branch: string) => {
    let sets = mergedIn.get(sourcePath);
    if (!sets) {
      sets = mergedBranches(ws, sourcePath);
      mergedIn.set(sourcePath, sets);
    }
    const { merged, all } = await sets;
    const ref = `refs/heads/${branch}`;
    return merged.has(ref) ? "merged" : all !== null && !all.has(ref) ? "gone" : "not-merged";
  };
  for (const record of records) {
    // A lease file we cannot read counts as held: gc never touches what it cannot vouch for.
    const stored = await readLease(ws.root, record.taskId, ws.ports.fs).catch(() => ({
      expiresAt: "9999-12-31T00:00:00.000Z",
    }));
    // A lease whose holder died on this host is free to take (the lease store would steal it);
    // an expired or released one (every closed task's) is free whoever held it.
    const lease =
      stored && "pid" in stored && !isExpired(stored, now) && !isProcessAlive(stored) ? null : stored;
    // Worktrees are measured only when the plan may need their size: 418 worktrees of 87 GB
    // are not walked by a gc that only archives records.
    const measure =
      policy.keepBytes !== undefined ||
      (policy.states.includes(record.state) && now - Date.parse(record.updatedAt) >= policy.olderThanMs);
    const present: string[] = [];
    let bytes = 0;
    for (const leg of record.legs) {
      if ((await ws.ports.fs.lstat(leg.worktreePath))?.kind === "dir") {
        present.push(leg.source);
        if (measure) bytes += allocated(leg.worktreePath);
      }
    }
    const merged: string[] = [];
    const gone: string[] = [];
    if (policy.pruneMerged && record.state === "closed") {
      for (const leg of record.legs) {
        if (leg.state !== "removed") continue;
        const how = await branchOf(leg.sourcePath, leg.branch);
        if (how === "merged") merged.push(leg.source);
        else if (how === "gone") gone.push(leg.source);
      }
    }
    const runs = running.get(record.taskId);
    facts.push({
      record,
      lease: lease as GcTaskFacts["lease"],
      bytes,
      present,
      merged,
      ...(gone.length > 0 ? { gone } : {}),
      ...(runs ? { runs } : {}),
    });
  }
  return facts;
}

/** Runs of the workspace: `<id>.ndjson` history files and `<id>/` run directories. */
function gatherRuns(root: string): GcRunFacts[] {
  const dir = `${root}/.ariel/runs`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const runs = new Map<string, GcRunFacts>();
  const get = (id: string) => {
    let r = runs.get(id);
    if (!r) {
      r = { runId: id, paths: [], finished: false, atMs: 0, bytes: 0 };
      runs.set(id, r);
    }
    return r;
  };
  for (const name of names.sort()) {
    const path = `${dir}/${name}`;
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isFile() && name.endsWith(".ndjson")) {
      const r = get(name.slice(0, -".ndjson".length));
      (r.paths as string[]).push(path);
      r.bytes += allocated(path);
      const text = readFileSync(path, "utf8");
      const last = text.trimEnd().split("\n").pop() ?? "";
      if (last.includes('"event":"run.finished"')) r.finished = true;
      r.atMs = Math.max(r.atMs, st.mtimeMs);
    } else if (st.isDirectory()) {
      // A background run's directory (run.json, exit.json, output): finished once exit.json is there.
      const r = get(name);
      (r.paths as string[]).push(path);
      r.bytes += allocated(path);
      // Once exit.json is there the monitor may still be settling it (worktree outcome, --on-exit
      // hook, run.finished): such a run is live, left for a later gc.
      const exit = lstatSync(`${path}/exit.json`, { throwIfNoEntry: false });
      if (exit) r.atMs = Math.max(r.atMs, exit.mtimeMs);
      r.finished = r.finished || exit !== undefined;
      if (exit && settling(root, name)) r.settling = true;
    }
  }
  // A run with a directory but no exit.json is running, whatever its history file says.
  for (const r of runs.values()) {
    const d = r.paths.find((p) => !p.endsWith(".ndjson"));
    if (r.settling || (d && lstatSync(`${d}/exit.json`, { throwIfNoEntry: false }) === undefined))
      r.finished = false;
  }
  return [...runs.values()];
}

/** Whether run `runId`'s monitor is still settling it; a run.json we cannot read: not a run of ours. */
function settling(root: string, runId: string): boolean {
  try {
    return stillSettling(root, viewRun(root, runId));
  } catch {
    return false;
  }
}

/**
 * The legs linking into each share store: every leg of every task record, and every worktree
 * under the worktree root no record names (a crashed add's); plus half-made stores.
 */
async function gatherStores(ws: WorktreeWorkspace, records?: readonly TaskRecord[]): Promise<GcStoreFacts[]> {
  const stores = listStores(ws.root);
  const stray = strayStoreDirs(ws.root);
  if (stores.length === 0 && stray.length === 0) return [];
  records ??= (await readAllTasks(ws)).records;
  const legs: { task: string | null; path: string }[] = records.flatMap((r) =>
    r.legs.map((l) => ({ task: r.taskId, path: l.worktreePath })),
  );
  const named = new Set(legs.map((l) => l.path));
  for (const task of safeReaddir(ws.worktreeRoot)) {
    for (const source of safeReaddir(`${ws.worktreeRoot}/${task}`)) {
      const path = `${ws.worktreeRoot}/${task}/${source}`;
      if (!named.has(path)) legs.push({ task: null, path });
    }
  }
  const freed = (path: string) => {
    const usage = emptyUsage();
    walkUsage(path, null, newWalkState(), usage);
    return usage.total - usage.hardlinked;
  };
  return [
    ...stores.map((s) => ({
      key: s.key,
      path: s.path,
      users: legs.filter((l) => legUsesStore(l.path, s)),
      bytes: freed(s.path),
    })),
    ...stray.map((path) => ({
      key: path.slice(path.lastIndexOf("/") + 1),
      path,
      users: [],
      bytes: freed(path),
    })),
  ];
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * Plan, and unless `dryRun`, apply. Nothing with local work is removed without a snapshot ref;
 * a task whose lease is held is skipped.
 *
 * @example
 * ```ts
 * const { plan } = await gc(hostPorts(), { root: "/w", policy: { olderThanMs: 0, states: ["closed"], pruneMerged: false }, dryRun: true });
 * ```
 */
export async function gc(ports: Ports, options: GcOptions): Promise<GcResult> {
  const ws = await openWorkspace(ports, options.root);
  // Sandboxed runs' commits are home before any task is measured or reclaimed.
  if (!options.dryRun) await syncTaskSandboxes(ws.root, null);
  const now = ports.clock.now();
  // Every record is read once, for the tasks and for the share stores alike.
  const { records, problems } = await readAllTasks(ws);
  const facts = await gatherTasks(ws, records, options.policy, now);
  const plan = planGc(now, options.policy, facts, gatherRuns(ws.root), await gatherStores(ws, records));
  const probs = problems.map((p) => ({ code: p.code, message: p.message }));
  if (options.dryRun) {
    const lifecycle = await planGcHooks(ws, plan.actions, options.noHooks === true);
    return { plan, outcomes: [], problems: probs, ...(lifecycle.length > 0 ? { lifecycle } : {}) };
  }
  await ensureStateDir(ports, ws.root);
  return {
    plan,
    outcomes: await applyPlan(ws, plan.actions, options.onProgress, options.noHooks === true),
    problems: probs,
  };
}

/**
 * Apply the actions in the plan's order, except that `task.archive` actions go a batch of
 * {@link ARCHIVE_BATCH} at a time (archive.ts), each batch followed by its tasks' `branch.delete`
 * actions ({@link gcSteps}). Outcomes come in the plan's order.
 */
async function applyPlan(
  ws: WorktreeWorkspace,
  actions: readonly GcAction[],
  onProgress: GcOptions["onProgress"],
  noHooks: boolean,
): Promise<GcOutcome[]> {
  const outcomes: GcOutcome[] = new Array(actions.length);
  let applied = 0;
  const progress = (a: GcAction) => onProgress?.(++applied, actions.length, a);
  const one = async (i: number) => {
    progress(actions[i] as GcAction);
    outcomes[i] = await applyOne(ws, actions[i] as GcAction, noHooks);
    await testPause("gc:after-action");
  };
  for (const step of gcSteps(actions, ARCHIVE_BATCH)) {
    if ("one" in step) {
      await one(step.one);
      continue;
    }
    const archives = step.archive.map((i) => actions[i] as GcAction & { task: string });
    for (const a of archives) progress(a);
    await testPause("gc:before-archive");
    const done = await archiveTasks(
      ws,
      archives.map((a) => a.task),
    );
    for (const [k, i] of step.archive.entries()) {
      const a = archives[k] as GcAction & { task: string };
      outcomes[i] = { action: a, ...(done.get(a.task) ?? { outcome: "done" }) };
    }
    await testPause("gc:after-action");
    // A branch of a task gc did not archive (leased, changed) is not deleted either.
    for (const i of step.after) {
      const action = actions[i] as GcAction & { task: string };
      const skipped = done.get(action.task);
      if (skipped?.outcome !== "skipped") {
        await one(i);
        continue;
      }
      progress(action);
      outcomes[i] = { action, outcome: "skipped", ...(skipped.reason ? { reason: skipped.reason } : {}) };
    }
  }
  return outcomes;
}

/**
 * One action, under its task's lease (or the lock it needs); a 75 or 3 becomes a skip, and so
 * does git failing on the task (a leg whose `.git` link is broken): the sweep goes on.
 */
async function applyOne(ws: WorktreeWorkspace, action: GcAction, noHooks: boolean): Promise<GcOutcome> {
  try {
    return await apply(ws, action, noHooks);
  } catch (e) {
    const err = toArielError(e);
    if (err.exit !== 75 && err.exit !== 3 && err.code !== "ERR_GIT") throw err;
    return {
      action,
      outcome: "skipped",
      reason: { code: err.code, message: err.message },
      ...(err.exit === 3 ? { refused: true as const } : {}),
    };
  }
}

/**
 * `git update-ref -d REF COMMIT` (only while the ref is still at COMMIT); null when it was
 * dropped, else why not (ERR_CONFLICT: it moved; ERR_GIT: git refused, e.g. a bad name).
 */
async function dropRef(
  ports: Ports,
  repo: string,
  ref: string,
  commit: string,
): Promise<{ code: string; message: string } | null> {
  const at = await resolveCommit(ports, repo, ref);
  if (at !== commit) {
    const now = at === null ? "is gone" : `moved to ${at}`;
    return { code: "ERR_CONFLICT", message: `${ref} ${now} (was ${commit}); kept` };
  }
  const r = await gitRaw(ports, repo, ["update-ref", "-d", ref, commit]);
  if (r.code === 0) return null;
  return { code: "ERR_GIT", message: r.stderr.trim().split("\n")[0] || "git update-ref -d failed" };
}

type ActionOf<K extends GcAction["action"]> = Extract<GcAction, { action: K }>;

async function apply(ws: WorktreeWorkspace, action: GcAction, noHooks: boolean): Promise<GcOutcome> {
  switch (action.action) {
    case "task.remove":
      return applyTaskRemove(ws, action, noHooks);
    case "task.archive":
      throw new RangeError("task.archive is applied a batch at a time (archiveTasks)");
    case "branch.delete":
      return applyBranchDelete(ws.ports, action);
    case "snapshot.drop":
      return applySnapshotDrop(ws, action);
    case "run.drop":
      return applyRunDrop(ws, action);
    case "share.drop":
      return applyShareDrop(ws, action);
  }
}

/**
 * The pre-remove hooks of the plan's task removals: each task's `remove --snapshot` planned as
 * {@link applyTaskRemove} would run it (a removal its dry run refuses runs none, as it would not).
 */
async function planGcHooks(
  ws: WorktreeWorkspace,
  actions: readonly GcAction[],
  noHooks: boolean,
): Promise<TaskLifecyclePlan[]> {
  const out: TaskLifecyclePlan[] = [];
  if (noHooks) return out;
  for (const a of actions) {
    if (a.action !== "task.remove") continue;
    const r = await removeTask(ws.ports, {
      root: ws.root,
      taskId: a.task,
      snapshot: true,
      dryRun: true,
    }).catch(() => null);
    if (r?.lifecycle && r.lifecycle.hooks.length > 0) out.push({ task: a.task, plan: r.lifecycle });
  }
  return out;
}

/** `remove --snapshot` of the task; a refusal becomes a skip (`refused`). */
async function applyTaskRemove(
  ws: WorktreeWorkspace,
  action: ActionOf<"task.remove">,
  noHooks: boolean,
): Promise<GcOutcome> {
  const ports = ws.ports;
  const r = await removeTask(ports, {
    root: ws.root,
    taskId: action.task,
    snapshot: true,
    ...(noHooks ? { noHooks: true } : {}),
  });
  if (r.refused) {
    const first = r.results.find((x) => x.refusal)?.refusal;
    return {
      action,
      outcome: "skipped",
      reason: { code: first?.code ?? "ERR_REFUSED", message: first?.message ?? "refused" },
      refused: true,
    };
  }
  const snapshots = r.results.flatMap((x) => (x.snapshot ? [{ source: x.source, ...x.snapshot }] : []));
  return { action, outcome: "done", snapshots };
}

/** `git branch -d` under the repository lock: only a branch merged into HEAD and checked out nowhere. */
async function applyBranchDelete(ports: Ports, action: ActionOf<"branch.delete">): Promise<GcOutcome> {
  const common = await repoLockDir(ports, action.sourcePath);
  return withRepoLock(
    common,
    async () => {
      checkTaskRef({ taskId: action.task, legs: [{ branch: action.branch }] }, `refs/heads/${action.branch}`);
      // `branch -d` deletes only a branch merged into HEAD and checked out nowhere.
      const r = await gitRaw(ports, action.sourcePath, ["branch", "-d", action.branch]);
      if (r.code !== 0) {
        return {
          action,
          outcome: "skipped",
          reason: { code: "ERR_GIT", message: r.stderr.trim().split("\n")[0] ?? "git branch -d failed" },
        };
      }
      return { action, outcome: "done" };
    },
    { purpose: `gc ${action.task}`, fs: ports.fs },
  );
}

/** Drop the snapshot ref and its artifact under the task's lease, while its leg is still active on disk. */
async function applySnapshotDrop(
  ws: WorktreeWorkspace,
  action: ActionOf<"snapshot.drop">,
): Promise<GcOutcome> {
  const ports = ws.ports;
  return withLease(
    ws.root,
    action.task,
    leaseOptions(ports, ownerOf(ports), ws.leaseTtlMs),
    async (lease) => {
      const record = await readTask(ws.root, ws.hash, action.task);
      const leg = record?.legs.find((l) => l.source === action.source);
      if (!record || leg?.state !== "active" || (await ports.fs.lstat(leg.worktreePath))?.kind !== "dir") {
        return {
          action,
          outcome: "skipped",
          reason: { code: "ERR_CONFLICT", message: "the task changed" },
        };
      }
      checkTaskRef(record, action.ref); // a record naming refs/heads/main: refused (3)
      const common = await repoLockDir(ports, action.sourcePath);
      const failed = await withRepoLock(
        common,
        () => dropRef(ports, action.sourcePath, action.ref, action.commit),
        { purpose: `gc ${action.task}`, fs: ports.fs },
      );
      // The ref moved or git would not drop it: it stays, and so does the record's artifact.
      if (failed !== null) return { action, outcome: "skipped", reason: failed };
      const artifacts = record.artifacts.filter((a) => !(a.kind === "snapshot" && a.ref === action.ref));
      await writeTask(ports, { ...record, artifacts }, record.version, lease);
      return { action, outcome: "done" };
    },
  );
}

/** Remove a finished run's files; under its run lock when it has a directory, checked again. */
async function applyRunDrop(ws: WorktreeWorkspace, action: ActionOf<"run.drop">): Promise<GcOutcome> {
  const ports = ws.ports;
  const drop = async () => {
    for (const p of action.paths) await ports.fs.remove(p);
  };
  if (!action.paths.some((p) => !p.endsWith(".ndjson"))) {
    await drop();
    return { action, outcome: "done" };
  }
  // Under the run lock `ariel-runs rm` takes, checked again: a monitor settling it is left be.
  try {
    return await withRunLock(ws.root, action.run, async () => {
      if (settling(ws.root, action.run)) {
        return {
          action,
          outcome: "skipped" as const,
          reason: { code: "ERR_RUN_LIVE", message: "its monitor is still settling it" },
        };
      }
      await drop();
      return { action, outcome: "done" as const };
    });
  } catch (e) {
    if (toArielError(e).code !== "ERR_RUN_NOT_FOUND") throw e;
    await drop(); // its directory was removed meanwhile: what is left of it goes too
    return { action, outcome: "done" };
  }
}

/** Remove a share store no leg links into, checked again under the share lock. */
async function applyShareDrop(ws: WorktreeWorkspace, action: ActionOf<"share.drop">): Promise<GcOutcome> {
  const ports = ws.ports;
  // Under the lock an add makes and links stores under: no leg can start using it now.
  return withShareLock(ws.root, `gc ${action.store}`, async () => {
    const store = (await gatherStores(ws)).find((s) => s.path === action.path);
    if (store && store.users.length > 0) {
      return {
        action,
        outcome: "skipped",
        reason: {
          code: "ERR_CONFLICT",
          message: `in use by ${store.users.map((u) => u.path).join(", ")}`,
        },
      };
    }
    // Its files are other names of the source's (or only its own, once the source dropped
    // them); its links are never followed: the source loses nothing.
    await ports.fs.remove(action.path);
    return { action, outcome: "done" };
  });
}
