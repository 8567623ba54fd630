/**
 * More of `logs` and `attach`'s reader, beyond logs_test.ts, over a backend held in memory whose
 * reads may stop short (a stream kept in parts), whose size may say more than it holds, and
 * whose oldest bytes may be dropped: `--tail`'s window (read part by part, 1 MiB at most, the
 * lines there were when asked), drops said only when there are some, the one "caught up" call
 * while a run writes and while a torn line waits, and a backend that streams its output.
 */
import { describe, expect, it } from "vitest";
import type { OutputStream, RunBackend } from "../../runs/backend.ts";
import type { Output } from "../output.ts";
import { type LogsOptions, streamLogs } from "./logs.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const MIB = 1 << 20;

/** A run of one stream (stdout): its state, and how its reads behave. */
function fakeRun(text = "") {
  const run = {
    state: "running",
    data: enc(text),
    /** Bytes before this were dropped by the cap. */
    dropped: 0,
    /** No read crosses these offsets: the stream is kept in parts. */
    bounds: [] as number[],
    /** How many bytes more than it holds the stream's size says. */
    missing: 0,
    /** Called once the size was read (a run writing meanwhile). */
    afterSize: () => {},
    /** Called after each read of bytes (a run writing at each read). */
    afterRead: () => {},
    /** Called at each look at the run's state (once a pass). */
    onGet: () => {},
    feed(more: string) {
      const m = enc(more);
      const next = new Uint8Array(run.data.length + m.length);
      next.set(run.data);
      next.set(m, run.data.length);
      run.data = next;
    },
    backend: {
      get: async () => {
        run.onGet();
        return { state: run.state };
      },
      readOutput: async (_id: string, _s: OutputStream, from: number, max: number) => {
        const start = Math.max(from, run.dropped);
        const bound = run.bounds.find((b) => b > start) ?? Number.POSITIVE_INFINITY;
        const end = Math.min(start + max, bound, run.data.length);
        const r = {
          start,
          bytes: run.data.slice(start, Math.max(start, end)),
          size: run.data.length + run.missing,
        };
        if (max === 0) run.afterSize();
        else run.afterRead();
        return r;
      },
    } as unknown as RunBackend,
  };
  return run;
}

/** Options printing stdout into a string (records into a list), the drops said into `said`. */
function sinks(over: Partial<LogsOptions> = {}) {
  const got = { text: "", records: [] as Record<string, unknown>[], said: [] as [string, number, number][] };
  const options: LogsOptions = {
    streams: ["stdout"],
    from: null,
    tail: null,
    follow: false,
    json: false,
    sinks: {
      stdout: { write: (t: string) => (got.text += t) },
      stderr: { write: () => true },
    },
    out: { record: (r: Record<string, unknown>) => got.records.push(r) } as unknown as Output,
    onDropped: (s, f, t) => void got.said.push([s, f, t]),
    ...over,
  };
  return { got, options };
}

