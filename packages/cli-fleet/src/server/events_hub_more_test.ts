import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { type FleetCursor, parseCursor, runPaths, startCursor } from "@ariel/core";
import type { KnownWorkspace } from "@ariel/core/host";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { removeDir, tempDir } from "../../../core/src/host/_fixture.ts";
import { historyLine, until, writeHistory } from "./_app_fixture.ts";
import type { StreamResult } from "./_subscriber.ts";
import { followFleetShared } from "./events_hub.ts";

// More of the fleet stream's shared reader (followFleetShared): detached runs' output lines
// through it (each client's cursor holding its offsets, a joining client dropping the lines it
// read itself, a run seen only by its output), readers that drop output, empty polls that queue
// nothing, a reader that fails while one of its clients is paused, and a client that leaves
// before its first poll is done. Date.now is frozen: each tail reads the workspace list once.

const H = "d000000000000004";
const RUN = "20261202T110000Z-aaaaaa";
const RUN2 = "20261202T120000Z-eeeeee";
/** A foreground run (its output lines are history events). */
const RUN_FG = "20261202T100000Z-ffffff";
const at = (s: number) => new Date(Date.UTC(2026, 11, 2, 11, 0, s)).toISOString();

/** The workspace, one view per tail (per call of `known()`), and what each tail did. */
interface Fleet {
  root: string;
  known: () => Promise<readonly KnownWorkspace[]>;
  /** Per tail: the polls it made (reads of `exists`). */
  tails: { polls: number }[];
  /** Calls (by index) that wait for the promise first. */
  hold: Map<number, Promise<void>>;
  /** Calls (by index) that fail; tails (by index) whose next poll fails. */
  fail: Set<number>;
  broken: Set<number>;
}

const cleanup: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  const now = Date.now();
  vi.spyOn(Date, "now").mockReturnValue(now);
});
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
  vi.restoreAllMocks();
});

function fleet(): Fleet {
  const root = tempDir("ariel-events-hub-more-");
  mkdirSync(`${root}/.ariel/runs`, { recursive: true });
  cleanup.push(() => removeDir(root));
  const f: Fleet = {
    root,
    tails: [],
    hold: new Map(),
    fail: new Set(),
    broken: new Set(),
    known: async () => [],
  };
  f.known = async () => {
    const i = f.tails.length;
    const view = { polls: 0 };
    f.tails.push(view);
    await f.hold.get(i);
    if (f.fail.has(i)) throw new Error("registry unreadable");
    const ws = { root, hash: H, origin: "flag" as const };
    Object.defineProperty(ws, "exists", {
      get() {
        if (f.broken.has(i)) throw new Error("workspace unreadable");
        view.polls++;
        return true;
      },
    });
    return [ws as KnownWorkspace];
  };
  return f;
}

/** Append history events of `runId` (output lines in the history, a foreground run's). */
function append(f: Fleet, runId: string, ...seconds: number[]): void {
  const line = (s: number) => historyLine(runId, s, { event: "output", stream: "stdout", line: `l${s}` });
  writeHistory(f.root, runId, seconds.map(line).join(""));
}

/** A detached run's directory (run.json of a live local run whose monitor is this process), `stdout`. */
function detached(f: Fleet, runId: string, stdout: string): { out: (text: string) => void } {
  const p = runPaths(f.root, runId);
  mkdirSync(p.dir, { recursive: true });
  const me = { pid: process.pid, startTime: null };
  const record = {
    ...{ v: 1, type: "run", runId, name: null, backend: "local", workspace: { root: f.root, hash: H } },
    ...{ source: null, cwd: f.root, task: null, worktree: null, branch: null, argv: ["sh", "-c", "work"] },
    ...{ createdAt: at(0), startedAt: at(0), endedAt: null, monitor: { ...me, bootId: null } },
    child: { pid: process.pid, pgid: process.pid, startTime: null },
    ...{ restart: { policy: "no", max: 0, count: 0 }, respawnOf: null, exit: null, timeoutMs: null },
    ...{ graceMs: 0, onExit: null, interactive: false, isolate: null, kill: null, worktreeOutcome: null },
    ...{ version: 1, fencingToken: 0 },
  };
  writeFileSync(p.record, `${JSON.stringify(record)}\n`);
  writeFileSync(p.stdout, stdout);
  writeFileSync(p.stderr, "");
  return { out: (text) => appendFileSync(p.stdout, text) };
}

