import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunBackend } from "../../runs/backend.ts";
import { followOutput } from "./_followed_output.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A backend whose followOutput writes `chunks` ([seq, text]) one per tick, then ends (or fails). */
function backend(chunks: [number, string][], fail?: Error): RunBackend {
  return {
    async followOutput(_runId, _stream, _from, write) {
      for (const [seq, text] of chunks) {
        await new Promise((r) => setTimeout(r, 1));
        write(seq, enc(text));
      }
      if (fail) throw fail;
      return true;
    },
  } as Partial<RunBackend> as RunBackend;
}

async function drain(b: RunBackend, from: number): Promise<[number, string][]> {
  const out = followOutput(b, "r1", from, new AbortController().signal);
  const got: [number, string][] = [];
  while (!out.done) {
    await out.wait(1_000);
    for (const l of out.lines(false).lines) got.push([l.seq, l.data]);
  }
  for (const l of out.lines(true).lines) got.push([l.seq, l.data]);
  return got;
}

describe("followOutput", () => {
  it.each([
    {
      name: "whole lines",
      from: 0,
      chunks: [
        [0, "a\n"],
        [2, "bc\n"],
      ],
      lines: [
        [0, "a\n"],
        [2, "bc\n"],
      ],
    },
    {
      name: "a line torn across writes",
      from: 5,
      chunks: [
        [5, "ab"],
        [7, "c\nd"],
      ],
      lines: [
        [5, "abc\n"],
        [9, "d"],
      ],
    },
    {
      name: "a retry's pod starts at 0 again",
      from: 0,
      chunks: [
        [0, "a\nto"],
        [0, "b\n"],
      ],
      lines: [
        [0, "a\n"],
        [0, "b\n"],
      ],
    },
  ] as { name: string; from: number; chunks: [number, string][]; lines: [number, string][] }[])(
    "$name",
    async ({ from, chunks, lines }) => {
      expect(await drain(backend(chunks), from)).toEqual(lines);
    },
  );

  it("a follow that fails throws its error from lines()", async () => {
    await expect(drain(backend([[0, "a\n"]], new Error("API gone")), 0)).rejects.toThrow("API gone");
  });
});

describe("followOutput, waiting", () => {
  /** A backend whose follow is driven by the test: `write` pushes bytes, `end`/`fail` end it. */
  function driven() {
    const d = {
      calls: [] as { runId: string; stream: string; from: number; signal?: AbortSignal }[],
      write: (_seq: number, _bytes: Uint8Array) => {},
      end: () => {},
      fail: (_e: unknown) => {},
      backend: {} as RunBackend,
    };
    d.backend = {
      followOutput(runId, stream, from, write, signal) {
        d.calls.push({ runId, stream, from, signal });
        d.write = write;
        return new Promise<boolean>((resolve, reject) => {
          d.end = () => resolve(true);
          d.fail = reject;
        });
      },
    } as Partial<RunBackend> as RunBackend;
    return d;
  }

  /** Whether `p` settles within `ms` of the fake clock. */
  async function settles(p: Promise<unknown>, ms: number): Promise<boolean> {
    let done = false;
    void p.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(ms);
    return done;
  }

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("follows the run's stdout from the given byte, with the signal", () => {
    const d = driven();
    const signal = new AbortController().signal;
    followOutput(d.backend, "r7", 42, signal);
    expect(d.calls).toEqual([{ runId: "r7", stream: "stdout", from: 42, signal }]);
  });

  it("a wait with nothing new lasts its time; bytes end it at once", async () => {
    const d = driven();
    const out = followOutput(d.backend, "r1", 0, new AbortController().signal);
    expect(await settles(out.wait(1_000), 999)).toBe(false);
    const w = out.wait(1_000);
    expect(await settles(w, 500)).toBe(false);
    d.write(0, enc("a"));
    expect(await settles(w, 0)).toBe(true);
  });

  it("bytes that came before a wait (and were not taken) end it at once; taking them makes it wait again", async () => {
    const d = driven();
    const out = followOutput(d.backend, "r1", 0, new AbortController().signal);
    d.write(0, enc("a\n")); // no one waits yet
    d.write(2, enc("b"));
    expect(await settles(out.wait(1_000), 0)).toBe(true);
    expect(out.lines(false)).toEqual({ lines: [{ seq: 0, data: "a\n" }], next: 2 });
    expect(await settles(out.wait(1_000), 999)).toBe(false);
    expect(out.lines(true)).toEqual({ lines: [{ seq: 2, data: "b" }], next: 3 });
  });

  it("the follow's end ends a wait at once, and every wait after it", async () => {
    const d = driven();
    const out = followOutput(d.backend, "r1", 0, new AbortController().signal);
    const w = out.wait(1_000);
    expect(out.done).toBe(false);
    d.end();
    expect(await settles(w, 0)).toBe(true);
    expect(out.done).toBe(true);
    expect(await settles(out.wait(1_000), 0)).toBe(true);
  });

  it("an abort ends a wait at once; the listener goes once the wait is over", async () => {
    const d = driven();
    const stop = new AbortController();
    const add = vi.spyOn(stop.signal, "addEventListener");
    const remove = vi.spyOn(stop.signal, "removeEventListener");
    const out = followOutput(d.backend, "r1", 0, stop.signal);
    expect(await settles(out.wait(1_000), 1_000)).toBe(true);
    expect(add).toHaveBeenCalledTimes(1);
    expect(add).toHaveBeenLastCalledWith("abort", expect.any(Function), { once: true });
    expect(remove).toHaveBeenCalledWith("abort", add.mock.calls[0]![1]);
    const w = out.wait(10_000);
    stop.abort();
    expect(await settles(w, 0)).toBe(true);
  });

  it("a failed follow's error is thrown by lines() as it was", async () => {
    const d = driven();
    const out = followOutput(d.backend, "r1", 0, new AbortController().signal);
    const error = new Error("API gone");
    d.fail(error);
    expect(await settles(out.wait(1_000), 0)).toBe(true);
    expect(out.done).toBe(true);
    let thrown: unknown;
    try {
      out.lines(true);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBe(error);
  });
});
