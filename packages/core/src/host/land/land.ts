import { ArielError, toArielError } from "../../errors.ts";
import { type LandPlan, type LandStrategy, planLand } from "../../land/plan_land.ts";
import { validateBranchName, validateRequestNames } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { LandLeg, LandRecord, TaskRecord } from "../../schema/task.ts";
import { ensureGit } from "../git.ts";
import type { Lease } from "../lease-store.ts";
import { joinLifecyclePlans, type LifecyclePlan } from "../lifecycle/plan_hooks.ts";
import type { RunHooksResult } from "../lifecycle/run_hooks.ts";
import { syncTaskSandboxes } from "../sandbox/sync.ts";
import { testPause } from "../test-hooks.ts";
import { isFenced } from "../worktree/fence.ts";
import {
  checkTaskLease,
  type RemoveTaskResult,
  removeTask,
  requireTask,
  withTaskLease,
} from "../worktree/remove.ts";
import { writeTask } from "../worktree/store.ts";
import { openWorkspace, type WorktreeWorkspace } from "../worktree/workspace.ts";
import { type DeletedBranch, deleteMergedBranches } from "./branches.ts";
import { gatherLandFacts } from "./facts.ts";
import { planLandHooks, runLandHooks } from "./hooks.ts";
import { landLeg, unlandLeg } from "./step.ts";

/** merge-tree --write-tree came with git 2.38. */
export const LAND_MIN_GIT = [2, 38, 0] as const;

/** Input of {@link landTask}. */
export interface LandTaskOptions {
  root: string;
  taskId: string;
  /** The branch to land into (default: each source's checked-out branch). */
  into?: string;
  strategy?: LandStrategy;
  /** Then remove the task (remove's refusals checked before anything lands) and delete merged branches. */
  remove?: boolean;
  dryRun?: boolean;
  /** --no-hooks: run no hook: no pre-land or post-land, nor (--remove) the removal's pre-remove. */
  noHooks?: boolean;
}

export interface LandTaskResult {
  plan: LandPlan;
  record: TaskRecord;
  /** True when the branches moved (every leg that had something to land). */
  landed: boolean;
  /** With `remove`: the removal (its dry run when it refused before anything landed). */
  removal?: RemoveTaskResult;
  deletedBranches: DeletedBranch[];
  /** The land's pre-land and post-land hooks that ran (their warnings, a failed post-land). */
  hooks?: RunHooksResult[];
  /** A dry run that lands something: the hooks it would run (--remove: the removal's too). */
  lifecycle?: LifecyclePlan;
}

/** ERR_GIT_TOO_OLD (69) before git older than 2.38: land merges with `merge-tree --write-tree`. */
export async function requireLandGit(): Promise<void> {
  const v = await ensureGit();
  const [a, b, c] = LAND_MIN_GIT;
  if (v[0] > a || (v[0] === a && (v[1] > b || (v[1] === b && v[2] >= c)))) return;
  throw new ArielError(
    "ERR_GIT_TOO_OLD",
    `land needs git ${LAND_MIN_GIT.join(".")} or newer (git merge-tree --write-tree); this is git ${v.join(".")}`,
    {
      hint: `upgrade git to ${LAND_MIN_GIT.join(".")} or newer; nothing was changed`,
    },
  );
}

/**
 * Land a task: every leg is checked first (its branch and target exist, a checked-out target is
 * clean, the merge is clean), then every leg's target moves, or none does. The land is written
 * into the task record before any branch moves and each leg's step as it lands, so a crash is
 * finished by `reconcile`; a failure part-way moves the landed targets back.
 *
 * @example
 * ```ts
 * const r = await landTask(hostPorts(), { root: "/w", taskId: "t1", strategy: "squash" });
 * if (r.plan.refused) for (const l of r.plan.legs) console.error(l.refusals[0]?.message);
 * ```
 */
export async function landTask(ports: Ports, options: LandTaskOptions): Promise<LandTaskResult> {
  validateRequestNames(options);
  if (options.into !== undefined) validateBranchName(options.into);
  await requireLandGit();
  const ws = await openWorkspace(ports, options.root);
  // What a sandboxed run committed is on the task's branches before they land.
  if (!options.dryRun) await syncTaskSandboxes(ws.root, options.taskId);
  const strategy = options.strategy ?? "merge";
  const decide = async () => {
    const record = await requireTask(ws, options.taskId);
    return { record, plan: planLand(await gatherLandFacts(ports, record, strategy, options.into)) };
  };
  if (options.dryRun) {
    await checkTaskLease(ports, ws, options.taskId);
    const d = await decide();
    const removal = options.remove
      ? await removeTask(ports, {
          root: ws.root,
          taskId: options.taskId,
          dryRun: true,
          ...noHooksOf(options),
        })
      : undefined;
    const lifecycle = await planLandLifecycle(ws, d, options, removal);
    return {
      ...d,
      landed: false,
      deletedBranches: [],
      ...(removal ? { removal } : {}),
      ...(lifecycle ? { lifecycle } : {}),
    };
  }
  if (options.remove) {
    const removal = await removeTask(ports, {
      root: ws.root,
      taskId: options.taskId,
      dryRun: true,
      ...noHooksOf(options),
    });
    if (removal.refused) return { ...(await decide()), landed: false, removal, deletedBranches: [] };
  }
  const done = await withTaskLease(ports, ws, options.taskId, async (lease) => {
    const { record, plan } = await decide();
    if (plan.refused || plan.changes === 0) return { record, plan, landed: false };
    const noHooks = options.noHooks === true;
    const pre = await runLandHooks(ws, record, "pre-land", plan, noHooks);
    const landed = await applyLand(ws, record, plan, lease);
    const post = await runLandHooks(ws, record, "post-land", plan, noHooks);
    const hooks = [pre, post].filter((h): h is RunHooksResult => h !== null);
    return { record: landed, plan, landed: true, ...(hooks.length > 0 ? { hooks } : {}) };
  });
  if (!options.remove || done.plan.refused) return { ...done, deletedBranches: [] };
  const removal = await removeTask(ports, { root: ws.root, taskId: options.taskId, ...noHooksOf(options) });
  const deletedBranches = removal.refused ? [] : await deleteMergedBranches(ports, removal.record);
  return { ...done, removal, deletedBranches };
}

