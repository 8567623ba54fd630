import { ArielError } from "../../../../errors.ts";
import { LABELS } from "../../../../k8s/names.ts";
import { type JobLike, jobRunState, type PodLike, podExit } from "../../../../k8s/state.ts";
import type { RunView } from "../../../../runs/backend.ts";
import type { K8sRef, RunRecord } from "../../../../runs/record.ts";
import { eventRecord } from "../../../../spawn/events.ts";
import { appendHistory, readRunSync, updateRun } from "../../../runs/store.ts";
import { viewRun } from "../../../runs/view.ts";
import { clientFor, type KubeClient, type KubeObject } from "./client.ts";
import { k8sJobCreated } from "./record.ts";

/** The run's Job, as its `run.json` records it. */
export function refOf(record: RunRecord): K8sRef {
  if (!record.k8s) {
    throw new ArielError(
      "ERR_RECORD_CORRUPT",
      `run ${record.runId} is a k8s run without its Job in run.json`,
    );
  }
  return record.k8s;
}

/** The run's pods (newest decides its log and exit). */
export async function podsOf(client: KubeClient, record: RunRecord): Promise<KubeObject[]> {
  const ref = refOf(record);
  return (await client.listPods(ref.namespace, `${LABELS.run}=${record.runId}`)).items;
}

/**
 * A k8s run's view now: a run whose end is recorded reads from `run.json` alone; otherwise its
 * Job and pods are asked, and a final state seen for the first time is recorded (exit code of
 * the `run` container, `endedAt`) so later reads, and `wait`, need no cluster. A Job with the
 * same name but another uid is not ours: the run is `lost`.
 */
export async function viewK8sRun(root: string, runId: string, read?: RunRecord): Promise<RunView> {
  let record = read ?? readRunSync(root, runId);
  if (record.exit?.state !== undefined) return viewRun(root, runId, record);
  const ref = refOf(record);
  const client = await clientFor(ref.kubeconfig);
  const found = await client.getJob(ref.namespace, ref.job);
  // No uid yet: spawn recorded the run and was stopped before it recorded the Job's uid (or is
  // creating it now). A Job with the run's name and label is that one: adopt it.
  const labels = (found?.metadata.labels ?? {}) as Record<string, string>;
  if (found && ref.uid === "" && labels[LABELS.run] === runId) {
    record = await k8sJobCreated(root, runId, String(found.metadata.uid ?? ""), Date.now());
  }
  const job = found && found.metadata.uid === record.k8s?.uid ? found : null;
  const pods = job === null ? [] : await podsOf(client, record);
  const state = jobRunState(job as JobLike | null, pods as PodLike[], record.kill !== null);
  const now = new Date().toISOString();
  if (state === "running" && record.startedAt === null) {
    const updated = await updateRun(root, runId, (cur) => (cur.startedAt ? null : { startedAt: now }));
    return { record: updated, exit: null, state };
  }
  if (state !== "exited" && state !== "failed" && state !== "killed") return { record, exit: null, state };
  return recordK8sEnd(root, record, pods as PodLike[], state, now);
}

/**
 * A final state seen for the first time: the end in `run.json` (exit code of the `run`
 * container) and, by the view that wrote it, `run.finished` in the history (the monitor's
 * closing event of a local run: readers of the history, the fleet, see the end).
 */
async function recordK8sEnd(
  root: string,
  record: RunRecord,
  pods: PodLike[],
  state: "exited" | "failed" | "killed",
  now: string,
): Promise<RunView> {
  const runId = record.runId;
  const ended = podExit(pods, state);
  const reason = record.kill?.reason ?? ended.reason;
  let wrote = false;
  const updated = await updateRun(root, runId, (cur) => {
    if (cur.exit) return null;
    wrote = true;
    return {
      endedAt: now,
      startedAt: cur.startedAt ?? now,
      exit: { code: ended.code, signal: null, status: ended.status, endedAt: now, state, reason },
    };
  });
  if (wrote) {
    await appendHistory(
      root,
      runId,
      eventRecord(runId, Date.parse(now), "run.finished", null, {
        state,
        status: ended.status,
        code: ended.code,
        signal: null,
        ...(reason !== null ? { reason } : {}),
        restarts: ended.restarts,
      }),
    );
  }
  return viewRun(root, updated.runId);
}
