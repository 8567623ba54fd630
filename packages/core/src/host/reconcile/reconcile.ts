import { type ArielError, toArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import { planReconcile, type ReconcilePlan, type ReconcileStep } from "../../reconcile/plan.ts";
import { sandboxPaths } from "../../sandbox/paths.ts";
import { syncWarnings } from "../../sandbox/report.ts";
import { recoverLands } from "../land/recover.ts";
import { withLease } from "../lease-store.ts";
import { breakStaleLock } from "../lock-file.ts";
import { readManifest, sandboxEnded, sandboxRunIds, syncTaskSandboxes } from "../sandbox/sync.ts";
import { isFenced, leaseOptions } from "../worktree/fence.ts";
import { ownerOf } from "../worktree/owner.ts";
import { openWorkspace, type WorktreeWorkspace } from "../worktree/workspace.ts";
import { applyMarks, applyStep } from "./apply.ts";
import { gatherFacts } from "./facts.ts";

export { gatherFacts };

/**
 * `ariel-worktree reconcile`: converge task records and git after a crash (docs/durability.md, Reconcile).
 *
 * Gather the facts (records, leases, worktree admin entries, `ariel/*` branches, directories
 * under the worktree root, local work of candidate worktrees) → {@link planReconcile} (pure) →
 * apply, task by task under the task's lease, each git change under its repository's lock. A dry
 * run gathers and plans only: no lease, no lock, no write.
 *
 * @example
 * ```ts
 * const r = await reconcileWorkspace(hostPorts(), { root: "/w", dryRun: true });
 * for (const s of r.plan.steps) console.log(s.fix, s.task);
 * ```
 */

export interface ReconcileOptions {
  root: string;
  dryRun?: boolean;
  /** Called after each step is applied (or, in a dry run, for each planned step). */
  onStep?: (step: ReconcileStep) => void;
}

export interface ReconcileResult {
  /** The plan of the first look (what a dry run prints). */
  plan: ReconcilePlan;
  applied: ReconcileStep[];
  failed: { step: ReconcileStep; error: ArielError }[];
  /** Tasks skipped because another live process holds their lease. */
  busy: string[];
}

export async function reconcileWorkspace(ports: Ports, options: ReconcileOptions): Promise<ReconcileResult> {
  const ws = await openWorkspace(ports, options.root);
  const first = await gatherFacts(ws);
  const plan = planReconcile(first);
  const result: ReconcileResult = { plan, applied: [], failed: [], busy: [] };
  if (options.dryRun) {
    for (const s of plan.steps) options.onStep?.(s);
    await finishLands(ws, options, result);
    finishSandboxesPlan(ws, options, result);
    return result;
  }
  // Sandboxed runs' work home first: the steps below look at their tasks' branches.
  await finishSandboxes(ws, options, result);
  for (const step of plan.steps) {
    if (step.fix !== "remove-stale-lock") continue;
    try {
      if (await breakStaleLock(step.path, ports.fs)) {
        result.applied.push(step);
        options.onStep?.(step);
      }
    } catch (e) {
      result.failed.push({ step, error: toArielError(e) });
    }
  }
  const underLease = (s: ReconcileStep) => s.fix !== "remove-stale-lock" && s.fix !== "finish-sandbox";
  const tasks = [...new Set(plan.steps.filter(underLease).map((s) => s.task))];
  for (const task of tasks) {
    try {
      await withLease(ws.root, task, leaseOptions(ports, ownerOf(ports), ws.leaseTtlMs), async (lease) => {
        // Look again now that the task is ours: an add or remove may have finished meanwhile.
        const steps = planReconcile(await gatherFacts(ws)).steps.filter((s) => s.task === task);
        const isRecordStep = (s: ReconcileStep) => s.fix === "mark-leg" || s.fix === "reopen";
        let marks = steps.filter(isRecordStep);
        for (const step of steps) {
          if (isRecordStep(step) || step.fix === "remove-stale-lock") continue;
          try {
            await applyStep(ws, lease, step);
            result.applied.push(step);
            options.onStep?.(step);
          } catch (e) {
            // Fenced out: the task is another process's now; stop, change nothing more.
            if (isFenced(e)) throw e;
            result.failed.push({ step, error: toArielError(e) });
            // A recorded leg whose removal failed is still there: its record stays as it is.
            if (step.fix === "remove-worktree" && marks.some((m) => "path" in m && m.path === step.path)) {
              marks = [];
            }
          }
        }
        if (marks.length > 0) {
          try {
            await applyMarks(ws, lease, task, marks);
            for (const m of marks) {
              result.applied.push(m);
              options.onStep?.(m);
            }
          } catch (e) {
            if (isFenced(e)) throw e;
            for (const m of marks) result.failed.push({ step: m, error: toArielError(e) });
          }
        }
      });
    } catch (e) {
      const err = toArielError(e);
      if (err.code === "ERR_LEASE_HELD") result.busy.push(task);
      else throw err;
    }
  }
  await finishLands(ws, options, result);
  return result;
}

/**
 * The manifest of sandbox `runId`, or null (none: a sandbox that never started); one that cannot
 * be read is noted `W_RECORD_UNREADABLE` and left alone (its sync cannot know the run's task and
 * repositories, so the work stays in the sandbox), and gives null too.
 */
function manifestOrNote(ws: WorktreeWorkspace, runId: string, result: ReconcileResult) {
  try {
    return readManifest(ws.root, runId);
  } catch (e) {
    const dir = sandboxPaths(ws.root, runId).dir;
    result.plan.notes.push({
      code: "W_RECORD_UNREADABLE",
      message: `sandbox ${runId}: manifest not readable, left alone (${toArielError(e).message})`,
      path: dir,
      run: runId,
      hint: `the run's work is still in ${dir}; mend or move its sandbox.json, then reconcile again`,
    });
    return null;
  }
}

/** The sandboxes of runs that ended with their work not home, as steps (a dry run). */
function finishSandboxesPlan(ws: WorktreeWorkspace, options: ReconcileOptions, result: ReconcileResult) {
  for (const runId of sandboxRunIds(ws.root)) {
    const m = manifestOrNote(ws, runId, result);
    if (m === null || !sandboxEnded(m)) continue;
    const step: ReconcileStep = {
      fix: "finish-sandbox",
      task: m.task ?? "",
      path: sandboxPaths(ws.root, runId).dir,
      run: runId,
    };
    result.plan.steps.push(step);
    options.onStep?.(step);
  }
}

/** Finish the syncs of sandboxed runs that ended (their monitor, or ariel-spawn, killed); what stays aside is noted. */
async function finishSandboxes(ws: WorktreeWorkspace, options: ReconcileOptions, result: ReconcileResult) {
  // syncTaskSandboxes passes over a manifest it cannot read; reconcile says so.
  for (const runId of sandboxRunIds(ws.root)) manifestOrNote(ws, runId, result);
  let synced: Awaited<ReturnType<typeof syncTaskSandboxes>>;
  try {
    synced = await syncTaskSandboxes(ws.root, null, { endedOnly: true });
  } catch (e) {
    const step: ReconcileStep = {
      fix: "finish-sandbox",
      task: "",
      path: `${ws.root}/.ariel/sandbox`,
      run: "",
    };
    result.failed.push({ step, error: toArielError(e) });
    return;
  }
  for (const r of synced) {
    if (!r.finished) continue;
    const step: ReconcileStep = {
      fix: "finish-sandbox",
      task: r.task ?? "",
      path: sandboxPaths(ws.root, r.runId).dir,
      run: r.runId,
    };
    result.plan.steps.push(step);
    result.applied.push(step);
    options.onStep?.(step);
    for (const w of syncWarnings(r)) {
      result.plan.notes.push({
        code: "W_SANDBOX_KEPT",
        message: w.message,
        ...(r.task ? { task: r.task } : {}),
        hint: w.hint,
      });
    }
  }
}

/** Crashed lands, finished forward; their steps, notes and failures join the result. */
async function finishLands(
  ws: WorktreeWorkspace,
  options: ReconcileOptions,
  result: ReconcileResult,
): Promise<void> {
  const lands = await recoverLands(ws, {
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.onStep ? { onStep: options.onStep } : {}),
  });
  result.plan.steps.push(...lands.planned);
  result.plan.notes.push(...lands.notes);
  result.applied.push(...lands.applied);
  result.failed.push(...lands.failed);
  result.busy.push(...lands.busy);
}
