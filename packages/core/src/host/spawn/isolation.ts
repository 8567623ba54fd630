import { ArielError, isArielError, toArielError } from "../../errors.ts";
import { dirnamePosix } from "../../paths.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { hookLogPath } from "../../state_paths.ts";
import type { HeldLease } from "../lease-store.ts";
import { joinLifecyclePlans, type LifecyclePlan, planHooks } from "../lifecycle/plan_hooks.ts";
import { retryHooksCommand } from "../lifecycle/report.ts";
import { hookFailureLine, type RunHooksResult } from "../lifecycle/run_hooks.ts";
import { enterTask, leaseHeldError } from "../runs/in_use.ts";
import { addTask } from "../worktree/add.ts";
import { removeTask } from "../worktree/remove.ts";
import { shareLegs } from "../worktree/share.ts";
import type { IsolatedTask, IsolationDriver, IsolationWarning, WorktreeOutcome } from "./run.ts";

/** Tries of a removal that met a held lease or a concurrent record write (exit 75). */
const RETRIES = 5;
/**
 * How long a detached run's monitor waits for the task's lease to settle the run's worktree
 * (the CLI that started it holds the lease until its runs are recorded).
 */
const SETTLE_LEASE_WAIT_MS = 10_000;

let queue: Promise<unknown> = Promise.resolve();

/** Run `fn` after every earlier call of `serial` finished: one task mutation at a time. */
function serial<T>(fn: () => Promise<T>): Promise<T> {
  const next = queue.then(fn, fn);
  queue = next.catch(() => {});
  return next;
}

async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      // Fenced out: the task is another process's now; trying again could take a fresh lease.
      if (attempt >= RETRIES || !isArielError(e) || e.exit !== 75 || e.code === "ERR_FENCED") throw e;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

/**
 * --isolate through the worktree manager: {@link addTask} makes the task (one worktree per
 * source, overlay included) before anything starts; after each process, {@link removeTask}
 * removes a clean worktree (the branch stays), keeps one it refuses (the refusal is the reason),
 * or snapshots then removes with --snapshot. A task that existed before the run is only used,
 * never removed: spawn tears down only what it made.
 */
export const worktreeIsolation: IsolationDriver = {
  async create(ports, options): Promise<IsolatedTask> {
    let shared: Awaited<ReturnType<typeof shareLegs>> = { shared: [], warnings: [] };
    const { record, created, warnings, lease, plan, hooks, lifecycle } = await addTask(ports, {
      root: options.root,
      sources: options.sources.map((s) => s.name),
      ...(options.taskId !== undefined ? { taskId: options.taskId } : {}),
      ...(options.base !== undefined ? { base: options.base } : {}),
      ...(options.branch !== undefined ? { branch: options.branch } : {}),
      ...(options.withChanges ? { withChanges: true } : {}),
      ...(options.sparse ? { sparse: options.sparse } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.noHooks ? { noHooks: true } : {}),
      // --share and config share: the same code as ariel-worktree add, before the post-create hooks.
      beforeHooks: async (made) => {
        shared = await shareLegs(ports, options.root, made.legs, options.share ?? []);
      },
      dryRun: options.dryRun,
      // The floor was checked by runSpawn (with --min-free); a second check here would use config only.
      minFreeBytes: 0,
      // The run keeps the task's lease (renewed) until its worktrees are settled: nothing else
      // acts on them while its commands run (released by the caller, or here on a failure).
      ...(options.dryRun ? {} : { holdLease: true }),
    }).catch(async (e: unknown) => {
      throw options.taskId === undefined ? e : await leaseHeldError(options.root, options.taskId, e);
    });
    try {
      // An existing task: no other run works in it (or --join), looked at under its lease.
      const joined =
        plan.kind === "existing" ? enterTask(options.root, record.taskId, options.join === true) : [];
      refuseFailedSetup(record, hooks, options.root);
      if (plan.kind === "existing" && !options.dryRun) refuseSetupFailedBefore(record, options.root);
      // A dry run makes nothing: a new task "would be created"; an existing one would not.
      const task = described(
        options,
        record,
        created || (options.dryRun === true && plan.kind !== "existing"),
        [...warnings, ...(hooks?.warnings ?? [])],
        shared,
        lease,
      );
      const planned = lifecycle
        ? { ...task, lifecycle: await withPreRemove(ports, options, record, lifecycle) }
        : task;
      const entered = joined.length > 0 ? { ...planned, joined } : planned;
      return options.noHooks ? { ...entered, noHooks: true } : entered;
    } catch (e) {
      await lease?.release().catch(() => {});
      throw e;
    }
  },
  async finish(ports, options): Promise<WorktreeOutcome[]> {
    const out: WorktreeOutcome[] = [];
    for (const source of options.sources) {
      if (options.onExit === "keep") {
        out.push({ source, outcome: "kept", reason: "keep" });
        continue;
      }
      // The run's lease was lost (stolen after a long stop): the worktree may be another
      // process's now. Leave it as it is and say why. Proven now, under the lease lock: a loss
      // the renewal timer has not seen yet counts too.
      await options.lease?.renew().catch(() => {});
      const lost = options.lease?.signal.aborted ? toArielError(options.lease.signal.reason) : null;
      if (lost) {
        out.push({ source, outcome: "kept", reason: lost.code, fields: { message: lost.message } });
        continue;
      }
      options.onLeg?.(source, "removing worktree");
      // One leg at a time: a refusal on one leg must not keep its clean siblings (--span).
      // Legs of one task finish from parallel workers: their record writes must not race.
      const r = await serial(() =>
        retrying(() =>
          removeTask(ports, {
            root: options.root,
            taskId: options.taskId,
            sources: [source],
            snapshot: options.onExit === "snapshot",
            ...(options.noHooks ? { noHooks: true } : {}),
            ...(options.runId !== undefined
              ? { exceptRun: options.runId, leaseWaitMs: SETTLE_LEASE_WAIT_MS }
              : {}),
          }),
        ),
      );
      for (const leg of r.results) {
        if (leg.refusal) {
          out.push({
            source: leg.source,
            outcome: "kept",
            reason: leg.refusal.reason,
            fields: { code: leg.refusal.code, message: leg.refusal.message },
          });
        } else {
          out.push({
            source: leg.source,
            outcome: leg.outcome,
            ...(leg.snapshot ? { fields: { ref: leg.snapshot.ref, commit: leg.snapshot.commit } } : {}),
          });
        }
      }
    }
    return out;
  },
};

