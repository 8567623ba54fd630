import {
  advanceCursor,
  advanceOutput,
  cursorAdmits,
  type FleetCursor,
  formatCursor,
  keyOf,
  parseCursor,
} from "@ariel/core";
import {
  type CursoredEvent,
  FLEET_POLL_MS,
  FleetTail,
  type KnownWorkspace,
  sleep,
  type TailItem,
} from "@ariel/core/host";
import { MAX_QUEUED, newSubscriber, offer, type StreamResult, type Subscriber, take } from "./_subscriber.ts";

/**
 * One reader of the fleet's files for every client of `GET /api/events/stream` (one per output
 * mode: a client that drops output does not make the reader read output files), as
 * {@link followShared} is for one run: each workspace's histories and output files are read once
 * per poll, not once per client, and every client gets the same events (an output line's `ts` is
 * when the shared reader read it).
 *
 * A client joins without gap or duplicate: it subscribes first (batches queue up), then polls
 * alone once from its own cursor to the files' end, then takes the queued and later batches,
 * dropping what it already has: a history event its cursor does not admit, an output line that
 * ends at or before the offset its cursor holds for that stream. The first client's cursor after
 * its own poll starts the reader. A client that falls too far behind is closed with `overflow`
 * (it reconnects with `Last-Event-ID` and resumes exactly); the reader stops when its last client
 * leaves.
 */

interface Hub {
  subscribers: Set<Subscriber<TailItem[]>>;
  /** It stopped on an error: its clients end (and reconnect). */
  failed: boolean;
  stop: AbortController;
}

const hubs = new Map<boolean, Hub>();

function startHub(
  known: () => Promise<readonly KnownWorkspace[]>,
  from: FleetCursor,
  output: boolean,
  maxQueued: number,
): Hub {
  const hub: Hub = { subscribers: new Set(), failed: false, stop: new AbortController() };
  hubs.set(output, hub);
  const tail = new FleetTail(known, from, { output });
  (async () => {
    while (!hub.stop.signal.aborted) {
      const items = await tail.pollItems();
      if (hub.stop.signal.aborted) return;
      if (items.length > 0) offer(hub.subscribers, items, maxQueued);
      await sleep(FLEET_POLL_MS, hub.stop.signal);
    }
  })().catch(() => {
    hub.failed = true;
    if (hubs.get(output) === hub) hubs.delete(output);
    for (const s of hub.subscribers) s.wake?.();
  });
  return hub;
}

/** Whether a client at `at` lacks `item` (an event the shared reader found). */
function lacks(at: FleetCursor, item: TailItem): boolean {
  if (item.stream === undefined) return cursorAdmits(at, item.event);
  const seen = at.seen.get(keyOf(item.event));
  return seen === undefined || item.next! > seen[item.stream];
}

/**
 * The fleet's events after `from`, batch by batch, read by the reader shared with every other
 * client. Never `ended`: ends when this client fell more than `maxQueued` batches behind
 * (`result.end` = `overflow`), or when `signal` aborts or the shared reader failed (`stopped`);
 * either way the client reconnects.
 */
export async function* followFleetShared(
  known: () => Promise<readonly KnownWorkspace[]>,
  from: FleetCursor,
  output: boolean,
  signal: AbortSignal,
  result: StreamResult,
  maxQueued: number = MAX_QUEUED,
): AsyncGenerator<CursoredEvent[]> {
  const sub = newSubscriber<TailItem[]>();
  let hub = hubs.get(output);
  hub?.subscribers.add(sub);
  try {
    const own = new FleetTail(known, from, { output });
    let at = from;
    for (;;) {
      // Catch up alone to the files' end (the hub, if any, queues for us meanwhile).
      const mine = await own.poll();
      at = parseCursor(own.cursor) ?? at; // with the runs it entered without an event (pinned)
      if (mine.length > 0) yield mine;
      if (signal.aborted) return;
      if (hub && !hub.failed) break;
      hub = hubs.get(output);
      sub.queue = [];
      sub.overflow = false;
      if (hub) {
        // Another client started the reader while we read: subscribe and catch up once more.
        hub.subscribers.add(sub);
        continue;
      }
      hub = startHub(known, at, output, maxQueued);
      hub.subscribers.add(sub);
      break;
    }
    const reader = hub;
    for await (const batch of take(sub, () => reader.failed, signal)) {
      const out: CursoredEvent[] = [];
      for (const item of batch) {
        if (!lacks(at, item)) continue;
        at =
          item.stream === undefined
            ? advanceCursor(at, item.event)
            : advanceOutput(at, item.event, item.stream, item.next!);
        out.push({ event: item.event, cursor: formatCursor(at) });
      }
      if (out.length > 0) yield out;
    }
    if (sub.overflow && !signal.aborted) {
      result.end = "overflow";
      result.cursor = formatCursor(at);
    }
  } finally {
    if (hub) {
      hub.subscribers.delete(sub);
      if (hub.subscribers.size === 0) {
        hub.stop.abort();
        if (hubs.get(output) === hub) hubs.delete(output);
      }
    }
  }
}
