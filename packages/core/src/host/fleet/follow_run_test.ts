import { appendFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseRunCursor, RUN_CURSOR_START, type RunCursor } from "../../fleet/run_cursor.ts";
import type { FleetRun } from "../../fleet/run_view.ts";
import type { OutputRead, OutputStream, RunBackend, RunView } from "../../runs/backend.ts";
import { runPaths } from "../../runs/paths.ts";
import type { RunState } from "../../runs/state.ts";
import { tempDir } from "../_fixture.ts";
import { followRun, followRunBatches } from "./follow_run.ts";
import type { FleetWorkspaceRef, LoadedRun } from "./runs.ts";
import type { CursoredEvent } from "./tail.ts";

/**
 * A run's stream read in-process: its history is a real file in a temporary workspace; a
 * detached run's backend (its state and output) is a fake that `runsBackend` hands out, and
 * whether a foreground run's ariel-spawn lives is asked of `h.alive`. The loop sleeps between
 * looks: fake timers step it, so "how many looks" is told by the fake clock, never the machine's.
 */
const h = vi.hoisted(() => ({
  backend: null as unknown,
  alive: (_pid: number): boolean => true,
  aliveCalls: [] as number[],
}));
vi.mock("../supervise/backends/dispatch.ts", () => ({ runsBackend: () => h.backend }));
vi.mock("./_alive.ts", () => ({
  processAlive: (pid: number) => {
    h.aliveCalls.push(pid);
    return h.alive(pid);
  },
}));

const HASH = "ae89cb2b620ea8fc";
const RUN = "20261202T110000Z-abc123";
const enc = (s: string) => new TextEncoder().encode(s);
const at = (s: number) => new Date(Date.UTC(2026, 11, 2, 11, 0, s)).toISOString();

const started = `{"v":1,"type":"event","event":"run.started","ts":"${at(0)}","argv":["x"]}\n`;
const running = `{"v":1,"type":"event","event":"run.state","ts":"${at(1)}","from":"starting","to":"running"}\n`;
const exited = `{"v":1,"type":"event","event":"run.exited","ts":"${at(2)}","code":0,"signal":null,"status":0}\n`;
const final = (to: string) =>
  `{"v":1,"type":"event","event":"run.state","ts":"${at(3)}","from":"running","to":"${to}"}\n`;
const spawnOutput = (line: string) =>
  `{"v":1,"type":"event","event":"output","ts":"${at(1)}","stream":"stdout","line":"${line}"}\n`;

/** A detached run's fake backend: its state, its output streams, how much one read gives. */
class FakeBackend {
  state: RunState = "running";
  out: Record<OutputStream, string> = { stdout: "", stderr: "" };
  /** Bytes the output cap dropped (a read from before gets the first kept byte on). */
  dropped: Record<OutputStream, number> = { stdout: 0, stderr: 0 };
  /** At most this many bytes per read (a backend may return less than asked). */
  maxRead = Number.POSITIVE_INFINITY;
  reads: [OutputStream, number][] = [];
  get = async (runId: string): Promise<RunView> => ({
    ...view(),
    state: this.state,
    record: { runId } as never,
  });
  readOutput = async (
    _runId: string,
    stream: OutputStream,
    from: number,
    max: number,
  ): Promise<OutputRead> => {
    this.reads.push([stream, from]);
    const bytes = enc(this.out[stream]);
    const start = Math.max(from, this.dropped[stream]);
    const n = Math.max(0, Math.min(max, this.maxRead, bytes.length - start));
    return { start, bytes: bytes.subarray(start, start + n), size: bytes.length };
  };
}

/** A k8s backend: its stdout is followed (`write` pushes bytes) until `end`. */
class FollowBackend extends FakeBackend {
  follows: { stream: OutputStream; from: number; signal?: AbortSignal }[] = [];
  write: (seq: number, bytes: Uint8Array) => void = () => {};
  end: () => void = () => {};
  followOutput = (
    _runId: string,
    stream: OutputStream,
    from: number,
    write: (seq: number, bytes: Uint8Array) => void,
    signal?: AbortSignal,
  ): Promise<boolean> => {
    this.follows.push({ stream, from, signal });
    this.write = write;
    return new Promise<boolean>((resolve) => {
      this.end = () => resolve(true);
      signal?.addEventListener("abort", () => resolve(false));
    });
  };
}

