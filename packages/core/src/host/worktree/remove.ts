import type { Ports } from "../../ports.ts";
import type { Artifact, Leg, TaskRecord } from "../../schema/task.ts";
import { taskDirPath } from "../../state_paths.ts";
import { validateRequestNames } from "../../worktree/_deps.ts";
import { legContainer } from "../../worktree/ours.ts";
import {
  planRemove,
  type RemovePlan,
  type RunsAtWork,
  removesLeg,
  runInUseError,
} from "../../worktree/plan_remove.ts";
import type { WorktreeEntry } from "../../worktree/porcelain.ts";
import { snapshotRef, taskStateOf } from "../../worktree/record.ts";
import { checkTaskRef } from "../../worktree/ref_guard.ts";
import {
  type LegFacts,
  legRefusals,
  parseAllow,
  REFUSALS,
  type Refusal,
  type RefusalReason,
  standingRefusals,
} from "../../worktree/refusals.ts";
import { type LifecyclePlan, planHooks } from "../lifecycle/plan_hooks.ts";
import { releaseTaskPorts } from "../lifecycle/port_registry.ts";
import { hookFailureLine, type RunHooksResult, runHooks } from "../lifecycle/run_hooks.ts";
import type { OnProgress } from "../progress.ts";
import { activeTaskRuns } from "../runs/active.ts";
import { syncTaskSandboxes } from "../sandbox/sync.ts";
import { type Lease, testPause } from "./_deps.ts";
import { linkedWorktreeFromFiles, listWorktrees } from "./facts.ts";
import { isFenced, repoStep } from "./fence.ts";
import { git } from "./git.ts";
import { changedOverlay, gatherLegFacts, headOf, reflogOnlyCommits } from "./leg_facts.ts";
import { makeSnapshot, ownRefsOf, type Snapshot, worktreeTree } from "./snapshot.ts";
import { writeTask } from "./store.ts";
import { checkTaskLease, requireTask, selectLegs, withTaskLease } from "./task.ts";
import { openWorkspace, repoLockDir, type WorktreeWorkspace } from "./workspace.ts";

/** The task helpers moved to task.ts; re-exported here for callers that still import them from remove.ts. */
export { checkTaskLease, requireTask, selectLegs, withTaskLease };

/** Input of {@link removeTask}. */
export interface RemoveTaskOptions {
  root: string;
  taskId: string;
  /** Only these legs (source names); default every leg. */
  sources?: readonly string[];
  /** Refusals to override (`dirty`, `overlay-changed`, `skip-worktree`, `unreachable`, `reflog`, `foreign-lock`, `branch-mismatch`, `branch-missing`, `submodule-commits`, `nested-work`). */
  allow?: readonly string[];
  /** Save local work under refs/ariel/snapshots/<task>/<leg> before removing. */
  snapshot?: boolean;
  dryRun?: boolean;
  /** Called as each leg is being removed (or snapshotted). */
  onProgress?: OnProgress;
  /**
   * The detached run whose own worktree this removal settles (its monitor's call): not counted
   * among the task's active runs, which otherwise make the removal ERR_LEASE_HELD.
   */
  exceptRun?: string;
  /** Wait up to this long for the task's lease when another process holds it (default 0). */
  leaseWaitMs?: number;
  /** --no-hooks: run no pre-remove hook. */
  noHooks?: boolean;
}

/** What happened to one leg. */
export interface RemoveLegResult {
  source: string;
  worktreePath: string;
  outcome: "removed" | "kept" | "snapshotted";
  /** The first standing refusal of this leg (then nothing was changed anywhere). */
  refusal?: { code: string; reason: string; message: string; items?: string[] };
  /** Snapshot ref and commit when snapshotted. */
  snapshot?: { ref: string; commit: string };
}

export interface RemoveTaskResult {
  record: TaskRecord;
  plan: RemovePlan;
  results: RemoveLegResult[];
  /** True when a leg refused: nothing was changed. */
  refused: boolean;
  /** What the pre-remove hooks did (a failed one refuses the removal: `refused`). */
  hooks?: RunHooksResult;
  /** A dry run that nothing refuses: the pre-remove hooks it would run. */
  lifecycle?: LifecyclePlan;
}

/**
 * The detached runs at work in the task, from their records, for the plan ({@link planRemove}'s
 * `work`); none read when it removes no leg.
 */
