/**
 * `ariel-worktree hooks run`: run one event's hooks of a task again, under the task's lease (a
 * failed post-create after its cause was fixed, or after `trust`). A post-create run records
 * each leg's `setup` again.
 *
 * @example
 * ```ts
 * const { hooks, record } = await runTaskHooks(ports, { root: "/ws", taskId: "t1", event: "post-create" });
 * record.legs[0]?.setup; // "ok"
 * ```
 */
import { ArielError } from "../../errors.ts";
import type { HookEvent } from "../../lifecycle/events.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import type { OnProgress } from "../progress.ts";
import { requireTask, selectLegs, withTaskLease } from "../worktree/remove.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { type RunHooksResult, runHooks } from "./run_hooks.ts";
import { runPostCreate } from "./task_setup.ts";

export interface RunTaskHooksOptions {
  root: string;
  taskId: string;
  event: HookEvent;
  /** Only these legs (default: every active leg). */
  sources?: readonly string[];
  onProgress?: OnProgress;
}

/** Run `event`'s hooks for the task's active legs (those named); see the module's comment. */
export async function runTaskHooks(
  ports: Ports,
  o: RunTaskHooksOptions,
): Promise<{ record: TaskRecord; hooks: RunHooksResult }> {
  const ws = await openWorkspace(ports, o.root);
  await requireTask(ws, o.taskId);
  return withTaskLease(ports, ws, o.taskId, async (lease) => {
    const record = await requireTask(ws, o.taskId);
    const named = selectLegs(record, o.sources);
    const legs = named.filter((l) => l.state === "active");
    if (legs.length === 0) {
      throw new ArielError(
        "ERR_WORKTREE_MISSING",
        `task ${quoteValue(o.taskId)} has no active leg to run hooks in`,
        {
          hint: `bring its worktrees back first: ariel-worktree restore --task ${o.taskId}`,
          context: { task: o.taskId },
        },
      );
    }
    const common = {
      root: ws.root,
      hash: ws.hash,
      record,
      legs,
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    };
    if (o.event === "post-create") return runPostCreate(ports, { ...common, lease });
    return { record, hooks: await runHooks(ports, { ...common, event: o.event }) };
  });
}