interface Client {
  /** Each batch as `event@seq`, a detached run's output line as `out:offset:text`. */
  batches: string[][];
  got: () => string[];
  cursors: string[];
  result: StreamResult;
  ended: () => boolean;
  stop: () => Promise<void>;
}

/** An event as a test names it. */
function show(e: { event: string; seq: number; runId: string; data?: unknown }): string {
  return e.event === "output" && e.runId !== RUN_FG
    ? `out:${e.seq}:${String(e.data).trim()}`
    : `${e.event}@${e.seq}`;
}

/** A client that reads every batch as it comes, until stopped. */
function follow(f: Fleet, from: FleetCursor, output = true): Client {
  const ctl = new AbortController();
  const result: StreamResult = { end: "stopped", cursor: null };
  const batches: string[][] = [];
  const cursors: string[] = [];
  let ended = false;
  const done = (async () => {
    for await (const b of followFleetShared(f.known, from, output, ctl.signal, result)) {
      batches.push(b.map(({ event }) => show(event as Parameters<typeof show>[0])));
      cursors.push(...b.map((x) => x.cursor));
    }
  })().finally(() => {
    ended = true;
  });
  const stop = async () => {
    ctl.abort();
    await done;
  };
  cleanup.push(stop);
  return { batches, got: () => batches.flat(), cursors, result, ended: () => ended, stop };
}

/** A client driven by hand (it reads a batch only when asked): the generator, and its result. */
function byHand(f: Fleet, from: FleetCursor, maxQueued?: number) {
  const ctl = new AbortController();
  const result: StreamResult = { end: "stopped", cursor: null };
  const gen = followFleetShared(f.known, from, true, ctl.signal, result, maxQueued);
  cleanup.push(async () => {
    ctl.abort();
    await gen.return(undefined);
  });
  const next = async () => {
    const r = await gen.next();
    return r.done ? null : r.value.map(({ event }) => show(event as Parameters<typeof show>[0]));
  };
  return { gen, ctl, result, next };
}

const has = (c: Client, n: number) => () => c.got().length >= n;
/** Tail `i` exists and has polled at least `n` times. */
const polled =
  (f: Fleet, i: number, n = 1) =>
  () =>
    (f.tails[i]?.polls ?? 0) >= n;
const cursor = (runId: string, pos: string) => `0;${H}/${runId}:${pos}`;

/** RUN's history (started, running) and its run directory with `stdout`. */
function liveDetached(f: Fleet, stdout: string) {
  const started = historyLine(RUN, 0, { event: "run.started", argv: ["x"] });
  const running = historyLine(RUN, 1, { event: "run.state", from: "starting", to: "running" });
  writeHistory(f.root, RUN, started + running);
  return detached(f, RUN, stdout);
}

describe("followFleetShared over a detached run's output", () => {
  it("its lines come through the shared reader, each cursor holding the stream's offset", async () => {
    const f = fleet();
    const run = liveDetached(f, "one\n");
    const a = follow(f, startCursor(0));
    await until(has(a, 3));
    await until(polled(f, 1), "the reader");
    run.out("two\n");
    await until(has(a, 4));
    expect(a.batches).toEqual([["run.started@1", "run.state@2", "out:0:one"], ["out:4:two"]]);
    expect(a.cursors).toEqual([
      cursor(RUN, "1"),
      cursor(RUN, "2"),
      cursor(RUN, "2.4.0"),
      cursor(RUN, "2.8.0"),
    ]);
  });

  it("a client joining while the reader hands on a line drops the copy it read itself", async () => {
    const f = fleet();
    const run = liveDetached(f, "one\n");
    const a = follow(f, startCursor(0));
    await until(() => has(a, 3)() && polled(f, 1)());
    let release!: () => void;
    f.hold.set(2, new Promise<void>((r) => (release = r)));
    const b = follow(f, parseCursor(cursor(RUN, "2.4.0"))!);
    await until(() => f.tails.length === 3, "b's tail");
    run.out("two\n");
    await until(has(a, 4));
    release();
    await until(has(b, 1));
    run.out("three\n");
    await until(() => has(a, 5)() && has(b, 2)());
    expect(b.batches).toEqual([["out:4:two"], ["out:8:three"]]);
    expect(b.cursors).toEqual([cursor(RUN, "2.8.0"), cursor(RUN, "2.14.0")]);
    expect(f.tails.length).toBe(3);
  });

  it("a run the client's cursor has no entry for, seen by its output alone (no history yet)", async () => {
    const f = fleet();
    const a = follow(f, startCursor(0));
    await until(polled(f, 1), "the reader");
    detached(f, RUN2, "hi\n");
    await until(has(a, 1));
    expect([a.batches, a.cursors]).toEqual([[["out:0:hi"]], [cursor(RUN2, "0.3.0")]]);
  });

  it("clients that drop output get the history alone, from their own poll and from their reader", async () => {
    const f = fleet();
    const run = liveDetached(f, "one\n");
    const a = follow(f, startCursor(0), false);
    await until(() => has(a, 2)() && polled(f, 1)());
    run.out("two\n");
    writeHistory(f.root, RUN, historyLine(RUN, 2, { event: "worktree.kept" }));
    await until(has(a, 3));
    await until(polled(f, 1, f.tails[1]!.polls + 2), "two more polls");
    expect(a.batches).toEqual([["run.started@1", "run.state@2"], ["worktree.kept@3"]]);
    expect(a.cursors.at(-1)).toBe(cursor(RUN, "3"));
  });
});

