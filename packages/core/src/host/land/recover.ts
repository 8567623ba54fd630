import { toArielError } from "../../errors.ts";
import { type LandRecoveryStep, planLandRecovery } from "../../land/recover.ts";
import { RECORD_HARD_MAX_BYTES } from "../../limits.ts";
import type { ReconcileNote } from "../../reconcile/plan.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { taskOfStateFile, taskRecordPath, tasksDir } from "../../state_paths.ts";
import type { Lease } from "../lease-store.ts";
import { withLease } from "../lease-store.ts";
import { isFenced, leaseOptions } from "../worktree/fence.ts";
import { ownerOf } from "../worktree/owner.ts";
import { readTask, writeTask } from "../worktree/store.ts";
import type { WorktreeWorkspace } from "../worktree/workspace.ts";
import { landLeg, targetTip } from "./step.ts";

/** What `reconcile` did about crashed lands. */
export interface LandRecovery {
  planned: LandRecoveryStep[];
  notes: ReconcileNote[];
  applied: LandRecoveryStep[];
  failed: { step: LandRecoveryStep; error: ReturnType<typeof toArielError> }[];
  busy: string[];
}

const LANDING = /"state":\s*"landing"/;

/** Records whose last land is still `landing` (a land that crashed or is running now). */
async function landingTasks(ws: WorktreeWorkspace): Promise<TaskRecord[]> {
  const names = await ws.ports.fs.readDir(tasksDir(ws.root)).catch(() => []);
  const out: TaskRecord[] = [];
  for (const e of names) {
    const task = taskOfStateFile(e.name);
    if (task === null || e.kind !== "file") continue;
    // Only "landing" (a land's own state) is worth parsing the record for.
    const read = await ws.ports.fs
      .readFileNoFollow(taskRecordPath(ws.root, task), RECORD_HARD_MAX_BYTES)
      .catch(() => null);
    if (!read?.bytes || !LANDING.test(new TextDecoder().decode(read.bytes))) continue;
    const record = await readTask(ws.root, ws.hash, task).catch(() => null);
    if (record?.land?.state === "landing") out.push(record);
  }
  return out;
}

async function planOf(ws: WorktreeWorkspace, record: TaskRecord) {
  const land = record.land!;
  const repos: Record<string, string> = {};
  const tips: Record<string, string | null> = {};
  for (const step of land.legs) {
    const repo = record.legs.find((l) => l.source === step.source)?.sourcePath ?? "";
    repos[step.source] = repo;
    tips[step.source] = repo === "" ? null : await targetTip(ws.ports, repo, step.target);
  }
  return { ...planLandRecovery(record.taskId, land, tips, repos), repos };
}

/**
 * Finish every crashed land of the workspace, forward (docs/lifecycle.md, Land): under the
 * task's lease, look again, move the targets still where the land found them, record the legs
 * whose targets already moved, and mark the land `landed` once every leg is. A dry run plans only.
 */
export async function recoverLands(
  ws: WorktreeWorkspace,
  options: { dryRun?: boolean; onStep?: (step: LandRecoveryStep) => void },
): Promise<LandRecovery> {
  const out: LandRecovery = { planned: [], notes: [], applied: [], failed: [], busy: [] };
  for (const first of await landingTasks(ws)) {
    const look = await planOf(ws, first);
    out.planned.push(...look.steps);
    out.notes.push(...look.notes);
    if (options.dryRun) {
      for (const s of look.steps) options.onStep?.(s);
      continue;
    }
    if (look.steps.length === 0) continue;
    try {
      const opts = leaseOptions(ws.ports, ownerOf(ws.ports), ws.leaseTtlMs);
      await withLease(ws.root, first.taskId, opts, (lease) =>
        finishOne(ws, first.taskId, lease, out, options.onStep),
      );
    } catch (e) {
      const err = toArielError(e);
      if (err.code === "ERR_LEASE_HELD") out.busy.push(first.taskId);
      else throw err;
    }
  }
  return out;
}

async function finishOne(
  ws: WorktreeWorkspace,
  taskId: string,
  lease: Lease,
  out: LandRecovery,
  onStep?: (step: LandRecoveryStep) => void,
): Promise<void> {
  // Look again now that the task is ours.
  const record = await readTask(ws.root, ws.hash, taskId);
  if (record?.land?.state !== "landing") return;
  const { steps, repos } = await planOf(ws, record);
  const land = { ...record.land, legs: record.land.legs.map((l) => ({ ...l })) };
  for (const step of steps) {
    const leg = land.legs.find((l) => l.source === step.source)!;
    try {
      if (step.fix === "finish-land") await landLeg(ws.ports, lease, repos[step.source] ?? "", taskId, leg);
      leg.state = "landed";
      out.applied.push(step);
      onStep?.(step);
    } catch (e) {
      if (isFenced(e)) throw e;
      out.failed.push({ step, error: toArielError(e) });
    }
  }
  if (land.legs.every((l) => l.state === "landed")) {
    land.state = "landed";
    land.endedAt = new Date(ws.ports.clock.now()).toISOString();
  }
  await writeTask(ws.ports, { ...record, land }, record.version, lease);
}
