import { compareBytewise } from "../discovery/compare.ts";
import type { LandRecoveryStep } from "../land/recover.ts";
import { isTaskId } from "../names.ts";
import { isWithin } from "../paths.ts";
import { isLockOf, taskBranch, taskOfBranch, taskOfLock } from "../worktree/ours.ts";
import type { DirFact, ReconcileFacts, RepoFact, TaskFact, WorktreeFact } from "./facts.ts";

/**
 * The pure planner of `ariel-worktree reconcile`: from what is on disk and in git, the changes that
 * bring records and git back in line after a crash, and what is reported but left alone.
 *
 * Ours: a worktree locked `ariel:<task>`, or lying under the worktree root and locked
 * `initializing` or not locked. Anything else (another lock reason, outside the root) is not
 * ours and is never changed. Nothing holding work is removed: a half-made worktree with local
 * changes is kept (and relocked), a branch whose tip no other ref reaches is kept.
 */

export type ReconcileStep =
  /** A lock file of ariel's left by a dead process (task "" for a repository lock). */
  | { fix: "remove-stale-lock"; task: string; path: string }
  /** A half-made worktree of ours, without record and without work: unlock, remove. */
  | {
      fix: "remove-worktree";
      task: string;
      repo: string;
      path: string;
      branch: string | null;
      locked: string | null;
    }
  /** An admin entry of ours whose directory is gone: unlock, delete the admin entry. */
  | { fix: "prune"; task: string; repo: string; path: string; adminDir: string }
  /** A worktree of ours locked `initializing` (a stale lock) or not locked: lock `ariel:<task>`. */
  | { fix: "relock"; task: string; repo: string; path: string; from: string | null }
  /** The `ariel/<task>` branch a crashed add made, when no commit would be lost. */
  | { fix: "delete-branch"; task: string; repo: string; branch: string; tip: string }
  /** A leftover directory without an admin entry and without content (or only a `.git` file). */
  | { fix: "remove-dir"; task: string; path: string }
  /**
   * A record leg whose worktree is gone: state `unknown` (`removed` when the task was cleaning;
   * `snapshotted`, with `snapshot`, when its snapshot ref holds a commit the record does not know).
   */
  | {
      fix: "mark-leg";
      task: string;
      source: string;
      path: string;
      from: string;
      to: "unknown" | "removed" | "snapshotted";
      taskState: string;
      /** The snapshot ref and commit to record with a `snapshotted` leg. */
      snapshot?: { ref: string; commit: string };
    }
  /**
   * A `cleaning` record (a `remove` that died) none of whose legs needs marking: the task's state
   * again from its legs (`active` while a leg is on disk).
   */
  | { fix: "reopen"; task: string; from: string; taskState: string }
  /** Give back the ports of a task that has no record (a crashed add) or is closed. */
  | { fix: "release-ports"; task: string; ports: number[] }
  /** A land that a crash interrupted, finished forward (docs/lifecycle.md, Land). */
  | LandRecoveryStep
  /**
   * A sandboxed run that ended with its work not home (its monitor or ariel-spawn killed before
   * or during the sync): the sync finished (docs/sandbox.md, The sync). `task` is "" in place.
   */
  | { fix: "finish-sandbox"; task: string; path: string; run: string };

export type ReconcileFix = ReconcileStep["fix"];

/** Something reported and left alone. */
export interface ReconcileNote {
  code:
    | "W_NOT_OURS"
    | "W_KEPT_WORK"
    | "W_KEPT_BRANCH"
    | "W_KEPT_DIR"
    | "W_RECORD_UNREADABLE"
    | "W_LAND_STUCK"
    | "W_SANDBOX_KEPT";
  message: string;
  task?: string;
  path?: string;
  [key: string]: unknown;
}

export interface ReconcilePlan {
  steps: ReconcileStep[];
  notes: ReconcileNote[];
}

const FIX_ORDER: readonly ReconcileFix[] = [
  "remove-stale-lock",
  "remove-worktree",
  "prune",
  "relock",
  "delete-branch",
  "remove-dir",
  "mark-leg",
  "reopen",
  "release-ports",
];

/** The task a path under the worktree root belongs to (its first component), if valid. */
export function taskOfPath(worktreeRoot: string, p: string): string | null {
  if (!isWithin(worktreeRoot, p) || p === worktreeRoot) return null;
  const first = p.slice(worktreeRoot.replace(/\/$/, "").length + 1).split("/")[0] ?? "";
  return isTaskId(first) ? first : null;
}

