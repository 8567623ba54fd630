import { readFileSync } from "node:fs";
import type { RunView } from "../../runs/backend.ts";
import { runPaths } from "../../runs/paths.ts";
import type { RunRecord } from "../../runs/record.ts";
import { newestFirst, runArg } from "../../runs/resolve.ts";
import { isExitState, runIsLiveSync } from "../../runs/state.ts";
import { isSameProcess } from "./identity.ts";
import { listRunIds, readRunSync } from "./store.ts";
import { localGroupAlive, viewRun } from "./view.ts";

/**
 * An ended local run its monitor has not finished with: `exit.json` (and maybe `endedAt`) is
 * written, but the monitor, still alive, has yet to settle the isolated run's worktree, run the
 * `--on-exit` hook and append `run.finished` to the history. Removing its directory now would
 * lose the worktree's outcome (a kept worktree with uncommitted work) under the monitor.
 */
export function stillSettling(root: string, v: RunView): boolean {
  if (!isExitState(v.state)) return false;
  if (v.record.backend === "k8s" || v.record.monitor === null || !isSameProcess(v.record.monitor))
    return false;
  let history: string;
  try {
    history = readFileSync(runPaths(root, v.record.runId).history, "utf8");
  } catch {
    return true; // no history yet: the monitor has not finished either
  }
  return !history.includes('"event":"run.finished"');
}

/** A local run of a task that still runs in (or is being settled in) the task's worktrees. */
export interface ActiveTaskRun {
  runId: string;
  task: string;
  /** The run's working directory: a leg's worktree, or the task directory with --span. */
  cwd: string;
  /** Its state now (`starting`, `running`; an ended one being settled; a `lost` one whose group lives). */
  state: string;
  /** Ended, its monitor still settling it (worktree outcome, hook, `run.finished`). */
  settling: boolean;
  /** How a hint names it: its name while that means it, else its id ({@link runArg}). */
  ref: string;
}

/**
 * Whether a task's run is still at work: live (`starting`, `running`), ended but still being
 * settled by its monitor ({@link stillSettling}), or `lost` (its monitor gone) while its
 * process group still runs. A run read as final otherwise (`exited`, `failed`, `killed` and
 * settled; `crashed`; `lost` with its group gone) is not.
 */
export function isActiveRun(root: string, v: RunView): boolean {
  if (isExitState(v.state)) return stillSettling(root, v);
  return runIsLiveSync(v.state, () => localGroupAlive(v));
}

/**
 * The local runs of the workspace at `root` that belong to a task and are still at work in it
 * ({@link isActiveRun}), oldest id first; of one task only when `taskId` is given. A run whose
 * record cannot be read (removed meanwhile, still being made, damaged) is left out: it holds no
 * worktree we could name. Reads each run's `run.json`; a run of another task costs nothing more.
 *
 * @example
 * ```ts
 * for (const r of activeTaskRuns("/w", "fix-login")) console.log(r.runId, r.state, r.cwd);
 * ```
 */
export function activeTaskRuns(root: string, taskId?: string): ActiveTaskRun[] {
  return activeRuns(root, (rec) => rec.task !== null && (taskId === undefined || rec.task === taskId)).map(
    (r) => ({ ...r, task: r.task as string }),
  );
}

/**
 * The local detached runs at work ({@link isActiveRun}) in the checkout at `cwd` itself, not in
 * a worktree of a task (started without --isolate), oldest id first.
 *
 * @example
 * ```ts
 * activeCheckoutRuns("/w", "/w/api").map((r) => r.runId); // a run started with --detach in api
 * ```
 */
export function activeCheckoutRuns(root: string, cwd: string): ActiveRun[] {
  return activeRuns(root, (rec) => rec.task === null && rec.cwd === cwd);
}

/** A local run still at work, as {@link activeTaskRuns} and {@link activeCheckoutRuns} find it. */
export type ActiveRun = Omit<ActiveTaskRun, "task"> & { task: string | null };

function activeRuns(root: string, wanted: (rec: RunRecord) => boolean): ActiveRun[] {
  const out: ActiveRun[] = [];
  // Every record is read anyway: the named ones tell a hint whether a name still means its run.
  const named: RunRecord[] = [];
  const names = new Map<string, string>();
  const created = new Map<string, string>();
  for (const runId of listRunIds(root).reverse()) {
    let view: RunView;
    try {
      const rec = readRunSync(root, runId);
      if (rec.name !== null) named.push(rec);
      if (rec.backend !== "local" || !wanted(rec)) continue;
      view = viewRun(root, runId);
    } catch {
      continue;
    }
    if (!isActiveRun(root, view)) continue;
    out.push({
      runId,
      task: view.record.task,
      cwd: view.record.cwd,
      state: view.state,
      settling: isExitState(view.state),
      ref: runId,
    });
    if (view.record.name !== null) names.set(runId, view.record.name);
    created.set(runId, view.record.createdAt);
  }
  for (const r of out) r.ref = runArg({ runId: r.runId, name: names.get(r.runId) ?? null }, named);
  // Oldest first, to the millisecond: run ids order only to the second (their suffix is random).
  const at = (r: ActiveRun) => ({ runId: r.runId, name: null, createdAt: created.get(r.runId) });
  return out.sort((a, b) => newestFirst(at(b), at(a)));
}