function view(backend: "local" | "k8s" = "local", tty = false): RunView {
  return {
    record: { runId: RUN, backend, tty: tty ? { cols: 80, rows: 24 } : null } as never,
    exit: null,
    state: "running",
  };
}

const dirs: string[] = [];
let ws: FleetWorkspaceRef;
let history: string;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: Date.UTC(2026, 11, 2, 12) });
  const root = tempDir("ariel-follow-run-");
  dirs.push(root);
  ws = { root, hash: HASH };
  history = runPaths(root, RUN).history;
  mkdirSync(dirname(history), { recursive: true });
  h.backend = null;
  h.alive = () => true;
  h.aliveCalls = [];
});
afterEach(() => {
  vi.useRealTimers();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function foreground(ownerPid: number | null): LoadedRun {
  return { view: { runId: RUN } as FleetRun, skipped: 0, ownerPid, detached: null };
}

function detached(b: FakeBackend, kind: "local" | "k8s" = "local", tty = false): LoadedRun {
  h.backend = b as unknown as RunBackend;
  return { view: { runId: RUN } as FleetRun, skipped: 0, ownerPid: null, detached: view(kind, tty) };
}

/** An event as [event, seq, cursor], an output line as [stream, seq, data, cursor]. */
function brief(e: CursoredEvent): unknown[] {
  const ev = e.event;
  return ev.event === "output" ? [ev.stream, ev.seq, ev.data, e.cursor] : [ev.event, ev.seq, e.cursor];
}

/** Microtasks and the sync file reads between them: a few real event-loop turns. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** Steps a stream by the fake clock. */
class Reader {
  readonly stop = new AbortController();
  readonly gen: AsyncGenerator<CursoredEvent[]>;
  #pending: Promise<IteratorResult<CursoredEvent[]>> | null = null;
  #settled: IteratorResult<CursoredEvent[]> | null = null;
  constructor(run: LoadedRun, from: RunCursor = RUN_CURSOR_START, once = false) {
    this.gen = followRunBatches(ws, run, from, this.stop.signal, once);
  }

  /**
   * The next batch (its events in brief) or "done", as long as it comes within `ms` of the fake
   * clock (10 ms at a time); "pending" when it did not (then a later call goes on waiting for it).
   */
  async next(ms = 0): Promise<unknown[][] | "done" | "pending"> {
    if (!this.#pending) {
      this.#settled = null;
      this.#pending = this.gen.next();
      void this.#pending.then((r) => {
        this.#settled = r;
      });
    }
    for (let t = 0; ; t += 10) {
      await flush();
      const r = this.#settled as IteratorResult<CursoredEvent[]> | null;
      if (r) {
        this.#pending = null;
        return r.done ? "done" : r.value.map(brief);
      }
      if (t >= ms) return "pending";
      await vi.advanceTimersByTimeAsync(10);
    }
  }
}

