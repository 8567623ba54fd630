/**
 * The plan of `ariel-worktree gc`: what to reclaim, from facts gathered by host/disk/gc.ts.
 * Pure and table-tested (gc_test.ts); the apply step only carries it out.
 *
 * Rules (docs/disk.md):
 * - A task is *eligible* when its state is one of `states` (default `closed`), it was last
 *   updated at least `olderThanMs` ago, and no live lease is held on it (then it is `skip`ped
 *   with reason `leased`: a worktree command, or a foreground `ariel-spawn --isolate` whose
 *   command runs in it) and no detached run is still at work in it (`skip`ped with reason
 *   `running`, detail the run ids, when the policy would have taken it: the apply step checks
 *   again under the task's lease).
 * - An eligible task with worktrees on disk gets `task.remove`: each leg's local work is
 *   snapshotted first (remove --snapshot), never dropped.
 * - `keepBytes`: beyond that, tasks with worktrees are removed oldest first (any state but a
 *   leased or running one) until what stays is at most `keepBytes`.
 * - An eligible closed task none of whose legs was snapshotted gets `task.archive`: its record
 *   moves to `.ariel/archive/tasks.ndjson`. A task with a snapshotted leg keeps its record:
 *   it is what `restore` reads.
 * - `pruneMerged`: the branch of a removed (not snapshotted) leg of an archived task is deleted
 *   when it is fully merged into its source's HEAD (`branch.delete`); else kept.
 * - A snapshot ref whose leg is active again (restored) and on disk: `snapshot.drop`.
 * - A finished run older than `olderThanMs`: `run.drop` (its history file and output dir).
 *   A run that has not finished is never touched; one that ended but whose monitor is still
 *   settling it (worktree outcome, --on-exit hook, `run.finished`) is `skip`ped with reason
 *   `settling`: a later gc takes it.
 * - A share store (`add --share-mode store`) no leg links into, once the tasks this plan
 *   removes are gone: `share.drop` (last; the apply step checks again under the share lock).
 *   It holds links to the source's files, never the files alone: the source keeps its copy.
 */
import { isExpired } from "../lease/decide.ts";
import type { LeaseRecord } from "../schema/lease.ts";
import type { TaskRecord } from "../schema/task.ts";

export interface GcPolicy {
  /** Only what is at least this old (ms); default 7 days. */
  olderThanMs: number;
  /** Task states whose worktrees and records are reclaimed (default ["closed"]). */
  states: readonly TaskRecord["state"][];
  /** Remove worktrees, oldest task first, until at most this many bytes stay (undefined: no cap). */
  keepBytes?: number;
  pruneMerged: boolean;
}

export const GC_DEFAULT_OLDER_THAN_MS = 7 * 86_400_000;

/** What gc knows of one task. */
export interface GcTaskFacts {
  record: TaskRecord;
  lease: LeaseRecord | null;
  /** Allocated bytes of its worktrees on disk (0 when none is there). */
  bytes: number;
  /** Sources whose worktree directory is on disk. */
  present: readonly string[];
  /** Sources whose branch is fully merged into the source's HEAD (asked only with pruneMerged). */
  merged: readonly string[];
  /**
   * Sources whose branch no longer exists (deleted by `land --remove`, say: asked only with
   * pruneMerged): nothing to prune, and nothing to say about it.
   */
  gone?: readonly string[];
  /** Detached runs still at work in its worktrees (running, being settled, lost with a live group). */
  runs?: readonly string[];
}

export interface GcRunFacts {
  runId: string;
  /** Paths that make up the run: its history file, its output directory. */
  paths: readonly string[];
  finished: boolean;
  /** Ended (`exit.json` written), but its monitor, alive, has not finished with it yet. */
  settling?: boolean;
  /** When it ended (or was last written), epoch ms. */
  atMs: number;
  bytes: number;
}

/** What gc knows of one share store (or a half-made one an add left: no users). */
export interface GcStoreFacts {
  key: string;
  path: string;
  /** Legs linking into it: their task (null for a worktree no record names) and worktree path. */
  users: readonly { task: string | null; path: string }[];
  /** What dropping it frees: its bytes in files no other name holds, and its directories. */
  bytes: number;
}

export type GcAction =
  | { action: "task.remove"; task: string; bytes: number; reason: "policy" | "keep-bytes" }
  | { action: "task.archive"; task: string }
  | {
      action: "branch.delete";
      task: string;
      source: string;
      sourcePath: string;
      branch: string;
      commit: string;
    }
  | { action: "snapshot.drop"; task: string; source: string; sourcePath: string; ref: string; commit: string }
  | { action: "run.drop"; run: string; paths: readonly string[]; bytes: number }
  | { action: "share.drop"; store: string; path: string; bytes: number };