/**
 * Plan a reconcile. Deterministic: steps sorted by task, then fix kind, then path; running it on
 * the facts after the steps were applied gives an empty plan.
 *
 * @example
 * ```ts
 * const { steps, notes } = planReconcile(facts);
 * for (const s of steps) console.log(s.fix, s.task);
 * ```
 */
export function planReconcile(facts: ReconcileFacts): ReconcilePlan {
  const root = facts.worktreeRoot;
  const steps: ReconcileStep[] = [];
  const notes: ReconcileNote[] = [];
  const tasks = new Map<string, TaskFact>(facts.tasks.map((t) => [t.taskId, t]));
  const recordPaths = new Map<string, string>();
  for (const t of facts.tasks)
    for (const leg of t.record?.legs ?? []) recordPaths.set(leg.worktreePath, t.taskId);
  const removed = new Set<string>();
  const noted = new Set<string>();
  const unreadable = (task: string): boolean => {
    const t = tasks.get(task);
    if (!t?.problem) return false;
    if (!noted.has(task)) {
      noted.add(task);
      notes.push({
        code: "W_RECORD_UNREADABLE",
        message: `task ${task}: record not readable, left alone (${t.problem})`,
        task,
      });
    }
    return true;
  };

  for (const l of facts.staleLocks ?? [])
    steps.push({ fix: "remove-stale-lock", task: l.task ?? "", path: l.path });
  for (const p of facts.portLeases ?? []) {
    const t = tasks.get(p.task);
    if (t?.problem) continue;
    if (!t?.record || t.record.state === "closed")
      steps.push({ fix: "release-ports", task: p.task, ports: p.ports });
  }

  const halfMadeBranches = new Set<string>();
  for (const repo of facts.repos) {
    for (const wt of repo.worktrees) {
      const lockTask = taskOfLock(wt.locked);
      const underRoot = isWithin(root, wt.path);
      if (lockTask === null && !underRoot) continue;
      if (wt.locked !== null && lockTask === null && wt.locked !== "initializing") {
        notes.push({
          code: "W_NOT_OURS",
          message: `worktree ${wt.path} is locked by someone else (${JSON.stringify(wt.locked)}); left alone`,
          path: wt.path,
          repo: repo.sourcePath,
        });
        continue;
      }
      const task = lockTask ?? taskOfPath(root, wt.path);
      if (task === null) {
        notes.push({
          code: "W_NOT_OURS",
          message: `worktree ${wt.path} under the worktree root names no task; left alone`,
          path: wt.path,
          repo: repo.sourcePath,
        });
        continue;
      }
      if (unreadable(task)) continue;
      if (!wt.exists) {
        if (wt.adminDir)
          steps.push({ fix: "prune", task, repo: repo.sourcePath, path: wt.path, adminDir: wt.adminDir });
        removed.add(wt.path);
        continue;
      }
      if (recordPaths.get(wt.path) === task) {
        if (!isLockOf(wt.locked, task)) {
          steps.push({ fix: "relock", task, repo: repo.sourcePath, path: wt.path, from: wt.locked });
        }
        continue;
      }
      planHalfMade(repo, wt, task, steps, notes, removed, halfMadeBranches);
    }
  }

  planBranches(facts, tasks, removed, halfMadeBranches, steps, notes);

  planRecords(facts, steps, notes);
  // Legs marked (removed, snapshotted, or unknown: gone from disk) are no longer active: their
  // empty task directory goes in this pass, not a second one.
  const settled = new Set<string>();
  for (const s of steps) {
    if (s.fix !== "mark-leg") continue;
    removed.add(s.path);
    settled.add(s.path);
  }
  planDirs(facts, tasks, steps, notes, removed, settled);

  steps.sort(
    (a, b) =>
      compareBytewise(a.task, b.task) ||
      FIX_ORDER.indexOf(a.fix) - FIX_ORDER.indexOf(b.fix) ||
      compareBytewise(stepKey(b), stepKey(a)) * (a.fix === "remove-dir" ? 1 : -1),
  );
  return { steps, notes };
}

/**
 * Branches of ours no worktree has checked out: a crashed add's branch, or one a task without a
 * record still leases, is deleted when another ref reaches its tip, else kept with a note.
 */
