import { isArielError } from "../../../../errors.ts";
import {
  acceptLogLine,
  type LogCursor,
  newLogCursor,
  reopenLogCursor,
  sinceTimeOf,
  splitTimestamp,
} from "../../../../k8s/log_resume.ts";
import { latestPod, RUN_CONTAINER } from "../../../../k8s/state.ts";
import { sleep } from "../../../proc.ts";
import { isUnreachable, type KubeClient, type KubeObject } from "./client.ts";

/** How long to wait before reopening a dropped log stream. */
const REOPEN_MS = 200;
/** At most how long to wait for a retry's pod (or the run's end) between two pods. */
const BETWEEN_PODS_MS = 2_000;

/** How one log connection ended: complete (the container terminated), cut off, or refused. */
type StreamEnd = "complete" | "dropped" | "unavailable";

export interface FollowDeps {
  /** The run's pods now. */
  pods(): Promise<KubeObject[]>;
  /** Whether the run is final now (and its end recorded). */
  final(): Promise<boolean>;
  /** Resolve when the run may have changed (a pod event), after `ms` at the latest. */
  wait(ms: number): Promise<void>;
  signal?: AbortSignal;
}

/**
 * Follow a k8s run's output: the newest pod's `run` container log, streamed with `follow=true`
 * and `timestamps=true`. A connection that drops is reopened with `sinceTime` (the last printed
 * line's second) and the lines printed before are dropped by their timestamps, so none is lost
 * or repeated (core/k8s/log_resume.ts); bytes before `from` are skipped. The sequence of a byte
 * is its offset in the pod's log without timestamps, the same as `readOutput`'s; a retry's new
 * pod starts again at 0. Returns once the run is final and its last pod's log was read to its end.
 */
export async function followK8sLog(
  client: KubeClient,
  namespace: string,
  from: number,
  write: (seq: number, bytes: Uint8Array) => void,
  deps: FollowDeps,
): Promise<void> {
  let pod: string | null = null;
  let cursor = newLogCursor();
  let seq = 0;
  let skipBelow = from;
  let finalSeen = false;
  const emit = (content: Uint8Array) => {
    const end = seq + content.length;
    if (end > skipBelow) {
      const at = Math.max(seq, skipBelow);
      write(at, content.subarray(at - seq));
    }
    seq = end;
  };
  while (!deps.signal?.aborted) {
    const newest = latestPod(await deps.pods());
    if (newest !== null && newest.metadata.name !== pod) {
      if (pod !== null) skipBelow = 0; // a retry: its pod's log is new output
      pod = newest.metadata.name;
      cursor = newLogCursor();
      seq = 0;
    }
    const end: StreamEnd =
      newest === null
        ? "unavailable"
        : await streamOnce(client, namespace, newest.metadata.name, cursor, emit, deps.signal);
    cursor = reopenLogCursor(cursor);
    if (deps.signal?.aborted) return;
    if (finalSeen && end !== "dropped") return;
    if (!finalSeen && (await deps.final())) {
      finalSeen = true; // one more pass reads what came after the last connection
      continue;
    }
    if (end === "dropped") await sleep(REOPEN_MS, deps.signal);
    else await deps.wait(BETWEEN_PODS_MS);
  }
}

/** One connection to the pod's log, from the cursor on; each new line goes to `emit`. */
function streamOnce(
  client: KubeClient,
  namespace: string,
  pod: string,
  cursor: LogCursor,
  emit: (content: Uint8Array) => void,
  signal?: AbortSignal,
): Promise<StreamEnd> {
  const line = (bytes: Uint8Array) => {
    const { key, content } = splitTimestamp(bytes);
    if (acceptLogLine(cursor, key)) emit(content);
  };
  return client
    .podLog(namespace, pod, RUN_CONTAINER, { follow: true, timestamps: true, sinceTime: sinceTimeOf(cursor) })
    .then(
      (res) =>
        new Promise<StreamEnd>((resolve) => {
          let pending: Buffer = Buffer.alloc(0);
          const stop = () => res.destroy();
          signal?.addEventListener("abort", stop, { once: true });
          let settled = false;
          const done = (how: StreamEnd) => {
            if (settled) return;
            settled = true;
            signal?.removeEventListener("abort", stop);
            resolve(how);
          };
          res.on("data", (chunk: Buffer) => {
            pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
            let start = 0;
            for (let nl = pending.indexOf(0x0a); nl >= 0; nl = pending.indexOf(0x0a, start)) {
              line(pending.subarray(start, nl + 1));
              start = nl + 1;
            }
            pending = pending.subarray(start);
          });
          res.on("end", () => {
            // Complete: the container ended; a last line without its newline is whole.
            if (res.complete && pending.length > 0) line(pending);
            done(res.complete ? "complete" : "dropped");
          });
          res.on("error", () => done("dropped"));
          res.on("close", () => done(res.complete ? "complete" : "dropped"));
        }),
      (e: unknown) => {
        // 400 (waiting to start) or 404 (gone): nothing to stream from this pod now.
        if (isArielError(e) && e.code === "ERR_REFUSED") return "unavailable";
        // Hung up before answering: try again (an API that is down fails the next state read).
        if (isUnreachable(e)) return "dropped";
        throw e;
      },
    );
}