function runsAtWork(root: string, legs: readonly Leg[], taskId: string, exceptRun?: string): RunsAtWork {
  const runs = legs.some(removesLeg) ? activeTaskRuns(root, taskId) : [];
  return exceptRun === undefined ? { runs } : { runs, exceptRun };
}

/** Throw the plan's refusal of a run at work in a leg it acts on (ERR_LEASE_HELD, exit 75), if any. */
function refuseInUse(plan: RemovePlan): void {
  if (plan.inUse) throw runInUseError(plan.taskId, plan.inUse);
}

async function gatherAll(ws: WorktreeWorkspace, legs: readonly Leg[]): Promise<Map<string, LegFacts>> {
  const lists = new Map<string, WorktreeEntry[]>();
  const facts = new Map<string, LegFacts>();
  for (const leg of legs) {
    if (leg.state !== "active" && leg.state !== "unknown") continue;
    // The leg's own entry from git's admin files when they answer exactly; else git's list.
    const common = await repoLockDir(ws.ports, leg.sourcePath).catch(() => null);
    const linked = common ? await linkedWorktreeFromFiles(ws.ports.fs, common, leg.worktreePath) : undefined;
    if (linked) {
      facts.set(leg.source, await gatherLegFacts(ws.ports, legContainer(leg, ws), leg, { linked }));
      continue;
    }
    let wts = lists.get(leg.sourcePath);
    if (!wts) {
      wts = await listWorktrees(ws.ports, leg.sourcePath);
      lists.set(leg.sourcePath, wts);
    }
    facts.set(leg.source, await gatherLegFacts(ws.ports, legContainer(leg, ws), leg, wts));
  }
  return facts;
}

/** A refusal `--snapshot` answers (the local work is saved first); not a lease, a lock, a branch. */
const snapshotAnswers = (reason: string): boolean =>
  Object.hasOwn(REFUSALS, reason) && REFUSALS[reason as RefusalReason].snapshot;

function results(plan: RemovePlan, record: TaskRecord): RemoveLegResult[] {
  return plan.legs.map((l) => {
    const leg = record.legs.find((x) => x.source === l.source);
    // The refusal that decides the next step: one a snapshot does not answer when there is one
    // (a leg both dirty and holding a nested repository's work is not dealt with by --snapshot).
    const first = l.standing.find((r) => !snapshotAnswers(r.reason)) ?? l.standing[0];
    const outcome =
      l.action === "skip" ? (leg?.state === "snapshotted" ? "snapshotted" : "removed") : ("kept" as const);
    return {
      source: l.source,
      worktreePath: l.worktreePath,
      outcome,
      ...(first
        ? {
            refusal: {
              code: first.code,
              reason: first.reason,
              message: first.message,
              ...(first.items ? { items: first.items } : {}),
            },
          }
        : {}),
    };
  });
}

/**
 * Remove a task's worktrees, keeping every branch. Every selected leg is checked first (dirty,
 * overlay changed, modified skip-worktree files, unreachable HEAD commits, commits only HEAD's
 * reflog holds, submodule commits, foreign lock, not ours, branch mismatch or deleted, main
 * worktree); if any refusal stands, nothing at all is changed and
 * the result says which leg refused and why (`refused: true`; the CLI exits 3). With `snapshot`
 * each leg's local work is first saved under `refs/ariel/snapshots/<task>/<leg>`.
 *
 * @example
 * ```ts
 * const r = await removeTask(hostPorts(), { root: "/w", taskId: "fix-login", snapshot: true });
 * if (r.refused) for (const leg of r.results) if (leg.refusal) console.error(leg.source, leg.refusal.message);
 * ```
 */
