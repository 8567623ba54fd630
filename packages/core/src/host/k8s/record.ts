import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { ArielError } from "../../errors.ts";
import { type JobPlan, parseJobPlan } from "../../k8s/job.ts";
import { runPaths } from "../../runs/paths.ts";
import type { PlannedRun } from "../../runs/plan.ts";
import { runStartedEvent } from "../runs/detach.ts";
import { appendHistory, createRun } from "../runs/store.ts";

/**
 * Record a k8s run whose Job the API just created: its directory, `job.json` (the plan, for a
 * respawn), `run.json` (state `starting`, the Job's namespace, name and uid) and its
 * `run.started` event. Used by `ariel-spawn --backend k8s` and by `ariel-runs respawn`.
 */
export async function recordK8sRun(
  root: string,
  run: PlannedRun & { k8s: NonNullable<PlannedRun["k8s"]> },
  plan: JobPlan,
  atMs: number,
): Promise<void> {
  const p = runPaths(root, run.runId);
  mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  writeFileSync(p.job, `${JSON.stringify(plan)}\n`, { mode: 0o600 });
  await createRun(root, run);
  await appendHistory(
    root,
    run.runId,
    runStartedEvent(run, atMs, {
      backend: "k8s",
      job: { namespace: run.k8s.namespace, name: run.k8s.job, uid: run.k8s.uid },
    }),
  );
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
