import { sseFrame } from "@ariel/core";

/**
 * SSE frames by the event object they carry: clients that follow one run share its event objects
 * (read once), so an event is serialized once, not once per client. The id is part of the frame
 * (a detached run's cursor depends on where a client is in the output too): only the same id
 * reuses it.
 */
const frames = new WeakMap<object, { id: string | undefined; text: string }>();

function frameOf(item: SseItem): string {
  const { id, event, data } = item;
  const key = typeof data === "object" && data !== null ? data : null;
  const cached = key ? frames.get(key) : undefined;
  if (cached !== undefined && cached.id === id) return cached.text;
  const text = sseFrame({ ...(id !== undefined ? { id } : {}), event, data: JSON.stringify(data) });
  if (key) frames.set(key, { id, text });
  return text;
}

/** Keep-alive comment interval: a dead client is noticed within this long. */
const PING_MS = 15_000;

export interface SseItem {
  id?: string;
  event: string;
  data: unknown;
}

/**
 * An SSE response fed by `source`, one message per item and one write per batch, pulled as the
 * client reads (a slow client slows its own source, nobody else's). The source's signal aborts
 * when the client goes away; the response ends when the source does.
 */
export function sseResponse(
  source: (signal: AbortSignal) => AsyncIterable<SseItem[]>,
  clientSignal: AbortSignal,
): Response {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  clientSignal.addEventListener("abort", onAbort, { once: true });
  const enc = new TextEncoder();
  let ping: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let it: AsyncIterator<SseItem[]> | undefined;
  const finish = () => {
    closed = true;
    clearInterval(ping);
    clientSignal.removeEventListener("abort", onAbort);
  };
  const body = new ReadableStream<Uint8Array>({
    start(ctl) {
      ctl.enqueue(enc.encode("retry: 1000\n\n"));
      it = source(stop.signal)[Symbol.asyncIterator]();
      ping = setInterval(() => {
        if (!closed) ctl.enqueue(enc.encode(": ping\n\n"));
      }, PING_MS);
    },
    async pull(ctl) {
      try {
        const r = await it!.next();
        if (closed) return;
        if (r.done) {
          finish();
          ctl.close();
          return;
        }
        let text = "";
        for (const item of r.value) text += frameOf(item);
        // An empty batch still answers the pull (the next one waits for the source again).
        ctl.enqueue(enc.encode(text === "" ? ": \n\n" : text));
      } catch (e) {
        if (closed) return;
        ctl.enqueue(
          enc.encode(sseFrame({ event: "error", data: JSON.stringify({ message: (e as Error).message }) })),
        );
        finish();
        ctl.close();
      }
    },
    cancel() {
      finish();
      stop.abort();
      // A source that waits at a yield (its batch unread, or no pull since) is never resumed: end
      // it, so that its finally runs (a shared reader drops this client, and stops with the last).
      it?.return?.(undefined).catch(() => {});
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "x-accel-buffering": "no" },
  });
}