export type GcSkip =
  | {
      task: string;
      reason: "leased" | "running" | "snapshot-kept" | "not-merged";
      detail?: string;
      /** The leg a `not-merged` skip is about (its branch is `detail`). */
      source?: string;
    }
  | { run: string; reason: "settling"; detail?: string };

export interface GcPlan {
  actions: GcAction[];
  skipped: GcSkip[];
  /** Bytes the plan frees (worktrees and run output; records and refs are not counted). */
  bytes: number;
}

const ageOf = (r: TaskRecord, now: number) => now - Date.parse(r.updatedAt);

/**
 * Whether a task record may go to the archive as it is: the task is closed and none of its legs
 * was snapshotted (`restore` reads such a record, so it stays). The plan decides by it and the
 * apply step checks it again, under the task's lease lock.
 *
 * @example
 * ```ts
 * archivable({ ...record, state: "closed", legs: [{ ...leg, state: "removed" }] }); // true
 * ```
 */
export function archivable(r: TaskRecord): boolean {
  return r.state === "closed" && !r.legs.some((l) => l.state === "snapshotted");
}

/** How the plan judges a task at `now` under `policy`. */
interface GcJudge {
  now: number;
  policy: GcPolicy;
  /** A live lease is held on it. */
  leased: (t: GcTaskFacts) => boolean;
  /** A detached run is still at work in it. */
  running: (t: GcTaskFacts) => boolean;
  /** Leased or running: gc leaves it alone. */
  live: (t: GcTaskFacts) => boolean;
  /** Its state is one of the policy's and it is old enough. */
  eligible: (t: GcTaskFacts) => boolean;
}

/** The plan being made: its actions and skips, and the tasks it removes so far. */
interface GcDraft {
  actions: GcAction[];
  skipped: GcSkip[];
  removing: Set<string>;
}

function judge(now: number, policy: GcPolicy): GcJudge {
  const leased = (t: GcTaskFacts) => t.lease !== null && !isExpired(t.lease, now);
  const running = (t: GcTaskFacts) => (t.runs?.length ?? 0) > 0;
  return {
    now,
    policy,
    leased,
    running,
    live: (t) => leased(t) || running(t),
    eligible: (t) => policy.states.includes(t.record.state) && ageOf(t.record, now) >= policy.olderThanMs,
  };
}

/** `task.remove` for each eligible task with worktrees on disk; a leased or running one is skipped. */
function planPolicyRemovals(j: GcJudge, tasks: readonly GcTaskFacts[], d: GcDraft): void {
  for (const t of tasks) {
    const id = t.record.taskId;
    if (j.leased(t)) {
      if (j.eligible(t) || t.present.length > 0) d.skipped.push({ task: id, reason: "leased" });
      continue;
    }
    if (j.running(t)) {
      // Said only where the policy would have acted: a run in a young task is no news.
      if (j.eligible(t) || (j.policy.keepBytes !== undefined && t.present.length > 0))
        d.skipped.push({ task: id, reason: "running", detail: (t.runs ?? []).join(", ") });
      continue;
    }
    if (j.eligible(t) && t.present.length > 0) {
      d.actions.push({ action: "task.remove", task: id, bytes: t.bytes, reason: "policy" });
      d.removing.add(id);
    }
  }
}

/** `keepBytes`: more tasks with worktrees removed, oldest first, until what stays fits. */
function planKeepBytes(j: GcJudge, tasks: readonly GcTaskFacts[], d: GcDraft): void {
  const keepBytes = j.policy.keepBytes;
  if (keepBytes === undefined) return;
  let kept = tasks.filter((t) => !d.removing.has(t.record.taskId)).reduce((n, t) => n + t.bytes, 0);
  const oldestFirst = tasks
    .filter((t) => !d.removing.has(t.record.taskId) && !j.live(t) && t.present.length > 0)
    .sort((a, b) => Date.parse(a.record.updatedAt) - Date.parse(b.record.updatedAt));
  for (const t of oldestFirst) {
    if (kept <= keepBytes) break;
    d.actions.push({ action: "task.remove", task: t.record.taskId, bytes: t.bytes, reason: "keep-bytes" });
    d.removing.add(t.record.taskId);
    kept -= t.bytes;
  }
}

/** `task.archive` of a closed task with nothing left on disk, and with pruneMerged its merged branches. */
function planArchive(j: GcJudge, t: GcTaskFacts, d: GcDraft): void {
  const r = t.record;
  if (!archivable(r)) {
    d.skipped.push({ task: r.taskId, reason: "snapshot-kept", detail: "restore reads its record" });
    return;
  }
  d.actions.push({ action: "task.archive", task: r.taskId });
  if (!j.policy.pruneMerged) return;
  for (const l of r.legs) {
    if (t.merged.includes(l.source)) {
      d.actions.push({
        action: "branch.delete",
        task: r.taskId,
        source: l.source,
        sourcePath: l.sourcePath,
        branch: l.branch,
        commit: l.head,
      });
    } else if (!t.gone?.includes(l.source))
      d.skipped.push({ task: r.taskId, reason: "not-merged", detail: l.branch, source: l.source });
  }
}

