import { ArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import type { SpawnSource } from "../../spawn/resolve.ts";
import { splitTasks } from "../../spawn/tasks.ts";
import { nextRemoveCommand } from "../../worktree/next_step.ts";
import type { OnProgress } from "../progress.ts";
import { type IsolatedTask, type IsolateRequest, type IsolationDriver, isolationOptions } from "./run.ts";

/**
 * Make (or, in a dry run, plan) the tasks of an isolated run ({@link splitTasks}): one per source,
 * or one with --span, each holding its lease (not in a dry run) until the caller releases it
 * ({@link releaseTasks}). When one of them fails, those made before are removed again (nothing
 * ran in them yet) and every lease is released before the error is thrown; a leg the removal
 * keeps (a post-create hook wrote into it) is named in the error, with the command that removes it.
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
      const kept = await undoTasks(driver, ports, root, made, iso.noHooks === true);
      throw withKept(e, kept, root === ports.cwd ? {} : { root });
    }
    offset += slice.sources.length;
  }
  return made;
}

/** A leg the undo of a failed fan-out kept, and why. */
interface KeptLeg {
  task: string;
  source: string;
  reason: string;
}

/**
 * Remove the worktrees of tasks this run just made, then release every lease. Returns the legs
 * it kept: refused by the removal (a hook's file makes a leg dirty), or not removed at all.
 */
async function undoTasks(
  driver: IsolationDriver,
  ports: Ports,
  root: string,
  tasks: readonly IsolatedTask[],
  noHooks: boolean,
): Promise<KeptLeg[]> {
  const kept: KeptLeg[] = [];
  for (const t of tasks) {
    if (!t.created || !t.lease) continue;
    const sources = [...t.legs.keys()];
    const outcomes = await driver
      .finish(ports, {
        root,
        taskId: t.taskId,
        sources,
        onExit: "remove",
        lease: t.lease,
        ...(noHooks ? { noHooks: true } : {}),
      })
      .catch((e: unknown) =>
        sources.map((source) => ({
          source,
          outcome: "kept" as const,
          reason: e instanceof ArielError ? e.code : "error",
        })),
      );
    for (const o of outcomes) {
      if (o.outcome !== "removed")
        kept.push({ task: t.taskId, source: o.source, reason: o.reason ?? "keep" });
    }
  }
  await releaseTasks(tasks);
  return kept;
}

/**
 * The error of a failed fan-out, naming the legs its undo kept: each with its reason in the
 * hint, then the command that removes its task, and all of them in the record (`kept`).
 */
function withKept(e: unknown, kept: readonly KeptLeg[], rootArg: { root?: string }): unknown {
  if (kept.length === 0 || !(e instanceof ArielError)) return e;
  const tasks = [...new Set(kept.map((k) => k.task))];
  const next = tasks.map((task) => {
    const legs = kept.filter((k) => k.task === task);
    return nextRemoveCommand({ task, reasons: legs.map((k) => k.reason), ...rootArg });
  });
  const which = kept.map((k) => `${k.task}/${k.source} (${k.reason})`).join(", ");
  return new ArielError(e.code, e.message, {
    hint: `${e.hint}; kept ${which} from before the failure: ${next.join("; ")}`,
    exit: e.exit,
    context: { ...e.context, kept },
    cause: e.cause,
  });
}

/** Release the leases of an isolated run's tasks. */
export async function releaseTasks(tasks: readonly IsolatedTask[]): Promise<void> {
  await Promise.all(tasks.map((t) => t.lease?.release().catch(() => {})));
}
