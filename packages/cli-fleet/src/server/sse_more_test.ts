import { afterEach, describe, expect, it, vi } from "vitest";
import { type SseItem, sseResponse } from "./sse.ts";

// More of sseResponse: an event object serialized once for every client that sends it with the
// same id, the keep-alive comment every 15 s (fake timers) that stops with the stream, the
// client's signal let go once the stream ends, and a source that ends before or after a cancel.

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const dec = new TextDecoder();

/** Let pending promise callbacks run, a few turns of the event loop. */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Every chunk of a response, as text, until it ends. */
async function chunksOf(res: Response): Promise<string[]> {
  const reader = res.body!.getReader();
  const out: string[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(dec.decode(r.value));
  return out;
}

/** A source of `batches`, then done. */
const batchesOf = (...batches: SseItem[][]) =>
  async function* (): AsyncGenerator<SseItem[]> {
    yield* batches;
  };

/** A source that yields what `push` gives it and ends on `end()`; it records its signal. */
function pushed() {
  let wake: (() => void) | null = null;
  const queue: SseItem[][] = [];
  const state = { ended: false, signal: null as AbortSignal | null };
  const gen = async function* (signal: AbortSignal): AsyncGenerator<SseItem[]> {
    state.signal = signal;
    for (;;) {
      while (queue.length === 0 && !state.ended) await new Promise<void>((r) => (wake = r));
      if (queue.length === 0) return;
      yield queue.shift()!;
    }
  };
  const push = (b: SseItem[]) => {
    queue.push(b);
    wake?.();
  };
  const end = () => {
    state.ended = true;
    wake?.();
  };
  return { gen, push, end, state };
}

describe("sseResponse frames", () => {
  it("an event object sent by two clients with the same id is serialized once; the frames are the same", async () => {
    const event = { v: 1, seq: 3, data: "x" };
    const stringify = vi.spyOn(JSON, "stringify");
    const items: SseItem[] = [{ id: "3", event: "output", data: event }];
    const a = await chunksOf(sseResponse(batchesOf(items), new AbortController().signal));
    const b = await chunksOf(sseResponse(batchesOf(items), new AbortController().signal));
    const frame = 'id: 3\nevent: output\ndata: {"v":1,"seq":3,"data":"x"}\n\n';
    expect([a, b]).toEqual([
      ["retry: 1000\n\n", frame],
      ["retry: 1000\n\n", frame],
    ]);
    expect(stringify.mock.calls.filter(([v]) => v === event)).toHaveLength(1);
  });

  it("the same object with another id is a frame of its own, with that id", async () => {
    const event = { seq: 4 };
    const at = (id: string) =>
      sseResponse(batchesOf([{ id, event: "e", data: event }]), new AbortController().signal);
    expect(await chunksOf(at("4.1.0"))).toEqual([
      "retry: 1000\n\n",
      'id: 4.1.0\nevent: e\ndata: {"seq":4}\n\n',
    ]);
    expect(await chunksOf(at("4.2.0"))).toEqual([
      "retry: 1000\n\n",
      'id: 4.2.0\nevent: e\ndata: {"seq":4}\n\n',
    ]);
    expect(await chunksOf(at("4.2.0"))).toEqual([
      "retry: 1000\n\n",
      'id: 4.2.0\nevent: e\ndata: {"seq":4}\n\n',
    ]);
  });

  it("data that is no object (null, a number, a string) is framed each time, with or without an id", async () => {
    const items: SseItem[] = [
      { event: "a", data: null },
      { id: "1", event: "b", data: 2 },
      { event: "c", data: "s" },
      { event: "a", data: null },
    ];
    expect(await chunksOf(sseResponse(batchesOf(items), new AbortController().signal))).toEqual([
      "retry: 1000\n\n",
      'event: a\ndata: null\n\nid: 1\nevent: b\ndata: 2\n\nevent: c\ndata: "s"\n\nevent: a\ndata: null\n\n',
    ]);
  });
});

describe("sseResponse keep-alive", () => {
  it("a comment every 15 s while the source waits; none after the stream ended (its timer cleared)", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const src = pushed();
    const reader = sseResponse(src.gen, new AbortController().signal).body!.getReader();
    expect(dec.decode((await reader.read()).value)).toBe("retry: 1000\n\n");
    expect(vi.getTimerCount()).toBe(1);
    const first = reader.read();
    vi.advanceTimersByTime(15_000);
    expect(dec.decode((await first).value)).toBe(": ping\n\n");
    const second = reader.read();
    vi.advanceTimersByTime(15_000);
    expect(dec.decode((await second).value)).toBe(": ping\n\n");
    src.push([{ event: "a", data: 1 }]);
    expect(dec.decode((await reader.read()).value)).toBe("event: a\ndata: 1\n\n");
    const last = reader.read();
    src.end();
    expect(await last).toEqual({ done: true, value: undefined });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a cancelled stream's timer is cleared too", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const src = pushed();
    const reader = sseResponse(src.gen, new AbortController().signal).body!.getReader();
    await reader.read();
    await reader.cancel();
    expect([vi.getTimerCount(), src.state.signal?.aborted]).toEqual([0, true]);
  });
});