function planBranches(
  facts: ReconcileFacts,
  tasks: ReadonlyMap<string, TaskFact>,
  removed: ReadonlySet<string>,
  halfMadeBranches: ReadonlySet<string>,
  steps: ReconcileStep[],
  notes: ReconcileNote[],
): void {
  for (const repo of facts.repos) {
    for (const b of repo.branches) {
      const task = taskOfBranch(b.name);
      if (task === null) continue;
      const checkedOut = repo.worktrees.some(
        (w) => w.branch === `refs/heads/${b.name}` && !removed.has(w.path),
      );
      if (checkedOut) continue;
      const t = tasks.get(task);
      const crashedAdd = halfMadeBranches.has(`${repo.sourcePath}\0${b.name}`);
      const leaked = t !== undefined && t.record === null && !t.problem && t.leased;
      if (!crashedAdd && !leaked) continue;
      if (!b.reachableElsewhere) {
        notes.push({
          code: "W_KEPT_BRANCH",
          message: `branch ${b.name} in ${repo.sourcePath} holds commits no other ref reaches; kept`,
          task,
          branch: b.name,
          repo: repo.sourcePath,
        });
        continue;
      }
      steps.push({ fix: "delete-branch", task, repo: repo.sourcePath, branch: b.name, tip: b.tip });
    }
  }
}

function stepKey(s: ReconcileStep): string {
  if (s.fix === "delete-branch") return `${s.repo}\0${s.branch}`;
  return s.fix === "reopen" || s.fix === "release-ports" ? s.task : s.path;
}

function planHalfMade(
  repo: RepoFact,
  wt: WorktreeFact,
  task: string,
  steps: ReconcileStep[],
  notes: ReconcileNote[],
  removed: Set<string>,
  halfMadeBranches: Set<string>,
): void {
  const work = repo.work[wt.path];
  const submodules = work?.submoduleCommits ?? [];
  const reflog = work?.reflogOnly ?? [];
  if (
    !work ||
    work.changes.length > 0 ||
    work.unreachableHead ||
    submodules.length > 0 ||
    reflog.length > 0
  ) {
    notes.push({
      code: "W_KEPT_WORK",
      message: `half-made worktree ${wt.path} of task ${task} holds local work; kept`,
      task,
      path: wt.path,
      changes: work ? work.changes.slice(0, 20) : [],
      ...(work?.unreachableHead ? { unreachableHead: true } : {}),
      ...(submodules.length > 0 ? { submoduleCommits: submodules.slice(0, 20) } : {}),
      ...(reflog.length > 0 ? { reflogOnly: reflog.slice(0, 20) } : {}),
    });
    if (!isLockOf(wt.locked, task)) {
      steps.push({ fix: "relock", task, repo: repo.sourcePath, path: wt.path, from: wt.locked });
    }
    return;
  }
  const branch = wt.branch?.startsWith("refs/heads/") ? wt.branch.slice("refs/heads/".length) : null;
  steps.push({
    fix: "remove-worktree",
    task,
    repo: repo.sourcePath,
    path: wt.path,
    branch,
    locked: wt.locked,
  });
  removed.add(wt.path);
  if (branch === taskBranch(task)) halfMadeBranches.add(`${repo.sourcePath}\0${branch}`);
}

function planDirs(
  facts: ReconcileFacts,
  tasks: Map<string, TaskFact>,
  steps: ReconcileStep[],
  notes: ReconcileNote[],
  removed: Set<string>,
  settled: Set<string>,
): void {
  const registered = new Set<string>();
  for (const r of facts.repos) for (const w of r.worktrees) if (!removed.has(w.path)) registered.add(w.path);
  const gone = new Set<string>(removed);
  const dirs = [...facts.dirs].sort(
    (a: DirFact, b: DirFact) => b.depth - a.depth || compareBytewise(a.path, b.path),
  );
  const removing = new Set(steps.flatMap((s) => (s.fix === "remove-worktree" ? [s.path] : [])));
  for (const d of dirs) {
    const task = taskOfPath(facts.worktreeRoot, d.path);
    const t = task === null ? undefined : tasks.get(task);
    if (task === null || t === undefined || t.problem) continue;
    if (
      d.depth === 2 &&
      removed.has(d.path) &&
      !removing.has(d.path) &&
      d.entries.some((e) => e !== ".git")
    ) {
      // What a `git worktree remove` stopped half-way (its `.git` file already deleted) left:
      // restore needs the path free, and only the user may delete files.
      notes.push({
        code: "W_KEPT_DIR",
        message: `directory ${d.path} of task ${task} is no git worktree any more but holds files; kept (move it away before restore)`,
        task,
        path: d.path,
      });
      gone.delete(d.path);
      continue;
    }
    if (registered.has(d.path) || gone.has(d.path)) continue;
    if (t.record?.legs.some((l) => l.worktreePath === d.path)) continue; // planRecords reports it
    if (d.depth === 2) {
      if (d.entries.every((e) => e === ".git")) {
        steps.push({ fix: "remove-dir", task, path: d.path });
        gone.add(d.path);
      } else {
        notes.push({
          code: "W_KEPT_DIR",
          message: `directory ${d.path} of task ${task} is no git worktree but holds files; kept`,
          task,
          path: d.path,
        });
      }
      continue;
    }
    const children = d.entries.map((e) => `${d.path}/${e}`);
    const inRecord =
      t.record?.legs.some(
        (l) => isWithin(d.path, l.worktreePath) && l.state === "active" && !settled.has(l.worktreePath),
      ) ?? false;
    if (!inRecord && children.every((c) => gone.has(c))) {
      steps.push({ fix: "remove-dir", task, path: d.path });
      gone.add(d.path);
    }
  }
}