/**
 * A dry run's new task: the ports and post-create hooks of its add, then the pre-remove hooks
 * the run's end would run when it removes the worktrees (not with --keep; none with --no-hooks).
 */
async function withPreRemove(
  ports: Parameters<IsolationDriver["create"]>[0],
  options: Parameters<IsolationDriver["create"]>[1],
  record: TaskRecord,
  lifecycle: LifecyclePlan,
): Promise<LifecyclePlan> {
  if (options.keep) return lifecycle;
  const preRemove = await planHooks(ports, {
    root: options.root,
    event: "pre-remove",
    legs: record.legs,
    ...(options.noHooks ? { skip: true } : {}),
  });
  return joinLifecyclePlans(lifecycle, preRemove);
}

/**
 * A task whose post-create hook failed is kept as it is (setup: failed) and its command is not
 * run: ERR_HOOK_FAILED names the log and the retry.
 */
function refuseFailedSetup(record: TaskRecord, hooks: RunHooksResult | undefined, root: string): void {
  const f = hooks?.failed[0];
  if (!f || !hooks) return;
  throw new ArielError(
    "ERR_HOOK_FAILED",
    `${hookFailureLine(f)}; the task ${record.taskId} is kept (setup: failed) and nothing was run`,
    {
      hint: `read ${hooks.log}, fix the cause, then: ${retryHooksCommand(record.taskId, "post-create", root)}, and run again with --task ${record.taskId}`,
      context: { task: record.taskId, source: f.source, event: f.event, log: hooks.log },
    },
  );
}

/**
 * An existing task whose post-create failed earlier and was not run again since (a leg still
 * `setup: failed`): its command is not run either, as for the run that made it.
 */
function refuseSetupFailedBefore(record: TaskRecord, root: string): void {
  const leg = record.legs.find((l) => l.state === "active" && l.setup === "failed");
  if (!leg) return;
  const log = hookLogPath(root, record.taskId);
  throw new ArielError(
    "ERR_HOOK_FAILED",
    `${leg.source}: the post-create hook failed and was not run again since; the task ${record.taskId} is kept (setup: failed) and nothing was run`,
    {
      hint: `read ${log}, fix the cause, then: ${retryHooksCommand(record.taskId, "post-create", root)}, and run again with --task ${record.taskId}`,
      context: { task: record.taskId, source: leg.source, event: "post-create", log },
    },
  );
}

/** The task {@link worktreeIsolation} made (or found), as spawn describes it: its legs, shared directories, warnings. */
function described(
  options: Parameters<IsolationDriver["create"]>[1],
  record: TaskRecord,
  created: boolean,
  warnings: readonly IsolationWarning[],
  shared: Awaited<ReturnType<typeof shareLegs>>,
  lease: HeldLease | undefined,
): IsolatedTask {
  const legs: IsolatedTask["legs"] = new Map();
  for (const leg of record.legs) {
    const names = shared.shared.filter((s) => s.source === leg.source).map((s) => s.name);
    legs.set(leg.source, {
      worktree: leg.worktreePath,
      branch: leg.branch,
      overlay: leg.overlay.map((o) => o.path),
      base: leg.base,
      ...(leg.sparse ? { sparse: leg.sparse } : {}),
      ...(names.length > 0 ? { shared: names } : {}),
    });
  }
  const first = record.legs[0];
  const taskDir = first ? dirnamePosix(first.worktreePath) : options.root;
  return {
    taskId: record.taskId,
    taskDir,
    legs,
    created,
    warnings: [...warnings, ...shared.warnings],
    ...(lease ? { lease } : {}),
    ...(record.ports ? { ports: record.ports } : {}),
  };
}
