/**
 * A client of a shared reader (run_hub.ts, events_hub.ts): the batches queued for it, how to
 * wake it, and whether it fell too far behind (then it is closed and reconnects with
 * `Last-Event-ID`).
 */
export interface Subscriber<T> {
  queue: T[];
  wake: (() => void) | null;
  overflow: boolean;
}

/**
 * How a shared stream ended for one client: after the run's closing events (`ended`), because
 * the client fell too far behind (`overflow`: it must reconnect from its last id), or otherwise
 * (`stopped`: the client went away, or the shared reader failed; it reconnects and resumes).
 */
export type StreamEnd = "ended" | "overflow" | "stopped";

/** What a shared stream tells its caller when it ends: how, and with `overflow` where to resume. */
export interface StreamResult {
  end: StreamEnd;
  /** With `overflow`: the client's cursor (its last event's), which it resumes from. */
  cursor: string | null;
}

/** Batches a client may have waiting before it is closed (about this many polls behind). */
export const MAX_QUEUED = 600;

export function newSubscriber<T>(): Subscriber<T> {
  return { queue: [], wake: null, overflow: false };
}

/** Queue `batch` for every subscriber, marking those with `max` batches waiting as overflowed. */
export function offer<T>(subscribers: Iterable<Subscriber<T>>, batch: T, max: number): void {
  for (const s of subscribers) {
    if (s.queue.length >= max) s.overflow = true;
    else s.queue.push(batch);
    s.wake?.();
  }
}

/**
 * The subscriber's batches as they come, until the reader is `over()` (what was queued before
 * is still taken), `signal` aborts, or the subscriber overflowed.
 *
 * @example
 * ```ts
 * for await (const batch of take(sub, () => hub.ended, signal)) send(batch);
 * ```
 */
export async function* take<T>(
  sub: Subscriber<T>,
  over: () => boolean,
  signal: AbortSignal,
): AsyncGenerator<T> {
  const onAbort = () => sub.wake?.();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      while (sub.queue.length === 0 && !over() && !sub.overflow && !signal.aborted) {
        await new Promise<void>((r) => {
          sub.wake = r;
        });
        sub.wake = null;
      }
      if (signal.aborted || sub.overflow || sub.queue.length === 0) return;
      yield sub.queue.shift()!;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