describe("sseResponse and the client's signal", () => {
  it("a stream that ended lets go of the client's signal: a later abort reaches no source", async () => {
    const src = pushed();
    const client = new AbortController();
    const res = sseResponse(src.gen, client.signal);
    src.end();
    expect(await chunksOf(res)).toEqual(["retry: 1000\n\n"]);
    client.abort();
    expect(src.state.signal!.aborted).toBe(false);
  });

  it("a stream that ended on the source's error lets go of it too", async () => {
    let seen: AbortSignal | null = null;
    const src = async function* (signal: AbortSignal): AsyncGenerator<SseItem[]> {
      seen = signal;
      yield* [];
      throw new Error("no");
    };
    const client = new AbortController();
    const chunks = await chunksOf(sseResponse(src, client.signal));
    expect(chunks).toEqual(["retry: 1000\n\n", 'event: error\ndata: {"message":"no"}\n\n']);
    client.abort();
    expect(seen!.aborted).toBe(false);
  });
});

describe("sseResponse cancelled", () => {
  it("a source that is a plain iterator without return: the cancel still succeeds and its signal aborts", async () => {
    let signal: AbortSignal | null = null;
    let nexts = 0;
    const source = (s: AbortSignal): AsyncIterable<SseItem[]> => {
      signal = s;
      return {
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            nexts++;
            return { done: false, value: [{ event: "tick", data: nexts }] };
          },
        }),
      };
    };
    const reader = sseResponse(source, new AbortController().signal).body!.getReader();
    await reader.read(); // retry
    expect(dec.decode((await reader.read()).value)).toBe("event: tick\ndata: 1\n\n");
    await expect(reader.cancel()).resolves.toBeUndefined();
    expect(signal!.aborted).toBe(true);
  });

  it("a batch or an error the source gives after the cancel is dropped: nothing more, no error", async () => {
    for (const settle of ["batch", "error"] as const) {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const src = async function* (): AsyncGenerator<SseItem[]> {
        await gate;
        if (settle === "error") throw new Error("late");
        yield [{ event: "late", data: 1 }];
      };
      const errors: unknown[] = [];
      const onError = (e: unknown) => errors.push(e);
      process.on("unhandledRejection", onError);
      try {
        const reader = sseResponse(src, new AbortController().signal).body!.getReader();
        await reader.read(); // retry
        const pending = reader.read();
        await turns();
        await reader.cancel();
        release();
        await turns();
        expect([await pending, errors]).toEqual([{ done: true, value: undefined }, []]);
      } finally {
        process.off("unhandledRejection", onError);
      }
    }
  });
});
