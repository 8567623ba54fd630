import { isArielError } from "../../../../errors.ts";
import { latestPod, RUN_CONTAINER } from "../../../../k8s/state.ts";
import type { OutputRead, OutputStream } from "../../../../runs/backend.ts";
import type { RunRecord } from "../../../../runs/record.ts";
import { FINAL_STATES } from "../../../../runs/state.ts";
import { clientFor, type KubeClient } from "./client.ts";
import { followK8sLog } from "./follow.ts";
import { podsOf, refOf, viewK8sRun } from "./view.ts";
import { k8sChanges } from "./watch.ts";

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
 * Bytes of a k8s run's output from `from`: the `run` container's log is its one stream
 * (Kubernetes merges stdout and stderr, so `stderr` is empty).
 */
export async function readK8sOutput(
  record: RunRecord,
  stream: OutputStream,
  from: number,
  max: number,
): Promise<OutputRead> {
  if (stream === "stderr") return { start: from, bytes: new Uint8Array(), size: 0 };
  const all = await podLogBytes(await clientFor(refOf(record).kubeconfig), record);
  const start = Math.min(from, all.length);
  return { start, bytes: all.subarray(start, start + max), size: all.length };
}

/**
 * Follow a k8s run's log live from byte `from` until the run is final (a dropped connection
 * resumes without losing or repeating a line); `stderr` waits for the end, empty.
 */
export async function followK8sOutput(
  root: string,
  record: RunRecord,
  stream: OutputStream,
  from: number,
  write: (seq: number, bytes: Uint8Array) => void,
  signal?: AbortSignal,
): Promise<true> {
  const runId = record.runId;
  const ref = refOf(record);
  const final = async () => FINAL_STATES.has((await viewK8sRun(root, runId)).state);
  // changes() needs only the record's Job: no state read for it.
  const wait = (ms: number) => k8sChanges([{ record, exit: null, state: "running" }], ms, signal);
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
}