export async function removeTask(ports: Ports, options: RemoveTaskOptions): Promise<RemoveTaskResult> {
  validateRequestNames(options);
  const allow = parseAllow(options.allow ?? []);
  const snapshot = options.snapshot === true;
  const ws = await openWorkspace(ports, options.root);
  // What a sandboxed run committed is on the task's branches before the task is looked at.
  if (!options.dryRun) await syncTaskSandboxes(ws.root, options.taskId);
  const decide = async () => {
    const record = await requireTask(ws, options.taskId);
    const legs = selectLegs(record, options.sources);
    const facts = await gatherAll(ws, legs);
    const work = runsAtWork(ws.root, legs, record.taskId, options.exceptRun);
    const plan = planRemove(record, legs, facts, allow, snapshot, work);
    // The snapshot refs it would write are the task's own, whatever the record's paths say.
    for (const l of plan.legs)
      if (l.snapshot) checkTaskRef(record, snapshotRef(record.taskId, l.worktreePath));
    return { record, plan };
  };
  if (options.dryRun) {
    // The real run's refusals in its order, the lease only looked at: a held lease, then a
    // detached run at work in a leg it would act on, then the legs' own refusals.
    await checkTaskLease(ports, ws, options.taskId);
    const { record, plan } = await decide();
    refuseInUse(plan);
    const lifecycle = await planPreRemove(ws, record, plan, options);
    return {
      record,
      plan,
      results: results(plan, record),
      refused: plan.refused,
      ...(lifecycle ? { lifecycle } : {}),
    };
  }
  const leaseWait = options.leaseWaitMs ? { waitMs: options.leaseWaitMs } : {};
  return withTaskLease(
    ports,
    ws,
    options.taskId,
    async (lease) => {
      const { record, plan } = await decide();
      // Under the lease (a new detached run of the task takes it to start): nothing is removed
      // under a command that still runs in the worktree.
      refuseInUse(plan);
      if (plan.refused || plan.legs.every((l) => l.action === "skip")) {
        return { record, plan, results: results(plan, record), refused: plan.refused };
      }
      const hooks = await preRemove(ws, record, plan, options);
      if (hooks && hooks.failed.length > 0) {
        return { record, plan, results: hookRefusals(plan, record, hooks), refused: true, hooks };
      }
      // A hook may have made or changed files: the legs are checked again before anything goes.
      const again = hooks ? await decide() : { record, plan };
      if (again.plan.refused) {
        return {
          ...again,
          results: results(again.plan, again.record),
          refused: true,
          ...(hooks ? { hooks } : {}),
        };
      }
      const done = await applyRemove(ws, { ...again, allow }, lease, options.onProgress);
      if (done.record.state === "closed")
        await releaseTaskPorts(ports, { hash: ws.hash, tasks: [record.taskId] });
      return { ...done, ...(hooks ? { hooks } : {}) };
    },
    leaseWait,
  );
}

/** The legs whose pre-remove hooks run: those the plan removes (their worktrees are there). */
function preRemoveLegs(record: TaskRecord, plan: RemovePlan): Leg[] {
  const removing = new Set(plan.legs.filter((l) => l.action === "remove").map((l) => l.source));
  return record.legs.filter((l) => removing.has(l.source));
}

/** A dry run's pre-remove hooks: those {@link preRemove} would run, when nothing refuses the removal. */
async function planPreRemove(
  ws: WorktreeWorkspace,
  record: TaskRecord,
  plan: RemovePlan,
  options: RemoveTaskOptions,
): Promise<LifecyclePlan | undefined> {
  if (plan.refused) return undefined;
  const hooks = await planHooks(ws.ports, {
    root: ws.root,
    event: "pre-remove",
    legs: preRemoveLegs(record, plan),
    ...(options.noHooks ? { skip: true } : {}),
  });
  return { ports: [], portRange: ws.portRange, ...hooks };
}

