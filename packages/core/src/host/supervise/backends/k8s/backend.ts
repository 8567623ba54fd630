import { promises as fsp } from "node:fs";
import { ArielError, isArielError } from "../../../../errors.ts";
import { respawnJob } from "../../../../k8s/job.ts";
import { LABELS } from "../../../../k8s/names.ts";
import {
  type JobLike,
  jobRunState,
  latestPod,
  type PodLike,
  podExit,
  RUN_CONTAINER,
} from "../../../../k8s/state.ts";
import type { RunBackend, RunProblem, RunView } from "../../../../runs/backend.ts";
import { runPaths } from "../../../../runs/paths.ts";
import type { RunRecord } from "../../../../runs/record.ts";
import { newestFirst } from "../../../../runs/resolve.ts";
import { FINAL_STATES } from "../../../../runs/state.ts";
import { eventRecord } from "../../../../spawn/events.ts";
import { appendHistory, listRunIds, readRunSync, updateRun } from "../../../runs/store.ts";
import { viewRun } from "../../../runs/view.ts";
import { testPause } from "../../../test-hooks.ts";
import { localBackend } from "../local/backend.ts";
import { isUnreachable, KubeClient, type KubeObject } from "./client.ts";
import { followK8sLog } from "./follow.ts";
import { readKubeconfig } from "./kubeconfig.ts";
import {
  jobNotCreatedError,
  k8sJobCreated,
  k8sJobRefused,
  readJobPlan,
  recordPendingK8sRun,
} from "./record.ts";

/** One client per kubeconfig file for the life of the process (credentials stay in memory). */
const clients = new Map<string, Promise<KubeClient>>();

/** The API client for a kubeconfig file. */
export function clientFor(kubeconfig: string): Promise<KubeClient> {
  let c = clients.get(kubeconfig);
  if (c === undefined) {
    c = readKubeconfig(kubeconfig).then((a) => new KubeClient(a));
    clients.set(kubeconfig, c);
  }
  return c;
}

function refOf(record: RunRecord) {
  if (!record.k8s) {
    throw new ArielError(
      "ERR_RECORD_CORRUPT",
      `run ${record.runId} is a k8s run without its Job in run.json`,
    );
  }
  return record.k8s;
}

/** The run's pods (newest decides its log and exit). */
async function podsOf(client: KubeClient, record: RunRecord): Promise<KubeObject[]> {
  const ref = refOf(record);
  return (await client.listPods(ref.namespace, `${LABELS.run}=${record.runId}`)).items;
}

/**
 * A k8s run's view now: a run whose end is recorded reads from `run.json` alone; otherwise its
 * Job and pods are asked, and a final state seen for the first time is recorded (exit code of
 * the `run` container, `endedAt`) so later reads, and `wait`, need no cluster. A Job with the
 * same name but another uid is not ours: the run is `lost`.
 */
export async function viewK8sRun(root: string, runId: string): Promise<RunView> {
  let record = readRunSync(root, runId);
  if (record.exit?.state !== undefined) return viewRun(root, runId);
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
  const ended = podExit(pods as PodLike[], state);
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
    // The monitor's closing event of a local run: readers of the history (the fleet) see the end.
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

/** The run container's whole log (a finished container's log stays readable until the pod goes). */
async function podLogBytes(client: KubeClient, record: RunRecord): Promise<Uint8Array> {
  const ref = refOf(record);
  const pod = latestPod(await podsOf(client, record));
  if (pod === null) return new Uint8Array();
  let stream: NodeJS.ReadableStream;
  try {
    stream = await client.podLog(ref.namespace, pod.metadata.name, RUN_CONTAINER);
  } catch (e) {
    // Not started yet (HTTP 400 "waiting to start") or gone: nothing to show yet.
    if (isArielError(e) && e.code === "ERR_REFUSED") return new Uint8Array();
    throw e;
  }
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks);
}

/**
 * The backend `ariel-runs` uses: each run by its record's `backend`. Local runs go to the local
 * backend unchanged; a k8s run's state comes from its Job and pods, its output from the `run`
 * container's log (one stream: Kubernetes merges stdout and stderr, so `stderr` is empty), a
 * signal deletes the Job with propagation `Background` (the pods go with it).
 */