/** A dry run's hooks: pre-land and post-land, then (--remove) the removal's pre-remove. */
async function planLandLifecycle(
  ws: WorktreeWorkspace,
  d: { record: TaskRecord; plan: LandPlan },
  options: LandTaskOptions,
  removal: RemoveTaskResult | undefined,
): Promise<LifecyclePlan | undefined> {
  if (d.plan.refused) return undefined;
  const land = await planLandHooks(ws, d.record, d.plan, options.noHooks === true);
  if (!removal?.lifecycle) return land;
  return land ? joinLifecyclePlans(land, removal.lifecycle) : removal.lifecycle;
}

/** --no-hooks reaches the removal too: no hook of any event runs. */
const noHooksOf = (options: LandTaskOptions) => (options.noHooks === true ? { noHooks: true } : {});

function landRecordOf(plan: LandPlan, now: string): LandRecord {
  const legs: LandLeg[] = plan.legs
    .filter((l) => l.action === "land" && l.target !== null && l.from !== null && l.to !== null)
    .map((l) => ({
      source: l.source,
      target: l.target!,
      from: l.from!,
      to: l.to!,
      checkout: l.checkout,
      state: "pending",
    }));
  return { strategy: plan.strategy, state: "landing", startedAt: now, legs };
}

async function applyLand(
  ws: WorktreeWorkspace,
  record: TaskRecord,
  plan: LandPlan,
  lease: Lease,
): Promise<TaskRecord> {
  const ports = ws.ports;
  const now = () => new Date(ports.clock.now()).toISOString();
  const land = landRecordOf(plan, now());
  // Written before any branch moves: from here on, a crash is reconcile's to finish.
  let current = await writeTask(ports, { ...record, land }, record.version, lease);
  const repoOf = (source: string) => record.legs.find((l) => l.source === source)!.sourcePath;
  for (const step of land.legs) {
    try {
      await landLeg(ports, lease, repoOf(step.source), record.taskId, step);
    } catch (e) {
      if (isFenced(e)) throw e;
      await rollBack(ws, current, land, lease, repoOf);
      throw toArielError(e);
    }
    await testPause("land:after-ref"); // this leg's target moved, the record not written yet
    step.state = "landed";
    current = await writeTask(ports, { ...current, land }, current.version, lease);
  }
  land.state = "landed";
  land.endedAt = now();
  return writeTask(ports, { ...current, land }, current.version, lease);
}

/** A later leg failed: move the landed targets back; the record says what was undone. */
async function rollBack(
  ws: WorktreeWorkspace,
  current: TaskRecord,
  land: LandRecord,
  lease: Lease,
  repoOf: (source: string) => string,
): Promise<void> {
  let undone = true;
  for (const step of [...land.legs].reverse()) {
    if (step.state !== "landed") {
      step.state = "rolled-back";
      continue;
    }
    try {
      await unlandLeg(ws.ports, lease, repoOf(step.source), current.taskId, step);
      step.state = "rolled-back";
    } catch (e) {
      if (isFenced(e)) throw e;
      undone = false;
    }
  }
  // A leg that could not be undone keeps the land `landing`: reconcile finishes it (forward).
  if (undone) land.state = "rolled-back";
  await writeTask(ws.ports, { ...current, land }, current.version, lease);
}

/**
 * One `land` record per leg of a land's result, as `ariel-worktree land --json` prints and the
 * fleet's land route answers: what landed where (`outcome` the leg's recorded step, or
 * `up-to-date` when nothing moved).
 */
export interface LandRecordOut {
  v: 1;
  type: "land";
  task: string;
  source: string;
  branch: string;
  target: string | null;
  strategy: LandStrategy;
  outcome: string;
  from: string | null;
  to: string | null;
}

export function landRecords(result: LandTaskResult): LandRecordOut[] {
  const steps = result.record.land?.legs ?? [];
  return result.plan.legs.map((l) => {
    const step = steps.find((s) => s.source === l.source);
    return {
      v: 1 as const,
      type: "land" as const,
      task: result.plan.task,
      source: l.source,
      branch: l.branch,
      target: l.target,
      strategy: result.plan.strategy,
      outcome: result.landed && step ? step.state : "up-to-date",
      from: l.from,
      to: l.to,
    };
  });
}
