import { ArielError, toArielError } from "../../errors.ts";
import { missingPorts } from "../../lifecycle/ports.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, OverlayEntry, TaskRecord } from "../../schema/task.ts";
import { shellWords } from "../../shell_words.ts";
import { validateRequestNames } from "../../worktree/_deps.ts";
import { lockReason } from "../../worktree/ours.ts";
import { taskStateOf } from "../../worktree/record.ts";
import { checkTaskRef } from "../../worktree/ref_guard.ts";
import { type LifecyclePlan, planLegsLifecycle } from "../lifecycle/plan_hooks.ts";
import { type RunHooksResult, runHooks } from "../lifecycle/run_hooks.ts";
import { ensureTaskPorts } from "../lifecycle/task_setup.ts";
import type { OnProgress } from "../progress.ts";
import { type Lease, testPause } from "./_deps.ts";
import { sparseCheckout } from "./add.ts";
import { resolveCommit } from "./facts.ts";
import { isFenced, repoStep } from "./fence.ts";
import { git, gitRaw } from "./git.ts";
import { copyOverlay, selectOverlay } from "./overlay.ts";
import {
  applySnapshot,
  keptCommits,
  keptRefs,
  restoreReflog,
  restoreRefs,
  snapshotPaths,
} from "./snapshot.ts";
import { writeTask } from "./store.ts";
import { checkTaskLease, requireTask, selectLegs, withTaskLease } from "./task.ts";
import { openWorkspace, repoLockDir, type WorktreeWorkspace } from "./workspace.ts";

/** Input of {@link restoreTask}. */
export interface RestoreTaskOptions {
  root: string;
  taskId: string;
  /** Only these legs (default: every removed or snapshotted leg). */
  sources?: readonly string[];
  dryRun?: boolean;
  /** Called as each leg is being made again. */
  onProgress?: OnProgress;
  /** --no-hooks: run no post-restore hook. */
  noHooks?: boolean;
}

/** One leg restore would bring back (or did). */
export interface RestoreLegResult {
  source: string;
  worktreePath: string;
  branch: string;
  /** `restored`: made again; `active`: it was there already (nothing to do). */
  outcome: "restored" | "active";
  /** The snapshot re-applied, if any. */
  snapshot?: { ref: string; commit: string };
}

export interface RestoreTaskResult {
  record: TaskRecord;
  results: RestoreLegResult[];
  /** What the post-restore hooks did (absent with noHooks or when nothing was restored). */
  hooks?: RunHooksResult;
  /** A dry run that brings a leg back: the ports it would lease again and its post-restore hooks. */
  lifecycle?: LifecyclePlan;
}

function snapshotOf(record: TaskRecord, leg: Leg): { ref: string; commit: string } | null {
  if (leg.state !== "snapshotted") return null;
  const a = record.artifacts.find((x) => x.kind === "snapshot" && x.source === leg.source && x.commit);
  return a?.commit ? { ref: a.ref, commit: a.commit } : null;
}

/**
 * Bring removed legs back: each worktree is made again at its recorded path on its branch (which
 * remove always keeps), locked `ariel:<task>`, its snapshot (if it was snapshotted) re-applied as
 * local changes (the branch does not move), the per-worktree refs it names made again under
 * their names and the other commits it kept from HEAD's reflog written back into the new
 * worktree's HEAD reflog, and the overlay copied in again from the source.
 *
 * @example
 * ```ts
 * const { results } = await restoreTask(hostPorts(), { root: "/w", taskId: "fix-login" });
 * ```
 */
