import type { Leg, TaskRecord } from "../schema/task.ts";

/**
 * The NDJSON form of a task record on stdout: `{"v":1,"type":"task",...record}`.
 *
 * @example
 * ```ts
 * out.record(taskOutput(record));
 * ```
 */
export function taskOutput(record: TaskRecord): Record<string, unknown> {
  return { ...record };
}

/** A new record for a task whose legs were all just made. */
export function newTaskRecord(input: {
  taskId: string;
  root: string;
  hash: string;
  owner: string;
  legs: Leg[];
  fencingToken: number;
  now: string;
}): TaskRecord {
  return {
    v: 1,
    type: "task",
    taskId: input.taskId,
    workspace: { root: input.root, hash: input.hash },
    owner: input.owner,
    state: "active",
    legs: input.legs,
    artifacts: [],
    fencingToken: input.fencingToken,
    version: 1,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/**
 * The task's state from its legs: `active` while any leg is active, `closed` when every leg is
 * removed or snapshotted, `unknown` when a leg is unknown (a half-finished change).
 */
export function taskStateOf(legs: readonly Leg[]): TaskRecord["state"] {
  if (legs.some((l) => l.state === "unknown")) return "unknown";
  if (legs.some((l) => l.state === "active")) return "active";
  return "closed";
}

/** The snapshot ref of a leg: `refs/ariel/snapshots/<task>/<leg dir>`. */
export function snapshotRef(taskId: string, worktreePath: string): string {
  const leg = worktreePath.replace(/\/+$/, "").split("/").pop() ?? "leg";
  return `refs/ariel/snapshots/${taskId}/${leg}`;
}