/** Run the pre-remove hooks of the legs the plan removes (their worktrees are there); null with noHooks. */
async function preRemove(
  ws: WorktreeWorkspace,
  record: TaskRecord,
  plan: RemovePlan,
  options: RemoveTaskOptions,
): Promise<RunHooksResult | null> {
  if (options.noHooks) return null;
  const legs = preRemoveLegs(record, plan);
  if (legs.length === 0) return null;
  return runHooks(ws.ports, {
    root: ws.root,
    hash: ws.hash,
    record,
    event: "pre-remove",
    legs,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}

/** The results of a removal a failed pre-remove hook refused: every leg kept, the failed ones say why. */
function hookRefusals(plan: RemovePlan, record: TaskRecord, hooks: RunHooksResult): RemoveLegResult[] {
  return results(plan, record).map((r) => {
    const f = hooks.failed.find((x) => x.source === r.source);
    if (!f) return r.outcome === "kept" ? r : { ...r, outcome: "kept" as const };
    return {
      ...r,
      outcome: "kept" as const,
      refusal: {
        code: "ERR_HOOK_REFUSED",
        reason: "pre-remove",
        message: `${hookFailureLine(f)}; nothing was removed`,
      },
    };
  });
}

/** Remove git's admin entry of a worktree whose directory is gone (if git still lists it). */
async function dropAdminEntry(
  ports: Ports,
  lease: Lease,
  source: string,
  path: string,
  taskId: string,
): Promise<void> {
  const common = await repoLockDir(ports, source);
  await repoStep(ports, lease, common, `remove ${taskId}`, async () => {
    const listed = (await listWorktrees(ports, source)).some((w) => w.path === path);
    if (!listed) return;
    // --force twice: a locked entry goes too (one git call instead of unlock + remove).
    await git(ports, source, ["worktree", "remove", "--force", "--force", path]);
  });
}

/**
 * Save all local work of a leg's worktree under `refs/ariel/snapshots/<task>/<leg>` (the worktree
 * is not touched) and put the snapshot into `artifacts` (replacing an older one of that ref).
 */
export async function snapshotLeg(
  ports: Ports,
  lease: Lease,
  taskId: string,
  leg: Leg,
  artifacts: Artifact[],
): Promise<{ ref: string; commit: string; parent: string | null }> {
  const ref = snapshotRef(taskId, leg.worktreePath); // checked by checkTaskRef when planned
  const changed = await changedOverlay(ports, leg.worktreePath, leg);
  // Every tip of what only HEAD's reflog holds (no cap): they become parents of the snapshot.
  // (The previous snapshot at `ref` becomes a parent, but its own kept commits are named
  // again: restore writes back only the trailers of the snapshot it applies.)
  const kept = (await reflogOnlyCommits(ports, leg.worktreePath, undefined, ref)).tips;
  // The worktree's own refs go with it too: their names and objects, for restore.
  const ownRefs = await ownRefsOf(ports, leg.worktreePath);
  const snap = await lease.fenced(() =>
    makeSnapshot(
      ports,
      leg.worktreePath,
      ref,
      { all: leg.overlay.map((o) => o.path), changed },
      `ariel snapshot of task ${taskId} (${leg.source})`,
      kept,
      ownRefs,
    ),
  );
  const art: Artifact = {
    kind: "snapshot",
    ref,
    source: leg.source,
    commit: snap.commit,
    createdAt: new Date(ports.clock.now()).toISOString(),
  };
  const idx = artifacts.findIndex((a) => a.kind === "snapshot" && a.ref === ref);
  if (idx >= 0) artifacts[idx] = art;
  else artifacts.push(art);
  return { ref, commit: snap.commit, parent: snap.parent };
}

/**
 * The leg as the plan found it, checked again under the repository lock just before git deletes
 * it: work written since (a file, an edit, a commit) is no longer lost by the forced removal.
 * A leg without a snapshot must have no refusal that stands now; a snapshotted one must still
 * be what its snapshot holds (same HEAD, same tree of local work). Null when it is; else the
 * refusal, and the leg is kept.
 */
async function recheckLeg(
  ws: WorktreeWorkspace,
  record: TaskRecord,
  leg: Leg,
  allow: ReadonlySet<RefusalReason>,
  snap: Snapshot | null,
): Promise<Refusal | null> {
  if (snap === null) {
    const facts = (await gatherAll(ws, [leg])).get(leg.source);
    if (!facts) return null;
    const now = standingRefusals(legRefusals(record.taskId, facts), allow, false)[0];
    return now ? { ...now, message: `${now.message} (written while remove ran; kept)` } : null;
  }
  const ports = ws.ports;
  const head = (await headOf(ports, leg.worktreePath)).head;
  const changed = await changedOverlay(ports, leg.worktreePath, leg);
  const all = leg.overlay.map((o) => o.path);
  const tree = await worktreeTree(ports, leg.worktreePath, { all, changed }, head ?? snap.parent);
  const saved = (await git(ports, leg.worktreePath, ["rev-parse", `${snap.commit}^{tree}`])).trim();
  if ((head === null || head === snap.parent) && tree === saved) return null;
  return {
    reason: "dirty",
    code: "ERR_DIRTY",
    message: `${leg.worktreePath} changed after its snapshot ${snap.ref} was taken (written while remove ran; kept)`,
  };
}

/** The plan with leg `i` refused by `refusal` (found when it was about to be removed). */
function refusedLate(plan: RemovePlan, i: number, refusal: Refusal): RemovePlan {
  const legs = plan.legs.map((l, k) =>
    k === i
      ? { ...l, action: "refuse" as const, refusals: [...l.refusals, refusal], standing: [refusal] }
      : l,
  );
  return { ...plan, legs, refused: true };
}

async function applyRemove(
  ws: WorktreeWorkspace,
  decided: { record: TaskRecord; plan: RemovePlan; allow: ReadonlySet<RefusalReason> },
  lease: Lease,
  onProgress?: OnProgress,
): Promise<RemoveTaskResult> {
  const { record, allow } = decided;
  let plan = decided.plan;
  const ports = ws.ports;
  let current = await writeTask(ports, { ...record, state: "cleaning" }, record.version, lease);
  const legs = current.legs.map((l) => ({ ...l }));
  const artifacts: Artifact[] = [...current.artifacts];
  const out = results(plan, record);
  let failure: unknown = null;
  const total = plan.legs.filter((l) => l.action !== "skip").length;
  let index = 0;
  for (const [i, step] of plan.legs.entries()) {
    const leg = legs.find((l) => l.source === step.source)!;
    const res = out[i]!;
    if (step.action === "skip") continue;
    onProgress?.({
      index: ++index,
      total,
      source: step.source,
      action: step.snapshot ? "snapshotting and removing worktree" : "removing worktree",
    });
    await testPause("remove:before-leg");
    try {
      if (step.action === "forget" || (await ports.fs.lstat(leg.worktreePath)) === null) {
        // The directory is gone: drop git's admin entry for it (else the branch stays "checked
        // out" there and restore could not use it), nothing else.
        await dropAdminEntry(ports, lease, leg.sourcePath, leg.worktreePath, record.taskId);
        leg.state = "removed";
        res.outcome = "removed";
        continue;
      }
      // Null when its branch was deleted (--allow branch-missing): the record keeps the last head.
      let head = (await headOf(ports, leg.worktreePath)).head;
      let snapped: Snapshot | null = null;
      if (step.snapshot) {
        const snap = await snapshotLeg(ports, lease, record.taskId, leg, artifacts);
        head ??= snap.parent;
        snapped = snap;
        res.snapshot = { ref: snap.ref, commit: snap.commit };
        await testPause("remove:after-snapshot"); // the snapshot ref is written, the worktree still there
      }
      const common = await repoLockDir(ports, leg.sourcePath);
      const late = await repoStep(ports, lease, common, `remove ${record.taskId}`, async () => {
        const why = await recheckLeg(ws, record, leg, allow, snapped);
        if (why !== null) return why;
        // --force twice removes the worktree locked (the plan checked the lock is this task's,
        // and the leg was checked again just now, under the repository lock).
        await git(ports, leg.sourcePath, ["worktree", "remove", "--force", "--force", leg.worktreePath]);
        return null;
      });
      if (late !== null) {
        // New work: this leg stays active (and locked, never unlocked), the rest is not tried.
        plan = refusedLate(plan, i, late);
        res.refusal = { code: late.code, reason: late.reason, message: late.message };
        break;
      }
      if (head !== null) leg.head = head;
      leg.state = step.snapshot ? "snapshotted" : "removed";
      res.outcome = step.snapshot ? "snapshotted" : "removed";
      await testPause("remove:after-leg"); // this leg's worktree is gone, the record not written
    } catch (e) {
      // Fenced out: the task is another process's now. Stop; write and delete nothing.
      if (isFenced(e)) throw e;
      leg.state = "unknown";
      failure = e;
      break;
    }
  }
  await testPause("remove:before-record"); // a test kills it here (snapshots made, worktrees gone)
  const taskDir = taskDirPath(ws.worktreeRoot, record.taskId);
  // The last record and the task directory in one fenced step (one take of the lease lock).
  current = await lease.fenced(async () => {
    const state = taskStateOf(legs);
    // A closed task gives its ports back (right after this write): its record names none.
    const { ports: _given, ...kept } = current;
    const written = await writeTask(
      ports,
      { ...(state === "closed" ? kept : current), legs, artifacts, state },
      current.version,
      lease,
    );
    // Never recursive: a task directory that is not empty keeps what is in it.
    await ports.fs.rmdir(taskDir).catch(() => {});
    return written;
  });
  if (failure) throw failure;
  return { record: current, plan, results: out, refused: plan.refused };
}