export async function restoreTask(ports: Ports, options: RestoreTaskOptions): Promise<RestoreTaskResult> {
  validateRequestNames(options);
  const ws = await openWorkspace(ports, options.root);
  const decide = async () => {
    const record = await requireTask(ws, options.taskId);
    const legs = selectLegs(record, options.sources);
    const results: RestoreLegResult[] = [];
    for (const leg of legs) {
      const snap = snapshotOf(record, leg);
      // The snapshot it applies and whose per-worktree refs it recreates is the task's own.
      if (snap && leg.state !== "active") checkTaskRef(record, snap.ref);
      const base = {
        source: leg.source,
        worktreePath: leg.worktreePath,
        branch: leg.branch,
        ...(snap ? { snapshot: snap } : {}),
      };
      if (leg.state === "active") {
        results.push({ ...base, outcome: "active" });
        continue;
      }
      await checkRestorable(ws, leg);
      results.push({ ...base, outcome: "restored" });
    }
    return { record, results };
  };
  if (options.dryRun) {
    await checkTaskLease(ports, ws, options.taskId); // as withTaskLease below would refuse, untaken
    const decided = await decide();
    const lifecycle = await planRestoreLifecycle(ws, decided.record, decided.results, options);
    return { ...decided, ...(lifecycle ? { lifecycle } : {}) };
  }
  return withTaskLease(ports, ws, options.taskId, async (lease) => {
    const { record, results } = await decide();
    if (results.every((r) => r.outcome === "active")) return { record, results };
    const restored = await applyRestore(ws, record, results, lease, options.onProgress);
    const current = await ensureTaskPorts(ports, {
      root: ws.root,
      hash: ws.hash,
      range: ws.portRange,
      record: restored.record,
      lease,
    });
    if (options.noHooks) return { ...restored, record: current };
    const hooks = await runHooks(ports, {
      root: ws.root,
      hash: ws.hash,
      record: current,
      event: "post-restore",
      legs: legsBack(current, results).filter((l) => l.state === "active"),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    return { ...restored, record: current, hooks };
  });
}

/** The record's legs the restore brings back: its post-restore hooks run in them. */
function legsBack(record: TaskRecord, results: readonly RestoreLegResult[]): Leg[] {
  const back = new Set(results.filter((r) => r.outcome === "restored").map((r) => r.source));
  return record.legs.filter((l) => back.has(l.source));
}

/**
 * A dry run's lifecycle, when it brings a leg back: the port names the task lacks (a closed
 * task gave its ports back; {@link ensureTaskPorts} leases them again) and the post-restore hooks.
 */
async function planRestoreLifecycle(
  ws: WorktreeWorkspace,
  record: TaskRecord,
  results: readonly RestoreLegResult[],
  options: RestoreTaskOptions,
): Promise<LifecyclePlan | undefined> {
  const legs = legsBack(record, results);
  if (legs.length === 0) return undefined;
  const plan = await planLegsLifecycle(ws.ports, {
    root: ws.root,
    portRange: ws.portRange,
    sourcePaths: record.legs.map((l) => l.sourcePath),
    event: "post-restore",
    legs,
    ...(options.noHooks ? { skip: true } : {}),
  });
  return { ...plan, ports: missingPorts(plan.ports, record.ports) };
}

async function checkRestorable(ws: WorktreeWorkspace, leg: Leg): Promise<void> {
  if (await ws.ports.fs.lstat(leg.worktreePath)) {
    throw new ArielError("ERR_EXISTS", `${leg.worktreePath} exists; cannot restore ${leg.source} there`, {
      hint: "move it away, or run ariel-worktree reconcile",
      context: { source: leg.source, path: leg.worktreePath },
    });
  }
  if ((await resolveCommit(ws.ports, leg.sourcePath, `refs/heads/${leg.branch}`)) === null) {
    throw new ArielError("ERR_NOINPUT", `branch ${leg.branch} of ${leg.source} is gone; cannot restore`, {
      hint: `recreate it (${shellWords(["git", "-C", leg.sourcePath, "branch", leg.branch, leg.head])}) and retry`,
      context: { source: leg.source, branch: leg.branch },
    });
  }
}

/**
 * Put a leg's snapshot back into its new worktree (the work tree, its per-worktree refs, and the
 * kept commits into HEAD's reflog), fenced; the paths the snapshot touched, whose overlay files
 * stay as the snapshot has them.
 */
async function applyKeptSnapshot(
  ports: Ports,
  lease: Lease,
  worktreePath: string,
  commit: string,
): Promise<Set<string>> {
  const touched = new Set(await snapshotPaths(ports, worktreePath, commit));
  const kept = await keptCommits(ports, worktreePath, commit);
  const refs = await keptRefs(ports, worktreePath, commit);
  await lease.fenced(async () => {
    await applySnapshot(ports, worktreePath, commit);
    // Per-worktree refs under their own names; HEAD's reflog gets the kept commits none of them
    // names (what only the old reflog, or a ref whose object is gone, held).
    const named = new Set((await restoreRefs(ports, worktreePath, refs)).map((x) => x.oid));
    await restoreReflog(
      ports,
      worktreePath,
      kept.filter((c) => !named.has(c)),
    );
  });
  return touched;
}

async function applyRestore(
  ws: WorktreeWorkspace,
  record: TaskRecord,
  results: RestoreLegResult[],
  lease: Lease,
  onProgress?: OnProgress,
): Promise<RestoreTaskResult> {
  const ports = ws.ports;
  const legs = record.legs.map((l) => ({ ...l }));
  let failure: unknown = null;
  const total = results.filter((r) => r.outcome === "restored").length;
  let index = 0;
  try {
    for (const r of results) {
      if (r.outcome !== "restored") continue;
      onProgress?.({ index: ++index, total, source: r.source, action: "restoring worktree" });
      const leg = legs.find((l) => l.source === r.source)!;
      const common = await repoLockDir(ports, leg.sourcePath);
      const taskDir = leg.worktreePath.slice(0, leg.worktreePath.lastIndexOf("/"));
      // git makes the task directory with the worktree, once the repository lock is held: a
      // restore that cannot get the lock (ERR_LOCKED) leaves no empty directory.
      const madeTaskDir = (await ports.fs.lstat(taskDir)) === null;
      await repoStep(ports, lease, common, `restore ${record.taskId}`, async () => {
        await git(ports, leg.sourcePath, [
          "worktree",
          "add",
          "--quiet",
          "--lock",
          "--reason",
          lockReason(record.taskId),
          ...(leg.sparse ? ["--no-checkout"] : []),
          leg.worktreePath,
          leg.branch,
        ]);
        if (leg.sparse) await sparseCheckout(ports, leg.worktreePath, leg.sparse);
      });
      await testPause("restore:after-worktree");
      try {
        const keep = r.snapshot
          ? await applyKeptSnapshot(ports, lease, leg.worktreePath, r.snapshot.commit)
          : new Set<string>();
        const fresh = await selectOverlay(ports, leg.sourcePath, ws.overlay);
        const overlay: OverlayEntry[] = await lease.fenced(() =>
          copyOverlay(ports, leg.sourcePath, leg.worktreePath, fresh, keep),
        );
        for (const old of leg.overlay) {
          if (keep.has(old.path) && !overlay.some((o) => o.path === old.path)) overlay.push(old);
        }
        leg.overlay = overlay;
        leg.head = (await git(ports, leg.worktreePath, ["rev-parse", "HEAD"])).trim();
        leg.state = "active";
      } catch (e) {
        // Fenced out: the worktree we made may be another process's by now. Touch nothing.
        if (isFenced(e)) throw e;
        // Undo this leg: the worktree this call made (git said so above), then its directory.
        await repoStep(ports, lease, common, `restore ${record.taskId} (undo)`, async () => {
          await gitRaw(ports, leg.sourcePath, ["worktree", "unlock", leg.worktreePath]);
          await gitRaw(ports, leg.sourcePath, ["worktree", "remove", "--force", leg.worktreePath]);
          await ports.fs.remove(leg.worktreePath);
          if (madeTaskDir) await ports.fs.rmdir(taskDir).catch(() => {});
        });
        const err = toArielError(e);
        if (r.snapshot && err.code === "ERR_GIT") {
          throw new ArielError(
            "ERR_GIT",
            `${err.message} (the snapshot no longer applies to ${leg.branch})`,
            {
              hint: `nothing was changed; the snapshot is kept at ${r.snapshot.ref}: restore with --source for the other legs, or apply it by hand (git diff ${r.snapshot.ref}^1 ${r.snapshot.ref})`,
              context: { ...err.context, source: leg.source, snapshotRef: r.snapshot.ref },
            },
          );
        }
        throw err;
      }
    }
  } catch (e) {
    if (isFenced(e)) throw e;
    failure = e;
  }
  if (failure && legs.every((l, i) => l.state === record.legs[i]?.state)) throw failure;
  const written = await writeTask(
    ports,
    { ...record, legs, state: taskStateOf(legs) },
    record.version,
    lease,
  );
  // Legs restored before a failure are recorded as active, so a retry goes on from there.
  if (failure) throw failure;
  return { record: written, results };
}