describe("followRunBatches, a foreground run", () => {
  it("replays the events after the cursor and ends at the closing run.state", async () => {
    appendFileSync(history, started + running + spawnOutput("hi") + exited + final("exited"));
    const r = new Reader(foreground(null), { seq: 2, stdout: 0, stderr: 0 });
    expect(await r.next()).toEqual([
      ["stdout", 3, "hi\n", "3"],
      ["run.exited", 4, "4"],
      ["run.state", 5, "5"],
    ]);
    expect(await r.next()).toBe("done");
  });

  it("one pass (`once`) gives what is there and ends without waiting", async () => {
    appendFileSync(history, started + running);
    const r = new Reader(foreground(process.pid), RUN_CURSOR_START, true);
    expect(await r.next()).toEqual([
      ["run.started", 1, "1"],
      ["run.state", 2, "2"],
    ]);
    expect(await r.next()).toBe("done");
    expect(h.aliveCalls).toEqual([]);
  });

  it("one pass over a history with nothing (yet) ends at once", async () => {
    let asked = 0;
    h.alive = () => ++asked < 3; // were it to look again and again, it would end at the third question
    const r = new Reader(foreground(4242), RUN_CURSOR_START, true);
    expect(await r.next()).toBe("done");
    expect(h.aliveCalls).toEqual([]);
  });

  it("run.exited alone does not end it: the closing run.state does", async () => {
    appendFileSync(history, started + exited);
    const r = new Reader(foreground(4242));
    expect(await r.next()).toEqual([
      ["run.started", 1, "1"],
      ["run.exited", 2, "2"],
    ]);
    expect(await r.next(500)).toBe("pending");
    appendFileSync(history, final("failed"));
    expect(await r.next(100)).toEqual([["run.state", 3, "3"]]);
    expect(await r.next()).toBe("done");
  });

  it("a run.state to running does not end it", async () => {
    appendFileSync(history, started + running);
    const r = new Reader(foreground(4242));
    expect(await r.next()).toEqual([
      ["run.started", 1, "1"],
      ["run.state", 2, "2"],
    ]);
    expect(await r.next(2_000)).toBe("pending");
    r.stop.abort();
    expect(await r.next()).toBe("done");
  });

  it("without an owner, ends after ten looks (a second) without news", async () => {
    appendFileSync(history, started);
    const r = new Reader(foreground(null));
    expect(await r.next()).toEqual([["run.started", 1, "1"]]);
    expect(await r.next(990)).toBe("pending");
    expect(await r.next(10)).toBe("done");
    expect(h.aliveCalls).toEqual([]);
  });

  it("news starts the quiet second again", async () => {
    appendFileSync(history, started);
    const r = new Reader(foreground(null));
    expect(await r.next()).toEqual([["run.started", 1, "1"]]);
    expect(await r.next(450)).toBe("pending");
    appendFileSync(history, running);
    expect(await r.next(50)).toEqual([["run.state", 2, "2"]]);
    expect(await r.next(990)).toBe("pending");
    expect(await r.next(10)).toBe("done");
  });

  it("asks whether its ariel-spawn lives once a quiet second, and goes on while it does", async () => {
    appendFileSync(history, started);
    const r = new Reader(foreground(4242));
    expect(await r.next()).toEqual([["run.started", 1, "1"]]);
    expect(await r.next(990)).toBe("pending");
    expect(h.aliveCalls).toEqual([]);
    expect(await r.next(10)).toBe("pending");
    expect(h.aliveCalls).toEqual([4242]);
    expect(await r.next(990)).toBe("pending");
    expect(h.aliveCalls).toEqual([4242]);
    expect(await r.next(10)).toBe("pending");
    expect(h.aliveCalls).toEqual([4242, 4242]);
    r.stop.abort();
    expect(await r.next()).toBe("done");
  });

  it("when its ariel-spawn is gone, gives what it wrote last (after the cursor) and ends", async () => {
    appendFileSync(history, started + running + spawnOutput("a"));
    h.alive = () => {
      // The spawn wrote its last lines as it died.
      appendFileSync(history, spawnOutput("b") + exited + spawnOutput("c"));
      return false;
    };
    const r = new Reader(foreground(4242), { seq: 5, stdout: 0, stderr: 0 });
    expect(await r.next(990)).toBe("pending");
    expect(await r.next(10)).toEqual([["stdout", 6, "c\n", "6"]]);
    expect(await r.next()).toBe("done");
  });

  // A torn last line (being written, or left so by a writer that died mid-line) once counted as
  // `more` to read: one pass spun on it (only microtasks and sync reads, the event loop held)
  // until the line was finished or the owner found gone.
  it("one pass ends at a torn last line without looking again", async () => {
    appendFileSync(history, started + running.slice(0, 20));
    let asked = 0;
    h.alive = () => ++asked < 3; // gone at the third question: the loop cannot spin forever here
    const r = new Reader(foreground(4242), RUN_CURSOR_START, true);
    expect(await r.next()).toEqual([["run.started", 1, "1"]]);
    expect(await r.next()).toBe("done");
    expect(h.aliveCalls).toEqual([]);
  });

  // The same, following: each look came at once instead of a poll later, and without an owner
  // the quiet second (ten looks) passed in no time.
  it("a torn last line is looked at again a poll later, not at once", async () => {
    appendFileSync(history, started + running.slice(0, 20));
    const r = new Reader(foreground(null));
    expect(await r.next()).toEqual([["run.started", 1, "1"]]);
    expect(await r.next(990)).toBe("pending");
  });

  it("followRun gives the batches' events one at a time; an aborted signal ends it", async () => {
    appendFileSync(history, started + running + exited + final("killed"));
    const got: string[] = [];
    for await (const e of followRun(ws, foreground(null), RUN_CURSOR_START, new AbortController().signal))
      got.push(e.cursor);
    expect(got).toEqual(["1", "2", "3", "4"]);
  });

  it("followRun follows a live run (no `once` unless asked)", async () => {
    appendFileSync(history, started);
    const stop = new AbortController();
    const events = followRun(ws, foreground(4242), RUN_CURSOR_START, stop.signal);
    expect((await events.next()).value?.cursor).toBe("1");
    let settled = false;
    const next = events.next().then((r) => {
      settled = true;
      return r;
    });
    await vi.advanceTimersByTimeAsync(500);
    expect(settled).toBe(false);
    appendFileSync(history, running);
    await vi.advanceTimersByTimeAsync(100);
    expect((await next).value?.cursor).toBe("2");
    stop.abort();
    const last = events.next();
    await vi.advanceTimersByTimeAsync(100);
    expect((await last).done).toBe(true);
  });

  // "Ends … when `signal` aborts" (followRunBatches' doc): a signal already aborted when the
  // stream starts was never seen (`addEventListener("abort")` on an aborted signal never fires),
  // and a live run's stream ran on, e.g. for an SSE client that went away before it began.
  it("a signal already aborted when the stream starts ends it at once", async () => {
    appendFileSync(history, started);
    const r = new Reader(foreground(process.pid));
    r.stop.abort();
    expect(await r.next()).toBe("done");
  });
});

