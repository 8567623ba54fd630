/**
 * The task helpers every command on one task starts with: find its record, pick its legs, hold
 * (or, for a dry run, check) its lease. Used by remove, restore, verify and handoff.
 */
import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import { didYouMean } from "../../suggest.ts";
import { assertLeaseFree, ensureStateDir, type Lease, withLease } from "./_deps.ts";
import { leaseOptions } from "./fence.ts";
import { ownerOf } from "./owner.ts";
import { readTask } from "./store.ts";
import type { WorktreeWorkspace } from "./workspace.ts";

/** Find a task's record or fail with ERR_TASK_NOT_FOUND (exit 66). */
export async function requireTask(ws: WorktreeWorkspace, taskId: string): Promise<TaskRecord> {
  const record = await readTask(ws.root, ws.hash, taskId);
  if (!record) {
    throw new ArielError("ERR_TASK_NOT_FOUND", `no task ${quoteValue(taskId)} in ${ws.root}`, {
      context: { task: taskId },
    });
  }
  return record;
}

/**
 * `fn` under the task's lease, for a command that changes the task. An unknown task is
 * ERR_TASK_NOT_FOUND before anything is written: no lease file, no .ariel/.
 */
export async function withTaskLease<T>(
  ports: Ports,
  ws: WorktreeWorkspace,
  taskId: string,
  fn: (lease: Lease) => Promise<T>,
  extra: { waitMs?: number } = {},
): Promise<T> {
  await requireTask(ws, taskId);
  await ensureStateDir(ports, ws.root);
  return withLease(ws.root, taskId, { ...leaseOptions(ports, ownerOf(ports), ws.leaseTtlMs), ...extra }, fn);
}

/**
 * For a dry run: what {@link withTaskLease} would refuse now (ERR_TASK_NOT_FOUND, 66;
 * ERR_LEASE_HELD, 75, while another live process holds the task's lease), without taking the
 * lease or writing anything.
 */
export async function checkTaskLease(ports: Ports, ws: WorktreeWorkspace, taskId: string): Promise<void> {
  await requireTask(ws, taskId);
  await assertLeaseFree(ws.root, taskId, leaseOptions(ports, ownerOf(ports), ws.leaseTtlMs));
}

/** The legs named by `sources` (all when absent); an unknown name is ERR_SOURCE_NOT_FOUND (66). */
export function selectLegs(record: TaskRecord, sources: readonly string[] | undefined): Leg[] {
  if (!sources || sources.length === 0) return record.legs;
  return sources.map((s) => {
    const leg = record.legs.find((l) => l.source === s);
    if (!leg) {
      const names = record.legs.map((l) => l.source);
      const suggestion = didYouMean(s, names);
      throw new ArielError(
        "ERR_SOURCE_NOT_FOUND",
        `task ${quoteValue(record.taskId)} has no leg for source ${quoteValue(s)}`,
        {
          hint: `${suggestion ? `${suggestion} ` : ""}its sources are: ${names.join(", ")}`,
          context: { task: record.taskId, source: s },
        },
      );
    }
    return leg;
  });
}
