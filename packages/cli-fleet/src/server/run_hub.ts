import { type FleetEvent, formatRunCursor, parseRunCursor, type RunCursor } from "@ariel/core";
import {
  type CursoredEvent,
  type FleetWorkspaceRef,
  followRunBatches,
  type LoadedRun,
} from "@ariel/core/host";
import { MAX_QUEUED, newSubscriber, offer, type StreamResult, type Subscriber, take } from "./_subscriber.ts";

/**
 * One reader per live run, fanned out to every client following it: the run's files are read
 * (and parsed, and the runs backend asked for its state) once per poll, not once per client.
 *
 * A client joins without gap or duplicate: it subscribes first (batches queue up), then reads
 * from its own cursor to the files' end itself, then takes the queued and later batches, dropping
 * what it already has. Whether it has an event is decided by position: a history event by its
 * seq, a detached run's output line by its offset in its stream, which the hub's cursor before
 * and after the event tell apart. The cursor a client is sent is the larger of its own and the
 * hub's, position by position. A client that falls too far behind is closed with `overflow` (it
 * reconnects with `Last-Event-ID` and resumes exactly); the hub stops when its last client leaves.
 */

interface Batch {
  /** The hub's cursor before the batch's first event. */
  before: RunCursor;
  events: CursoredEvent[];
}

interface Hub {
  subscribers: Set<Subscriber<Batch>>;
  ended: boolean;
  /** It stopped on an error, not at the run's end. */
  failed: boolean;
  stop: AbortController;
}

const hubs = new Map<string, Hub>();

function startHub(
  key: string,
  ws: FleetWorkspaceRef,
  run: LoadedRun,
  from: RunCursor,
  maxQueued: number,
): Hub {
  const hub: Hub = { subscribers: new Set(), ended: false, failed: false, stop: new AbortController() };
  hubs.set(key, hub);
  const finish = (failed: boolean) => {
    hub.failed = failed;
    hub.ended = true;
    if (hubs.get(key) === hub) hubs.delete(key);
    for (const s of hub.subscribers) s.wake?.();
  };
  (async () => {
    let before = from;
    for await (const events of followRunBatches(ws, run, from, hub.stop.signal)) {
      const batch = { before, events };
      before = parseRunCursor(events.at(-1)!.cursor) ?? before;
      offer(hub.subscribers, batch, maxQueued);
    }
  })().then(
    () => finish(false),
    () => finish(true),
  );
  return hub;
}

const max = (a: RunCursor, b: RunCursor): RunCursor => ({
  seq: Math.max(a.seq, b.seq),
  stdout: Math.max(a.stdout, b.stdout),
  stderr: Math.max(a.stderr, b.stderr),
});

/** Whether a client at `at` lacks `event`, which moved the hub's cursor from `prev` to `next`. */
function lacks(at: RunCursor, event: FleetEvent, prev: RunCursor, next: RunCursor): boolean {
  if (next.seq !== prev.seq) return event.seq > at.seq;
  if (next.stdout !== prev.stdout) return event.seq >= at.stdout;
  if (next.stderr !== prev.stderr) return event.seq >= at.stderr;
  return false;
}

/** Whether an event ends a run's stream (as {@link followRunBatches} decides). */
const closes = (e: FleetEvent) => e.event === "run.state" && e.to !== "running";

/**
 * A live run's events after `from`, batch by batch, shared with every other client of the run.
 * Ends after the run's closing events (`result.end` = `ended`), when this client fell more than
 * `maxQueued` batches behind (`overflow`), or when `signal` aborts or the shared reader failed
 * (`stopped`); only `ended` means the run is over, in the other cases the client reconnects.
 * (A hub's limit is that of the client that started it.)
 */
export async function* followShared(
  ws: FleetWorkspaceRef,
  run: LoadedRun,
  from: RunCursor,
  signal: AbortSignal,
  result: StreamResult,
  maxQueued: number = MAX_QUEUED,
): AsyncGenerator<CursoredEvent[]> {
  const key = `${ws.hash}/${run.view.runId}`;
  const detached = run.detached !== null;
  const sub = newSubscriber<Batch>();
  let at = from;
  let hub = hubs.get(key);
  hub?.subscribers.add(sub);
  try {
    for (;;) {
      // Catch up alone to the files' end (the hub, if any, queues for us meanwhile).
      let closed = false;
      for await (const batch of followRunBatches(ws, run, at, signal, true)) {
        at = parseRunCursor(batch.at(-1)!.cursor) ?? at;
        if (batch.some((c) => closes(c.event))) closed = true;
        yield batch;
      }
      if (closed || signal.aborted) {
        result.end = closed ? "ended" : "stopped";
        return;
      }
      if (hub && !hub.ended) break;
      hub = hubs.get(key);
      // Another client started the hub while we read: subscribe and catch up once more.
      sub.queue = [];
      sub.overflow = false; // (what the ended hub had queued for us was read from the files)
      if (hub) {
        hub.subscribers.add(sub);
        continue;
      }
      hub = startHub(key, ws, run, at, maxQueued);
      hub.subscribers.add(sub);
      break;
    }
    const reader = hub;
    for await (const batch of take(sub, () => reader.ended, signal)) {
      const out: CursoredEvent[] = [];
      let prev = batch.before;
      for (const c of batch.events) {
        const next = parseRunCursor(c.cursor) ?? prev;
        if (lacks(at, c.event, prev, next)) {
          at = max(at, next);
          out.push({ event: c.event, cursor: formatRunCursor(at, detached) });
        }
        prev = next;
      }
      if (out.length > 0) yield out;
    }
    // Fallen behind, or drained after the reader's end: ended unless it failed.
    if (signal.aborted) result.end = "stopped";
    else if (sub.overflow) {
      result.end = "overflow";
      result.cursor = formatRunCursor(at, detached);
    } else result.end = reader.failed ? "stopped" : "ended";
  } finally {
    if (hub) {
      hub.subscribers.delete(sub);
      if (hub.subscribers.size === 0 && !hub.ended) {
        hub.stop.abort();
        if (hubs.get(key) === hub) hubs.delete(key);
      }
    }
  }
}