/** `snapshot.drop` for each snapshot whose leg is active again and on disk. */
function planSnapshotDrops(t: GcTaskFacts, d: GcDraft): void {
  const r = t.record;
  for (const a of r.artifacts) {
    if (a.kind !== "snapshot" || !a.commit || !a.source) continue;
    const leg = r.legs.find((l) => l.source === a.source);
    if (leg?.state === "active" && t.present.includes(leg.source)) {
      d.actions.push({
        action: "snapshot.drop",
        task: r.taskId,
        source: leg.source,
        sourcePath: leg.sourcePath,
        ref: a.ref,
        commit: a.commit,
      });
    }
  }
}

/** What happens to each task's record and snapshot refs (a live task's: nothing). */
function planRecords(j: GcJudge, tasks: readonly GcTaskFacts[], d: GcDraft): void {
  for (const t of tasks) {
    const r = t.record;
    if (j.live(t)) continue;
    // A record is archived only when nothing of it is left to restore or remove.
    if (r.state === "closed" && j.eligible(t) && t.present.length === 0) planArchive(j, t, d);
    else if (!d.removing.has(r.taskId)) planSnapshotDrops(t, d);
  }
}

/** `run.drop` for each finished run old enough; one its monitor still settles is skipped. */
function planRuns(j: GcJudge, runs: readonly GcRunFacts[], d: GcDraft): void {
  for (const run of runs) {
    if (j.now - run.atMs < j.policy.olderThanMs) continue;
    if (run.settling)
      d.skipped.push({ run: run.runId, reason: "settling", detail: "its monitor is still settling it" });
    else if (run.finished)
      d.actions.push({ action: "run.drop", run: run.runId, paths: run.paths, bytes: run.bytes });
  }
}

/** `share.drop` for each store no leg links into once the removed tasks are gone. */
function planStores(stores: readonly GcStoreFacts[], d: GcDraft): void {
  for (const st of stores) {
    if (st.users.every((u) => u.task !== null && d.removing.has(u.task))) {
      d.actions.push({ action: "share.drop", store: st.key, path: st.path, bytes: st.bytes });
    }
  }
}

/** The plan; `now` is epoch ms. */
export function planGc(
  now: number,
  policy: GcPolicy,
  tasks: readonly GcTaskFacts[],
  runs: readonly GcRunFacts[],
  stores: readonly GcStoreFacts[] = [],
): GcPlan {
  const j = judge(now, policy);
  const d: GcDraft = { actions: [], skipped: [], removing: new Set() };
  planPolicyRemovals(j, tasks, d);
  planKeepBytes(j, tasks, d);
  planRecords(j, tasks, d);
  planRuns(j, runs, d);
  planStores(stores, d);
  const bytes = d.actions.reduce(
    (n, a) =>
      n + (a.action === "task.remove" || a.action === "run.drop" || a.action === "share.drop" ? a.bytes : 0),
    0,
  );
  return { actions: d.actions, skipped: d.skipped, bytes };
}

/**
 * How the apply step runs a plan: an action on its own (`one`, an index into `actions`), or a
 * batch of up to `size` consecutive `task.archive` actions (`archive`) and then the
 * `branch.delete` actions of those tasks (`after`), which the plan puts right after their task's
 * archive. Every action is in exactly one step, and the steps keep the plan's order otherwise.
 *
 * @example
 * ```ts
 * gcSteps([archive("t1"), branchDelete("t1"), archive("t2"), runDrop("r1")], 64);
 * // [{ archive: [0, 2], after: [1] }, { one: 3 }]
 * ```
 */
export function gcSteps(
  actions: readonly GcAction[],
  size: number,
): ({ one: number } | { archive: number[]; after: number[] })[] {
  const steps: ({ one: number } | { archive: number[]; after: number[] })[] = [];
  let open: { archive: number[]; after: number[] } | null = null;
  const inOpen = new Set<string>();
  for (const [i, a] of actions.entries()) {
    if (a.action === "task.archive") {
      if (open === null || open.archive.length >= size) {
        open = { archive: [], after: [] };
        steps.push(open);
        inOpen.clear();
      }
      open.archive.push(i);
      inOpen.add(a.task);
    } else if (open !== null && a.action === "branch.delete" && inOpen.has(a.task)) {
      open.after.push(i);
    } else {
      open = null;
      steps.push({ one: i });
    }
  }
  return steps;
}
