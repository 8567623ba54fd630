import { describe, expect, it } from "vitest";
import { type SseItem, sseResponse } from "./sse.ts";

// The SSE response of the streams: its frames, one write per batch, and how its source is ended
// when the client goes away (the shared readers of run_hub.ts and events_hub.ts stop on it).

/** A source of `batches`, then one that waits for the signal; `ended` resolves once it has finished. */
function source(batches: SseItem[][]) {
  let ended!: () => void;
  const done = new Promise<void>((r) => {
    ended = r;
  });
  const state = { finished: false, done };
  const gen = async function* (signal: AbortSignal): AsyncGenerator<SseItem[]> {
    try {
      for (const b of batches) yield b;
      await new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
    } finally {
      state.finished = true;
      ended();
    }
  };
  return { gen, state };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe("sseResponse", () => {
  it("retry first, then one chunk per batch; an empty batch is a comment; an error ends it with event: error", async () => {
    const src = async function* (): AsyncGenerator<SseItem[]> {
      yield [
        { id: "1", event: "a", data: { x: 1 } },
        { event: "b", data: "two\nlines" },
      ];
      yield [];
      throw new Error("gone\nbad");
    };
    const res = sseResponse(src, new AbortController().signal);
    expect([res.status, Object.fromEntries(res.headers)]).toEqual([
      200,
      { "content-type": "text/event-stream; charset=utf-8", "x-accel-buffering": "no" },
    ]);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    const chunks: string[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(dec.decode(r.value));
    expect(chunks).toEqual([
      "retry: 1000\n\n",
      'id: 1\nevent: a\ndata: {"x":1}\n\nevent: b\ndata: "two\\nlines"\n\n',
      ": \n\n",
      'event: error\ndata: {"message":"gone\\nbad"}\n\n',
    ]);
  });

  it("a client that goes away while its read waits on the source: the source sees the abort and finishes", async () => {
    const { gen, state } = source([]);
    const reader = sseResponse(gen, new AbortController().signal).body!.getReader();
    await reader.read(); // retry
    const pending = reader.read(); // the source waits for its signal
    await tick();
    expect(state.finished).toBe(false);
    await reader.cancel();
    await state.done;
    expect([state.finished, await pending]).toEqual([true, { done: true, value: undefined }]);
  });

  it("a client that goes away right after a batch: the source, paused at its yield, is finished", async () => {
    const { gen, state } = source([[{ event: "a", data: 1 }]]);
    const reader = sseResponse(gen, new AbortController().signal).body!.getReader();
    await reader.read(); // retry
    await reader.read(); // the batch; no pull has resumed the source yet
    await reader.cancel();
    await tick();
    expect(state.finished).toBe(true);
  });

  it("a client that goes away with a batch still unread: the source is finished too (its finally runs)", async () => {
    const { gen, state } = source([[{ event: "a", data: 1 }], [{ event: "b", data: 2 }]]);
    const reader = sseResponse(gen, new AbortController().signal).body!.getReader();
    await reader.read(); // retry
    await reader.read(); // batch a; batch b is read from the source and waits in the stream's queue
    await tick();
    await reader.cancel();
    await tick();
    expect(state.finished).toBe(true);
  });

  it("the client's own signal aborts the source", async () => {
    const { gen, state } = source([]);
    const client = new AbortController();
    const reader = sseResponse(gen, client.signal).body!.getReader();
    await reader.read(); // retry
    const next = reader.read();
    await tick();
    client.abort();
    await state.done;
    expect(state.finished).toBe(true);
    await reader.cancel();
    await next;
  });
});