describe("followRunBatches, a detached run", () => {
  it("replays a finished run: its output (a last line without newline too) before its closing events", async () => {
    const b = new FakeBackend();
    b.state = "exited";
    b.out = { stdout: "ab\ncd\nef", stderr: "e1\ne2\n" };
    b.maxRead = 4; // several reads per stream
    appendFileSync(history, running + exited + final("exited"));
    const r = new Reader(detached(b));
    expect(await r.next()).toEqual([
      ["run.state", 1, "1.0.0"],
      ["stdout", 0, "ab\n", "1.3.0"],
      ["stdout", 3, "cd\n", "1.6.0"],
      ["stdout", 6, "ef", "1.8.0"],
      ["stderr", 0, "e1\n", "1.8.3"],
      ["stderr", 3, "e2\n", "1.8.6"],
      ["run.exited", 2, "2.8.6"],
      ["run.state", 3, "3.8.6"],
    ]);
    expect(await r.next()).toBe("done");
  });

  it("gives the lines of one read with each one's cursor, from the cursor on", async () => {
    const b = new FakeBackend();
    b.state = "exited";
    b.out = { stdout: "a\nb\nc\n", stderr: "" };
    appendFileSync(history, running + exited + final("exited"));
    const r = new Reader(detached(b), parseRunCursor("1.2.0")!);
    expect(await r.next()).toEqual([
      ["stdout", 2, "b\n", "1.4.0"],
      ["stdout", 4, "c\n", "1.6.0"],
      ["run.exited", 2, "2.6.0"],
      ["run.state", 3, "3.6.0"],
    ]);
    expect(await r.next()).toBe("done");
    // One read per stream each time: the rest is known to be at the end.
    expect(b.reads).toEqual([
      ["stdout", 2],
      ["stderr", 0],
    ]);
  });

  it("output the size cap dropped is skipped: the stream goes on at the oldest byte kept", async () => {
    const b = new FakeBackend();
    b.state = "exited";
    b.out = { stdout: "old\nnew\n", stderr: "" };
    b.dropped.stdout = 4;
    appendFileSync(history, running + final("exited"));
    const r = new Reader(detached(b));
    expect(await r.next()).toEqual([
      ["run.state", 1, "1.0.0"],
      ["stdout", 4, "new\n", "1.8.0"],
      ["run.state", 2, "2.8.0"],
    ]);
  });

  it("while the run goes on, a torn last line waits for its end; the end's lines come before the closing events", async () => {
    const b = new FakeBackend();
    b.out = { stdout: "ab\ncd", stderr: "" };
    appendFileSync(history, running);
    const r = new Reader(detached(b));
    expect(await r.next()).toEqual([
      ["run.state", 1, "1.0.0"],
      ["stdout", 0, "ab\n", "1.3.0"],
    ]);
    expect(await r.next(1_000)).toBe("pending");
    b.out.stdout += "\nef";
    b.out.stderr = "oops\n";
    expect(await r.next(100)).toEqual([
      ["stdout", 3, "cd\n", "1.6.0"],
      ["stderr", 0, "oops\n", "1.6.5"],
    ]);
    b.state = "killed";
    appendFileSync(history, exited + final("killed"));
    expect(await r.next(100)).toEqual([
      ["stdout", 6, "ef", "1.8.5"],
      ["run.exited", 2, "2.8.5"],
      ["run.state", 3, "3.8.5"],
    ]);
    expect(await r.next()).toBe("done");
  });

  it("a run.state to running is not held back for the output", async () => {
    const b = new FakeBackend();
    b.out = { stdout: "a\n", stderr: "" };
    appendFileSync(history, started + running);
    const r = new Reader(detached(b));
    expect(await r.next()).toEqual([
      ["run.started", 1, "1.0.0"],
      ["run.state", 2, "2.0.0"],
      ["stdout", 0, "a\n", "2.2.0"],
    ]);
    r.stop.abort();
    expect(await r.next(100)).toBe("done");
  });

  it("a final run whose closing run.state never comes ends three seconds on, with its last line", async () => {
    const b = new FakeBackend();
    b.state = "lost";
    b.out = { stdout: "a\nb", stderr: "" };
    appendFileSync(history, running);
    const r = new Reader(detached(b));
    expect(await r.next()).toEqual([
      ["run.state", 1, "1.0.0"],
      ["stdout", 0, "a\n", "1.2.0"],
    ]);
    expect(await r.next(3_090)).toBe("pending");
    expect(await r.next(10)).toEqual([["stdout", 2, "b", "1.3.0"]]);
    expect(await r.next()).toBe("done");
  });

  it("a final state that does not stay starts the three seconds again", async () => {
    const b = new FakeBackend();
    b.state = "lost"; // a run just started can read lost for a moment
    appendFileSync(history, running);
    const r = new Reader(detached(b));
    expect(await r.next()).toEqual([["run.state", 1, "1.0.0"]]);
    expect(await r.next(1_000)).toBe("pending");
    b.state = "running";
    expect(await r.next(100)).toBe("pending");
    b.state = "exited";
    expect(await r.next(3_000)).toBe("pending");
    expect(await r.next(200)).toBe("done");
  });

  it("after run.exited without its closing run.state, waits for it (or three seconds)", async () => {
    const b = new FakeBackend();
    b.state = "exited";
    b.out = { stdout: "a\nb", stderr: "" };
    appendFileSync(history, running + exited);
    const r = new Reader(detached(b));
    expect(await r.next()).toEqual([
      ["run.state", 1, "1.0.0"],
      ["stdout", 0, "a\n", "1.2.0"],
      ["stdout", 2, "b", "1.3.0"],
      ["run.exited", 2, "2.3.0"],
    ]);
    expect(await r.next(1_000)).toBe("pending");
    appendFileSync(history, final("exited"));
    expect(await r.next(100)).toEqual([["run.state", 3, "3.3.0"]]);
    expect(await r.next()).toBe("done");
  });

  it("a closing event that comes exactly three seconds on does not end it: only more than three seconds do", async () => {
    const b = new FakeBackend();
    b.state = "exited";
    appendFileSync(history, running);
    const r = new Reader(detached(b));
    expect(await r.next()).toEqual([["run.state", 1, "1.0.0"]]);
    expect(await r.next(2_950)).toBe("pending");
    appendFileSync(history, exited);
    // The look at 3000 ms holds run.exited and hands it on: not closed, not past the 3 s.
    expect(await r.next(50)).toEqual([["run.exited", 2, "2.0.0"]]);
    expect(await r.next(90)).toBe("pending");
    expect(await r.next(10)).toBe("done");
  });

  it("a tty run's output goes out as it comes, up to a whole character", async () => {
    const b = new FakeBackend();
    const bytes = enc("$ é");
    b.out = { stdout: "$ ", stderr: "" };
    appendFileSync(history, running);
    const run = detached(b, "local", true);
    const r = new Reader(run);
    expect(await r.next()).toEqual([
      ["run.state", 1, "1.0.0"],
      ["stdout", 0, "$ ", "1.2.0"],
    ]);
    // Half of "é" is not handed on, nor its cursor moved past.
    b.out.stdout = new TextDecoder().decode(bytes.subarray(0, 3));
    b.readOutput = async (_runId, stream, from, max) => {
      const all = stream === "stdout" ? bytes.subarray(0, 3) : new Uint8Array();
      return { start: from, bytes: all.subarray(from, from + max), size: all.length };
    };
    expect(await r.next(300)).toBe("pending");
    b.readOutput = async (_runId, stream, from, max) => {
      const all = stream === "stdout" ? bytes : new Uint8Array();
      return { start: from, bytes: all.subarray(from, from + max), size: all.length };
    };
    expect(await r.next(100)).toEqual([["stdout", 2, "é", "1.4.0"]]);
    r.stop.abort();
    expect(await r.next(100)).toBe("done");
  });

  it("one pass over a live run reads what is there and ends", async () => {
    const b = new FakeBackend();
    b.out = { stdout: "a\nb", stderr: "" };
    appendFileSync(history, running);
    const r = new Reader(detached(b), RUN_CURSOR_START, true);
    expect(await r.next()).toEqual([
      ["run.state", 1, "1.0.0"],
      ["stdout", 0, "a\n", "1.2.0"],
    ]);
    expect(await r.next()).toBe("done");
  });
});