describe("followFleetShared, a client read by hand", () => {
  it("polls that find nothing queue nothing: a paused client does not overflow", async () => {
    const f = fleet();
    append(f, RUN_FG, 1);
    const a = byHand(f, startCursor(0), 2);
    expect(await a.next()).toEqual(["output@1"]);
    const second = a.next(); // starts the reader (2 batches at most), waits for its batches
    await until(polled(f, 1), "the reader");
    append(f, RUN_FG, 2);
    expect(await second).toEqual(["output@2"]);
    // Paused at its yield while the reader polls and finds nothing, more than twice.
    const polls = f.tails[1]!.polls;
    await until(polled(f, 1, polls + 4), "four empty polls");
    append(f, RUN_FG, 3);
    await until(polled(f, 1, polls + 6), "the reader to read it");
    expect(await a.next()).toEqual(["output@3"]);
    expect(a.result).toEqual({ end: "stopped", cursor: null });
  });

  it("a client whose signal aborts during its first poll ends without starting a reader", async () => {
    const f = fleet();
    let release!: () => void;
    f.hold.set(0, new Promise<void>((r) => (release = r)));
    const a = byHand(f, startCursor(0));
    const first = a.next();
    await until(() => f.tails.length === 1, "its tail");
    a.ctl.abort();
    release();
    expect(await first).toBe(null);
    expect([f.tails.length, a.result]).toEqual([1, { end: "stopped", cursor: null }]);
  });

  it("a first poll that fails: the client fails with its error", async () => {
    const f = fleet();
    f.fail.add(0);
    const a = byHand(f, startCursor(0));
    await expect(a.next()).rejects.toThrow("registry unreadable");
  });
});

describe("followFleetShared when the reader fails", () => {
  it("with a client paused at a yield: the others end, the next client starts a new reader, the paused one leaving stops only the failed one", async () => {
    const f = fleet();
    append(f, RUN_FG, 1);
    const a = byHand(f, startCursor(0));
    expect(await a.next()).toEqual(["output@1"]);
    const second = a.next(); // starts the reader (tail 1)
    await until(polled(f, 1), "the reader");
    append(f, RUN_FG, 2);
    expect(await second).toEqual(["output@2"]); // a is paused at its yield from here on
    const b = follow(f, parseCursor(cursor(RUN_FG, "2"))!);
    await until(polled(f, 2), "b's own poll");
    f.broken.add(1); // the reader's next poll fails
    await until(b.ended, "b to end");
    expect([b.batches, b.result]).toEqual([[], { end: "stopped", cursor: null }]);
    // The failed reader is no one's to join: c starts a new one (tail 4).
    const c = follow(f, parseCursor(cursor(RUN_FG, "2"))!);
    await until(() => f.tails.length === 5 && polled(f, 4)(), "a new reader");
    append(f, RUN_FG, 3);
    await until(has(c, 1));
    // a leaves the failed reader: c's reader stays the one to join (d's own tail, no new reader).
    await a.gen.return(undefined);
    const d = follow(f, parseCursor(cursor(RUN_FG, "3"))!);
    await until(polled(f, 5), "d's own poll");
    append(f, RUN_FG, 4);
    await until(() => has(c, 2)() && has(d, 1)());
    expect([c.batches, d.batches, f.tails.length]).toEqual([[["output@3"], ["output@4"]], [["output@4"]], 6]);
  });
});