/** Wait (at most 5 s) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("streamLogs --tail: the window of the last lines", () => {
  it.each([
    ["a stream in parts, tail 2: the window read part by part", "a\nb\nc\nd\n", [4], 2, "c\nd\n", 8],
    ["a stream in parts, tail 3", "a\nb\nc\nd\n", [4], 3, "b\nc\nd\n", 8],
    ["a stream in three parts, no tail: every part", "a\nb\nc\nd\n", [2, 6], null, "a\nb\nc\nd\n", 8],
  ])("%s", async (_name, text, bounds, tail, printed, next) => {
    const run = fakeRun(text);
    run.bounds = bounds;
    const { got, options } = sinks({ tail });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: next });
    expect([got.text, got.said]).toEqual([printed, []]);
  });

  it("it looks back 1 MiB at most: lines that reach further start at the window", async () => {
    const text = `first\n${"x".repeat(MIB + 1000)}\nlast\n`;
    const run = fakeRun(text);
    const { got, options } = sinks({ tail: 3 });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: text.length });
    // (compared without printing a MiB when it differs)
    expect([got.text.length, got.text === text.slice(text.length - MIB)]).toEqual([MIB, true]);
  });

  it("it counts the lines there were when asked; what the run wrote since follows them", async () => {
    const run = fakeRun("a\nb\nc\n");
    run.bounds = [2];
    run.afterSize = () => {
      run.afterSize = () => {};
      run.feed("d\n");
    };
    const { got, options } = sinks({ tail: 1 });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 8 });
    expect(got.text).toBe("c\nd\n");
  });

  it.each([
    ["tail 1", 1, "B\n"],
    ["tail 5 (more than kept)", 5, "A\nB\n"],
  ])(
    "the oldest bytes dropped, %s: counted from the oldest kept, no drop said",
    async (_name, tail, printed) => {
      const run = fakeRun("old\nA\nB\n");
      run.dropped = 4;
      const { got, options } = sinks({ tail });
      expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 8 });
      expect([got.text, got.said]).toEqual([printed, []]);
    },
  );

  it("a size that says more than the stream holds: what there is", { timeout: 10_000 }, async () => {
    const run = fakeRun("a\nb\n");
    run.missing = 4;
    const { got, options } = sinks({ tail: 5 });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 4 });
    expect(got.text).toBe("a\nb\n");
  });
});

describe("streamLogs: drops, and where a pass ends", () => {
  it("none: onDropped is never called", async () => {
    const run = fakeRun("a\nb\n");
    const { got, options } = sinks({ from: 2 });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 4 });
    expect([got.text, got.said]).toEqual(["b\n", []]);
  });

  it("without -f it prints what there was at each read, though the run writes at every read", {
    timeout: 10_000,
  }, async () => {
    const run = fakeRun("a\n");
    run.afterRead = () => run.feed("more\n");
    const { got, options } = sinks();
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 2 });
    expect(got.text).toBe("a\n");
  });

  it("some, and no onDropped: the kept bytes, nothing thrown", async () => {
    const run = fakeRun("old\nkept\n");
    run.dropped = 4;
    const { got, options } = sinks({ onDropped: undefined });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 9 });
    expect(got.text).toBe("kept\n");
  });
});

describe("streamLogs --json: a line longer than one read (1 MiB)", () => {
  // It comes as pieces of one read each (cut at a whole character), and the lines after it follow:
  // before, a read with no newline stopped the output there, on an ended run and under -f alike.
  it.each([
    ["an ended run", "exited"],
    ["a live run's output so far", "running"],
  ])("%s: the pieces, then the next lines", async (_name, state) => {
    const long = `${"x".repeat(MIB - 1)}é${"y".repeat(9)}\n`;
    const run = fakeRun(`${long}after\n`);
    run.state = state;
    const { got, options } = sinks({ json: true });
    const end = enc(long).length + 6;
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: end });
    const rec = (seq: number, data: string) => ({
      v: 1,
      type: "output",
      runId: "r1",
      seq,
      stream: "stdout",
      data,
    });
    expect(got.records).toEqual([
      rec(0, "x".repeat(MIB - 1)),
      rec(MIB - 1, `é${"y".repeat(9)}\n`),
      rec(end - 6, "after\n"),
    ]);
  });
});

describeLive();
describeFollowed();

function describeLive(): void {
  describe("streamLogs -f: the one call when it caught up", () => {
    it("a run writing at each look is caught up once it stops writing, and said once", async () => {
      const run = fakeRun();
      let passes = 0;
      run.onGet = () => {
        passes++;
        if (passes <= 3) run.feed(`l${passes}\n`);
      };
      const live: string[] = [];
      const { got, options } = sinks({ follow: true, onLive: () => live.push(got.text) });
      const done = streamLogs(run.backend, "r1", options);
      await until(() => passes >= 7);
      expect(live).toEqual(["l1\nl2\nl3\n"]);
      run.state = "exited";
      expect(await done).toEqual({ stdout: 9 });
    });

    it("--json: a torn last line waiting for its rest is caught up", async () => {
      const run = fakeRun("one\ntw");
      let live = 0;
      const { got, options } = sinks({ follow: true, json: true, onLive: () => live++ });
      const done = streamLogs(run.backend, "r1", options);
      await until(() => live > 0);
      expect(live).toBe(1);
      run.feed("o\n");
      run.state = "exited";
      expect(await done).toEqual({ stdout: 8 });
      expect(got.records).toEqual([
        { v: 1, type: "output", runId: "r1", seq: 0, stream: "stdout", data: "one\n" },
        { v: 1, type: "output", runId: "r1", seq: 4, stream: "stdout", data: "two\n" },
      ]);
    });
  });
}

function describeFollowed(): void {
  describe("streamLogs -f over a backend that streams its output", () => {
    /** A backend whose followOutput writes `pieces` (or answers false: polled instead). */
    const streaming = (run: ReturnType<typeof fakeRun>, pieces: [number, Uint8Array][] | false) =>
      ({
        ...run.backend,
        followOutput: async (
          _id: string,
          _s: OutputStream,
          _from: number,
          write: (q: number, b: Uint8Array) => void,
        ) => {
          if (pieces === false) return false;
          for (const [seq, b] of pieces) write(seq, b);
          return true;
        },
      }) as RunBackend;

    it("a character split between two pieces is printed whole", async () => {
      const e = enc("é\n");
      const { got, options } = sinks({ follow: true });
      const backend = streaming(fakeRun(), [
        [0, e.slice(0, 1)],
        [1, e.slice(1)],
      ]);
      expect(await streamLogs(backend, "r1", options)).toEqual({ stdout: 3 });
      expect(got.text).toBe("é\n");
    });

    it("--json: whole output records", async () => {
      const { got, options } = sinks({ follow: true, json: true });
      await streamLogs(streaming(fakeRun(), [[5, enc("a\n")]]), "r1", options);
      expect(got.records).toEqual([
        { v: 1, type: "output", runId: "r1", seq: 5, stream: "stdout", data: "a\n" },
      ]);
    });

    it("one that says it does not stream this run: read by polling", async () => {
      const run = fakeRun("polled\n");
      run.state = "exited";
      const { got, options } = sinks({ follow: true });
      expect(await streamLogs(streaming(run, false), "r1", options)).toEqual({ stdout: 7 });
      expect(got.text).toBe("polled\n");
    });
  });
}