function planRecords(facts: ReconcileFacts, steps: ReconcileStep[], notes: ReconcileNote[]): void {
  const entries = new Map<string, WorktreeFact>();
  const repoOf = new Map<string, string>();
  for (const r of facts.repos) {
    for (const w of r.worktrees) {
      entries.set(w.path, w);
      repoOf.set(w.path, r.sourcePath);
    }
  }
  const dirs = new Set(facts.dirs.map((d) => d.path));
  for (const t of facts.tasks) {
    const rec = t.record;
    if (!rec || t.problem || rec.state === "closed") continue;
    const marks: {
      source: string;
      path: string;
      from: string;
      to: "unknown" | "removed" | "snapshotted";
      snapshot?: { ref: string; commit: string };
    }[] = [];
    for (const leg of rec.legs) {
      if (leg.state !== "active") continue;
      const e = entries.get(leg.worktreePath);
      if (e?.exists) {
        // A `remove --snapshot` that died after this leg's snapshot, before or during its
        // `git worktree remove`: finish the removal only when the snapshot holds everything the
        // worktree holds (restore brings it all back); otherwise the leg stays active.
        const snap = leg.snapshot;
        const repo = repoOf.get(leg.worktreePath);
        if (rec.state === "cleaning" && snap?.covers === true && snap.commit !== snap.recorded && repo) {
          steps.push({
            fix: "remove-worktree",
            task: t.taskId,
            repo,
            path: leg.worktreePath,
            branch: e.branch?.startsWith("refs/heads/") ? e.branch.slice("refs/heads/".length) : null,
            locked: e.locked,
          });
          marks.push({
            source: leg.source,
            path: leg.worktreePath,
            from: leg.state,
            to: "snapshotted",
            snapshot: { ref: snap.ref, commit: snap.commit },
          });
        }
        continue;
      }
      if (!e && dirs.has(leg.worktreePath)) {
        notes.push({
          code: "W_KEPT_DIR",
          message: `worktree ${leg.worktreePath} of task ${t.taskId} lost its git admin entry; kept (try git worktree repair)`,
          task: t.taskId,
          path: leg.worktreePath,
        });
        continue;
      }
      // A remove --snapshot that died between its snapshot and its record write: the snapshot
      // ref holds a commit the record does not know, and `restore` needs it recorded.
      const snap =
        rec.state === "cleaning" && leg.snapshot?.commit !== leg.snapshot?.recorded
          ? leg.snapshot
          : undefined;
      marks.push({
        source: leg.source,
        path: leg.worktreePath,
        from: leg.state,
        to: rec.state !== "cleaning" ? "unknown" : snap ? "snapshotted" : "removed",
        ...(snap ? { snapshot: { ref: snap.ref, commit: snap.commit } } : {}),
      });
    }
    const stillActive = rec.legs.filter((l) => l.state === "active").length - marks.length;
    // A `cleaning` record is a `remove` that died (reconcile holds the task's lease): the legs
    // still on disk stay active, and the task is active again, so a re-run of `remove` goes on.
    const cleaning = rec.state === "cleaning";
    if (marks.length === 0) {
      if (cleaning) {
        const unknown = rec.legs.some((l) => l.state === "unknown");
        const to = unknown ? "unknown" : stillActive > 0 ? "active" : "closed";
        steps.push({ fix: "reopen", task: t.taskId, from: rec.state, taskState: to });
      }
      continue;
    }
    const unknown = rec.legs.some((l) => l.state === "unknown");
    const taskState = !cleaning || unknown ? "unknown" : stillActive === 0 ? "closed" : "active";
    for (const m of marks) steps.push({ fix: "mark-leg", task: t.taskId, ...m, taskState });
  }
}