describe("followRunBatches, a k8s run", () => {
  it("follows its log: each line as it comes, then the closing events once the follow ends", async () => {
    const b = new FollowBackend();
    appendFileSync(history, running);
    const r = new Reader(detached(b, "k8s"), parseRunCursor("0.7.0")!);
    expect(await r.next()).toEqual([["run.state", 1, "1.7.0"]]);
    expect(b.follows.map((f) => [f.stream, f.from])).toEqual([["stdout", 7]]);
    b.write(7, enc("a\nb\nc"));
    expect(await r.next()).toEqual([
      ["stdout", 7, "a\n", "1.9.0"],
      ["stdout", 9, "b\n", "1.11.0"],
    ]);
    // No news: it waits a second per look, and the log wakes it at once.
    expect(await r.next(900)).toBe("pending");
    b.write(12, enc("d\n"));
    expect(await r.next()).toEqual([["stdout", 11, "cd\n", "1.14.0"]]);
    b.write(14, enc("e"));
    appendFileSync(history, exited + final("exited"));
    b.end();
    expect(await r.next()).toEqual([
      ["stdout", 14, "e", "1.15.0"],
      ["run.exited", 2, "2.15.0"],
      ["run.state", 3, "3.15.0"],
    ]);
    expect(await r.next()).toBe("done");
    expect(b.reads).toEqual([]);
  });

  it("one pass reads its log whole instead of following it", async () => {
    const b = new FollowBackend();
    b.state = "exited";
    b.out = { stdout: "a\n", stderr: "" };
    appendFileSync(history, running + final("exited"));
    const r = new Reader(detached(b, "k8s"), RUN_CURSOR_START, true);
    expect(await r.next()).toEqual([
      ["run.state", 1, "1.0.0"],
      ["stdout", 0, "a\n", "1.2.0"],
      ["run.state", 2, "2.2.0"],
    ]);
    expect(await r.next()).toBe("done");
    expect(b.follows).toEqual([]);
  });

  it("a reader that stops early stops the log's connection", async () => {
    const b = new FollowBackend();
    appendFileSync(history, running);
    const r = new Reader(detached(b, "k8s"));
    expect(await r.next()).toEqual([["run.state", 1, "1.0.0"]]);
    expect(b.follows[0]!.signal!.aborted).toBe(false);
    await r.gen.return(undefined);
    expect(b.follows[0]!.signal!.aborted).toBe(true);
    expect(r.stop.signal.aborted).toBe(false);
  });

  it("an aborted signal stops the log's connection and ends the stream", async () => {
    const b = new FollowBackend();
    appendFileSync(history, running);
    const r = new Reader(detached(b, "k8s"));
    expect(await r.next()).toEqual([["run.state", 1, "1.0.0"]]);
    expect(await r.next(100)).toBe("pending");
    r.stop.abort();
    expect(await r.next()).toBe("done");
    expect(b.follows[0]!.signal!.aborted).toBe(true);
  });
});
