import { respawnJob } from "../../../../k8s/job.ts";
import type { PlannedRun } from "../../../../runs/plan.ts";
import type { RunRecord } from "../../../../runs/record.ts";
import { testPause } from "../../../test-hooks.ts";
import { clientFor, isUnreachable } from "./client.ts";
import {
  jobNotCreatedError,
  k8sJobCreated,
  k8sJobRefused,
  readJobPlan,
  recordPendingK8sRun,
} from "./record.ts";
import { refOf } from "./view.ts";

/**
 * `respawn` of a k8s run: checked now (its Job plan, its kubeconfig: refused with nothing
 * killed), then, once the old run was killed, the new run started as spawn starts one. New
 * k8s runs start with `ariel-spawn --backend k8s` (spawn.ts).
 */
export async function prepareK8sRespawn(
  root: string,
  old: RunRecord,
): Promise<(planned: PlannedRun) => Promise<void>> {
  const ref = refOf(old);
  const plan = readJobPlan(root, old.runId);
  const client = await clientFor(ref.kubeconfig); // an unreadable kubeconfig: refused, nothing killed
  // As spawn does: the new run is recorded before its Job exists (a crash in between leaves
  // a run that shows lost, never a Job ariel does not know), then the Job, then its uid.
  return async (planned) => {
    const job = respawnJob(plan, planned.runId);
    const k8s = { ...ref, job: job.metadata.name, uid: "" };
    const next = { ...plan, facts: { ...plan.facts, runId: planned.runId } };
    await recordPendingK8sRun(root, { ...planned, k8s }, next);
    await testPause("k8s:respawn-after-record");
    let uid: string;
    try {
      uid = String((await client.createJob(job)).metadata.uid ?? "");
    } catch (e) {
      // An answer: no Job, the new run failed (job-not-created). No answer: its view will tell.
      if (isUnreachable(e)) throw e;
      await k8sJobRefused(root, planned.runId, Date.now());
      throw jobNotCreatedError(e, planned.runId);
    }
    await k8sJobCreated(root, planned.runId, uid, Date.now());
  };
}
