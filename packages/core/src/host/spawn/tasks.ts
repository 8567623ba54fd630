import type { Ports } from "../../ports.ts";
import type { SpawnSource } from "../../spawn/resolve.ts";
import { splitTasks } from "../../spawn/tasks.ts";
import type { OnProgress } from "../progress.ts";
import { type IsolatedTask, type IsolateRequest, type IsolationDriver, isolationOptions } from "./run.ts";

/**
 * Make (or, in a dry run, plan) the tasks of an isolated run ({@link splitTasks}): one per source,
 * or one with --span, each holding its lease (not in a dry run) until the caller releases it
 * ({@link releaseTasks}). When one of them fails, those made before are removed again (they are
 * clean: nothing ran in them yet) and every lease is released before the error is thrown.
 */
export async function createTasks(
  driver: IsolationDriver,
  ports: Ports,
  root: string,
  targets: readonly SpawnSource[],
  iso: IsolateRequest,
  how: { dryRun: boolean; onProgress?: OnProgress },
): Promise<IsolatedTask[]> {
  const slices = splitTasks(targets, iso);
  const made: IsolatedTask[] = [];
  const options = (slice: (typeof slices)[number]) =>
    isolationOptions(root, slice.sources, { ...iso, ...(slice.taskId ? { taskId: slice.taskId } : {}) });
  // A fan-out plans every task before it makes the first: bad input for a later one (a --base
  // one source lacks, a task id taken) then changes nothing, as for one task. An undo could not:
  // it keeps the first tasks' branches and records, and the same run fixed would meet them.
  if (!how.dryRun && slices.length > 1) {
    for (const slice of slices) await driver.create(ports, { ...options(slice), dryRun: true });
  }
  let offset = 0;
  // One after another: the progress line counts the run's worktrees in order ([2/5] web).
  for (const slice of slices) {
    const first = offset;
    const onProgress: OnProgress | undefined =
      how.onProgress &&
      ((step) => how.onProgress?.({ ...step, index: first + step.index, total: targets.length }));
    try {
      made.push(
        await driver.create(ports, {
          ...options(slice),
          dryRun: how.dryRun,
          ...(onProgress ? { onProgress } : {}),
        }),
      );
    } catch (e) {
      await undoTasks(driver, ports, root, made, iso.noHooks === true);
      throw e;
    }
    offset += slice.sources.length;
  }
  return made;
}

/** Remove the worktrees of tasks this run just made (clean), then release every lease. */
async function undoTasks(
  driver: IsolationDriver,
  ports: Ports,
  root: string,
  tasks: readonly IsolatedTask[],
  noHooks: boolean,
): Promise<void> {
  for (const t of tasks) {
    if (!t.created || !t.lease) continue;
    await driver
      .finish(ports, {
        root,
        taskId: t.taskId,
        sources: [...t.legs.keys()],
        onExit: "remove",
        lease: t.lease,
        ...(noHooks ? { noHooks: true } : {}),
      })
      .catch(() => {});
  }
  await releaseTasks(tasks);
}

/** Release the leases of an isolated run's tasks. */
export async function releaseTasks(tasks: readonly IsolatedTask[]): Promise<void> {
  await Promise.all(tasks.map((t) => t.lease?.release().catch(() => {})));
}
