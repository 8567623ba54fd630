import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { ArielError, isArielError } from "../../../../errors.ts";
import { type JobPlan, parseJobPlan } from "../../../../k8s/job.ts";
import { runPaths } from "../../../../runs/paths.ts";
import type { PlannedRun } from "../../../../runs/plan.ts";
import type { K8sRef, RunRecord } from "../../../../runs/record.ts";
import { eventRecord } from "../../../../spawn/events.ts";
import { appendHistory, createRun, updateRun } from "../../../runs/store.ts";
import { runStartedEvent } from "../../detach.ts";

/**
 * Record a k8s run before its Job is created (`ariel-spawn --backend k8s`, `ariel-runs respawn`): its directory,
 * `job.json` and `run.json` (state `starting`, the Job's uid still empty), so that a crash
 * between the record and the Job leaves no Job that ariel does not know about: the run's view
 * finds the Job by its name and run label and adopts its uid, or shows the run `lost`.
 */
export async function recordPendingK8sRun(
  root: string,
  run: PlannedRun & { k8s: NonNullable<PlannedRun["k8s"]> },
  plan: JobPlan,
): Promise<void> {
  const p = runPaths(root, run.runId);
  mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  writeFileSync(p.job, `${JSON.stringify(plan)}\n`, { mode: 0o600 });
  await createRun(root, { ...run, k8s: { ...run.k8s, uid: "" } });
}

/**
 * The Job of a pending run exists: record its uid and the `run.started` event (once: a run
 * whose uid is recorded already is returned as it is). An empty `uid` (an answer without one)
 * records nothing: the run stays pending until its view adopts the Job by name and label.
 */
export async function k8sJobCreated(
  root: string,
  runId: string,
  uid: string,
  atMs: number,
): Promise<RunRecord> {
  let wrote = false;
  const run = await updateRun(root, runId, (cur) => {
    const k8s = cur.k8s;
    if (k8s?.uid !== "" || uid === "") return null;
    wrote = true;
    return { k8s: { ...k8s, uid } };
  });
  if (wrote) await appendHistory(root, runId, startedEvent(run as PlannedRun & { k8s: K8sRef }, uid, atMs));
  return run;
}

/**
 * The API refused a pending run's Job (an answer, so no Job exists): the run ends `failed`
 * (status 1, reason `job-not-created`), with its closing `run.finished` event.
 */
export async function k8sJobRefused(root: string, runId: string, atMs: number): Promise<void> {
  const now = new Date(atMs).toISOString();
  let wrote = false;
  await updateRun(root, runId, (cur) => {
    if (cur.exit) return null;
    wrote = true;
    return {
      endedAt: now,
      exit: { code: null, signal: null, status: 1, endedAt: now, state: "failed", reason: JOB_NOT_CREATED },
    };
  });
  if (!wrote) return;
  await appendHistory(
    root,
    runId,
    eventRecord(runId, atMs, "run.finished", null, {
      state: "failed",
      status: 1,
      code: null,
      signal: null,
      reason: JOB_NOT_CREATED,
      restarts: 0,
    }),
  );
}

/** The API's refusal `e` of run `runId`'s Job, saying that the run is recorded failed (a non-ariel error as it is). */
export function jobNotCreatedError(e: unknown, runId: string): unknown {
  if (!isArielError(e)) return e;
  return new ArielError(e.code, e.message, {
    hint: `run ${runId} is recorded as failed (ariel-runs list --all); no Job was created`,
    exit: e.exit,
    context: { ...e.context, runId },
  });
}

/** The exit reason of a k8s run whose Job the API refused to create. */
export const JOB_NOT_CREATED = "job-not-created";

function startedEvent(run: PlannedRun & { k8s: K8sRef }, uid: string, atMs: number) {
  return runStartedEvent(run, atMs, {
    backend: "k8s",
    job: { namespace: run.k8s.namespace, name: run.k8s.job, uid },
  });
}

/**
 * The plan a k8s run's Job was made from. A run recorded before ariel kept it (no `job.json`)
 * cannot be planned again: ERR_BACKEND_UNAVAILABLE (69); a damaged one is ERR_RECORD_CORRUPT.
 */
export function readJobPlan(root: string, runId: string): JobPlan {
  const path = runPaths(root, runId).job;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    throw new ArielError(
      "ERR_BACKEND_UNAVAILABLE",
      `cannot respawn ${runId}: its Job plan was not recorded (the run is older than respawn on Kubernetes)`,
      { hint: "start a new Job with ariel-spawn --detach --backend k8s", context: { runId } },
    );
  }
  let plan: JobPlan | null = null;
  try {
    plan = parseJobPlan(JSON.parse(text));
  } catch {}
  if (plan === null) {
    throw new ArielError("ERR_RECORD_CORRUPT", `run ${runId}: ${path} is not a Job plan`, {
      context: { runId, path },
    });
  }
  return plan;
}