export function runsBackend(root: string, hash: string): RunBackend {
  const local = localBackend(root, hash);
  const isK8s = (runId: string) => readRunSync(root, runId).backend === "k8s";
  return {
    name: "local",
    start: (specs) => local.start(specs),

    async list() {
      const runs: RunView[] = [];
      const problems: RunProblem[] = [];
      for (const runId of listRunIds(root)) {
        try {
          runs.push(isK8s(runId) ? await viewK8sRun(root, runId) : viewRun(root, runId));
        } catch (e) {
          if (!isArielError(e)) throw e;
          if (e.code === "ERR_RUN_NOT_FOUND") continue;
          problems.push({ runId, code: e.code, message: e.message });
        }
      }
      runs.sort((a, b) => newestFirst(a.record, b.record));
      return { runs, problems };
    },

    async get(runId) {
      return isK8s(runId) ? viewK8sRun(root, runId) : viewRun(root, runId);
    },

    async readOutput(runId, stream, from, max) {
      const record = readRunSync(root, runId);
      if (record.backend !== "k8s") return local.readOutput(runId, stream, from, max);
      if (stream === "stderr") return { start: from, bytes: new Uint8Array(), size: 0 };
      const all = await podLogBytes(await clientFor(refOf(record).kubeconfig), record);
      const start = Math.min(from, all.length);
      return { start, bytes: all.subarray(start, start + max), size: all.length };
    },

    async signal(view, signal) {
      if (view.record.backend !== "k8s") return local.signal(view, signal);
      const ref = refOf(view.record);
      const client = await clientFor(ref.kubeconfig);
      const job = await client.getJob(ref.namespace, ref.job);
      if (job === null || job.metadata.uid !== ref.uid) return "gone";
      return (await client.deleteJob(ref.namespace, ref.job, "Background")) ? "sent" : "gone";
    },

    async groupAlive(view) {
      if (view.record.backend !== "k8s") return local.groupAlive(view);
      return !FINAL_STATES.has(view.state);
    },

    async sendInput(runId, data) {
      if (!isK8s(runId)) return local.sendInput(runId, data);
      throw new ArielError("ERR_REFUSED", `run ${runId} runs on Kubernetes: it takes no input`);
    },

    changes,

    async followOutput(runId, stream, from, write, signal) {
      const record = readRunSync(root, runId);
      if (record.backend !== "k8s") return false;
      const ref = refOf(record);
      const final = async () => FINAL_STATES.has((await viewK8sRun(root, runId)).state);
      // changes() needs only the record's Job: no state read for it.
      const wait = (ms: number) => changes([{ record, exit: null, state: "running" }], ms, signal);
      if (stream === "stderr") {
        // Kubernetes merges the streams into one log: stderr is empty until the run ends.
        while (!signal?.aborted && !(await final())) await wait(2_000);
        return true;
      }
      const client = await clientFor(ref.kubeconfig);
      await followK8sLog(client, ref.namespace, from, write, {
        pods: () => podsOf(client, record),
        final,
        wait,
        ...(signal ? { signal } : {}),
      });
      return true;
    },

    async prepareRespawn(old) {
      if (old.backend !== "k8s") return null;
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
    },

    async remove(runId) {
      const p = runPaths(root, runId);
      await fsp.rm(p.dir, { recursive: true, force: true });
      await fsp.rm(p.history, { force: true });
    },
  };

  /** Resolve when a pod of these k8s runs changes (a watch event), after `ms` at the latest. */
  async function changes(views: readonly RunView[], ms: number, signal?: AbortSignal): Promise<void> {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), ms);
    const onAbort = () => stop.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await new Promise<void>((resolve) => {
        stop.signal.addEventListener("abort", () => resolve(), { once: true });
        for (const v of views) {
          const ref = v.record.k8s;
          if (!ref) continue;
          const selector = `${LABELS.run}=${v.record.runId}`;
          void (async () => {
            const client = await clientFor(ref.kubeconfig);
            const { resourceVersion } = await client.listPods(ref.namespace, selector);
            await client.watchPods(ref.namespace, selector, resourceVersion, () => stop.abort(), stop.signal);
          })().catch(() => {}); // the timeout still ends the wait; the next get() reports errors
        }
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      stop.abort();
    }
  }
}
