import { describe, expect, it, vi } from "vitest";
import { newSubscriber, offer, type Subscriber, take } from "./_subscriber.ts";

// A shared reader's client (_subscriber.ts): what a new one holds, how offer queues and marks
// overflow at the limit, and when take yields, waits, and stops (its abort listener gone after).

/** Let pending promise callbacks run, `n` turns of the event loop. */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Whether `p` settled within a few turns of the event loop (bounded; no clock involved). */
async function settles<T>(p: Promise<T>): Promise<boolean> {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await turns();
  return done;
}

const subWith = (queue: string[], overflow = false): Subscriber<string> => ({
  ...newSubscriber<string>(),
  queue: [...queue],
  overflow,
});

describe("newSubscriber", () => {
  it("holds nothing, waits for nobody, has not overflowed", () => {
    expect(newSubscriber()).toEqual({ queue: [], wake: null, overflow: false });
  });
});

describe("offer", () => {
  it("queues the batch for each subscriber and wakes it; at max batches waiting it overflows instead", () => {
    const a = newSubscriber<string>();
    const b = subWith(["x", "y"]);
    const wake = vi.fn();
    a.wake = wake;
    offer([a, b], "z", 2);
    expect([a.queue, a.overflow, b.queue, b.overflow]).toEqual([["z"], false, ["x", "y"], true]);
    expect(wake).toHaveBeenCalledTimes(1);
  });

  it("one below max still queues", () => {
    const s = subWith(["x"]);
    offer([s], "y", 2);
    expect([s.queue, s.overflow]).toEqual([["x", "y"], false]);
  });
});

describe("take", () => {
  it("yields what is queued without waiting, then what is offered later, in order", async () => {
    const s = subWith(["a", "b"]);
    const it = take(s, () => false, new AbortController().signal);
    const first = it.next();
    expect(await settles(first)).toBe(true);
    expect(await first).toEqual({ done: false, value: "a" });
    expect(await it.next()).toEqual({ done: false, value: "b" });
    const next = it.next();
    expect(await settles(next)).toBe(false);
    offer([s], "c", 10);
    expect(await next).toEqual({ done: false, value: "c" });
    await it.return(undefined);
  });

  it("once the reader is over: what was queued is still taken, then it ends", async () => {
    const s = subWith(["a"]);
    const it = take(s, () => true, new AbortController().signal);
    expect(await it.next()).toEqual({ done: false, value: "a" });
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it("an overflowed subscriber ends at once, its queue left untaken", async () => {
    const s = subWith(["a"], true);
    const it = take(s, () => false, new AbortController().signal);
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(s.queue).toEqual(["a"]);
  });

  it("an abort while it waits ends it (the abort wakes it), with nothing yielded", async () => {
    const s = newSubscriber<string>();
    const ctl = new AbortController();
    const it = take(s, () => false, ctl.signal);
    const next = it.next();
    expect(await settles(next)).toBe(false);
    ctl.abort();
    expect(await settles(next)).toBe(true);
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it("an abort ends it even with batches queued", async () => {
    const s = subWith(["a", "b"]);
    const ctl = new AbortController();
    const it = take(s, () => false, ctl.signal);
    expect(await it.next()).toEqual({ done: false, value: "a" });
    ctl.abort();
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it("an abort while it is paused at a yield (nobody waiting) is harmless", async () => {
    const s = subWith(["a"]);
    const ctl = new AbortController();
    const it = take(s, () => false, ctl.signal);
    expect(await it.next()).toEqual({ done: false, value: "a" });
    expect(s.wake).toBe(null);
    ctl.abort(); // its listener runs with no wake set
    await turns();
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it("once ended, its abort listener is gone: a later abort wakes nobody", async () => {
    const s = subWith(["a"]);
    const ctl = new AbortController();
    const it = take(s, () => true, ctl.signal);
    expect(await it.next()).toEqual({ done: false, value: "a" });
    expect(await it.next()).toEqual({ done: true, value: undefined });
    const wake = vi.fn();
    s.wake = wake;
    ctl.abort();
    expect(wake).not.toHaveBeenCalled();
  });
});
