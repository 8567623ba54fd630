import { type FleetCursor, parseCursor, startCursor } from "@ariel/core";
import type { KnownWorkspace } from "@ariel/core/host";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { removeDir, tempDir } from "../../../core/src/host/_fixture.ts";
import { historyLine, RUN, until, writeHistory } from "./_app_fixture.ts";
import type { StreamResult } from "./_subscriber.ts";
import { followFleetShared } from "./events_hub.ts";

// The fleet stream's shared reader (followFleetShared) over foreground run histories written
// here: how many tails read the fleet (each reads the workspace list once: Date.now is frozen so
// none reads it again), how often the shared one polls (each poll reads a workspace's `exists`),
// and what every client gets.

const H1 = "a000000000000001";
const H2 = "b000000000000002";
const RUN2 = "20261202T110000Z-cccccc";

/** A tail's view of the workspaces: the polls it made (reads of `exists`). */
interface TailView {
  polls: number;
}

/** Workspaces on disk and a `known()` that hands every caller (every tail) its own objects. */
interface Fleet {
  roots: string[];
  known: () => Promise<readonly KnownWorkspace[]>;
  /** One entry per call of `known()`: per tail, since the list is never read again. */
  tails: TailView[];
  /** Calls (by index) that wait for `release(i)`, or fail with `fail`. */
  hold: Map<number, Promise<void>>;
  fail: Set<number>;
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

function fleet(hashes: string[]): Fleet {
  const roots = hashes.map(() => tempDir("ariel-events-hub-"));
  cleanup.push(() => {
    for (const r of roots) removeDir(r);
  });
  const f: Fleet = { roots, tails: [], hold: new Map(), fail: new Set(), known: async () => [] };
  f.known = async () => {
    const i = f.tails.length;
    const view: TailView = { polls: 0 };
    f.tails.push(view);
    await f.hold.get(i);
    if (f.fail.has(i)) throw new Error("registry unreadable");
    return roots.map((root, k) => ({
      root,
      hash: hashes[k]!,
      origin: "flag" as const,
      get exists() {
        if (k === 0) view.polls++;
        return true;
      },
    }));
  };
  return f;
}

/** Append history events of `runId` in workspace `root`, at second `s` each (seq follows the file). */
function append(root: string, runId: string, ...seconds: number[]): void {
  writeHistory(
    root,
    runId,
    seconds.map((s) => historyLine(runId, s, { event: "output", stream: "stdout", line: `l${s}` })).join(""),
  );
}

interface Client {
  /** Each batch as `<workspace's first letter><seq>` (a1, b3). */
  batches: string[][];
  got: () => string[];
  /** The cursor after the last event received. */
  cursor: () => string | null;
  result: StreamResult;
  stop: () => Promise<void>;
  done: Promise<void>;
}

function follow(f: Fleet, from: FleetCursor, output = true, maxQueued?: number): Client {
  const ctl = new AbortController();
  const result: StreamResult = { end: "stopped", cursor: null };
  const batches: string[][] = [];
  let last: string | null = null;
  const done = (async () => {
    for await (const b of followFleetShared(f.known, from, output, ctl.signal, result, maxQueued)) {
      batches.push(b.map(({ event }) => `${event.workspace[0]}${event.seq}`));
      last = b.at(-1)?.cursor ?? last;
    }
  })();
  const stop = async () => {
    ctl.abort();
    await done;
  };
  cleanup.push(stop);
  return { batches, got: () => batches.flat(), cursor: () => last, result, stop, done };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const seenAll = (c: Client, n: number) => () => c.got().length >= n;

describe("followFleetShared", () => {
  it("clients share one reader, each gets every event once in order; it stops when the last leaves", async () => {
    const f = fleet([H1]);
    append(f.roots[0]!, RUN, 1, 2);
    const a = follow(f, startCursor(0));
    await until(seenAll(a, 2));
    const b = follow(f, startCursor(0));
    await until(seenAll(b, 2));
    append(f.roots[0]!, RUN, 3);
    await until(() => seenAll(a, 3)() && seenAll(b, 3)());
    append(f.roots[0]!, RUN, 4, 5);
    await until(() => seenAll(a, 5)() && seenAll(b, 5)());
    // Own catch-up polls of a and b, then one shared reader (started by a): three tails in all.
    expect(f.tails.length).toBe(3);
    expect([f.tails[0]!.polls, f.tails[2]!.polls]).toEqual([1, 1]);
    const shared = f.tails[1]!;
    expect(a.batches).toEqual([["a1", "a2"], ["a3"], ["a4", "a5"]]);
    expect(b.batches).toEqual([["a1", "a2"], ["a3"], ["a4", "a5"]]);
    expect(a.cursor()).toBe(`0;${H1}/${RUN}:5`);
    expect(b.cursor()).toBe(`0;${H1}/${RUN}:5`);
    await a.stop();
    // One client left: the reader still polls for the other.
    const before = shared.polls;
    await until(() => shared.polls > before + 1, "the reader to poll on");
    append(f.roots[0]!, RUN, 6);
    await until(seenAll(b, 6));
    expect(b.got().at(-1)).toBe("a6");
    expect(a.got().length).toBe(5);
    await b.stop();
    expect([a.result, b.result]).toEqual([
      { end: "stopped", cursor: null },
      { end: "stopped", cursor: null },
    ]);
    // The last left: no more polling.
    const stopped = shared.polls;
    await sleep(350);
    expect(shared.polls).toBe(stopped);
    // A new client starts a new reader (and gets what comes next).
    const c = follow(f, parseCursor(`0;${H1}/${RUN}:6`)!);
    await sleep(50);
    append(f.roots[0]!, RUN, 7);
    await until(seenAll(c, 1));
    expect(c.batches).toEqual([["a7"]]);
    expect(f.tails.length).toBe(5);
  });

  it("a client joining later starts from its own cursor, without a gap or a duplicate", async () => {
    const f = fleet([H1]);
    append(f.roots[0]!, RUN, 1, 2, 3);
    const a = follow(f, startCursor(0));
    await until(seenAll(a, 3));
    // b's own catch-up waits while the reader delivers a4 (queued for b too).
    let release!: () => void;
    f.hold.set(2, new Promise<void>((r) => (release = r)));
    const b = follow(f, parseCursor(`0;${H1}/${RUN}:2`)!);
    await until(() => f.tails.length === 3, "b's tail");
    append(f.roots[0]!, RUN, 4);
    await until(seenAll(a, 4));
    release();
    await until(seenAll(b, 2));
    append(f.roots[0]!, RUN, 5);
    await until(() => seenAll(a, 5)() && seenAll(b, 3)());
    expect(a.batches).toEqual([["a1", "a2", "a3"], ["a4"], ["a5"]]);
    // a3 and a4 from its own poll; the queued a4 dropped; a5 from the reader.
    expect(b.batches).toEqual([["a3", "a4"], ["a5"]]);
    expect(b.cursor()).toBe(`0;${H1}/${RUN}:5`);
    expect(f.tails.length).toBe(3);
  });

  it("a client that joins with nothing new yields nothing until the reader finds something", async () => {
    const f = fleet([H1]);
    append(f.roots[0]!, RUN, 1);
    const a = follow(f, startCursor(0));
    await until(seenAll(a, 1));
    const b = follow(f, parseCursor(`0;${H1}/${RUN}:1`)!);
    await until(() => f.tails.length === 3 && f.tails[2]!.polls === 1, "b's poll");
    await sleep(150);
    expect(b.batches).toEqual([]);
    append(f.roots[0]!, RUN, 2);
    await until(seenAll(b, 1));
    expect(b.batches).toEqual([["a2"]]);
  });

  it("a client that falls more than maxQueued batches behind ends with overflow and its cursor", async () => {
    const f = fleet([H1]);
    append(f.roots[0]!, RUN, 1, 2);
    const ctl = new AbortController();
    const result: StreamResult = { end: "stopped", cursor: null };
    const slow = followFleetShared(f.known, startCursor(0), true, ctl.signal, result, 2);
    cleanup.push(async () => {
      ctl.abort();
      await slow.return(undefined);
    });
    const first = await slow.next();
    expect((first.value as { cursor: string }[]).map((e) => e.cursor)).toEqual([
      `0;${H1}/${RUN}:1`,
      `0;${H1}/${RUN}:2`,
    ]);
    const pending = slow.next(); // starts the reader (maxQueued 2), then waits for its batches
    const fast = follow(f, parseCursor(`0;${H1}/${RUN}:2`)!);
    await until(() => f.tails.length === 3 && f.tails[2]!.polls === 1, "the fast client's poll");
    // One batch per poll: each event is appended once the fast client has the one before.
    for (let s = 3; s <= 7; s++) {
      append(f.roots[0]!, RUN, s);
      await until(seenAll(fast, s - 2));
    }
    const got = await pending;
    expect((got.value as { cursor: string }[]).map((e) => e.cursor)).toEqual([`0;${H1}/${RUN}:3`]);
    // Two more queued (a4, a5), a6 overflowed it: it ends, where it was.
    expect(await slow.next()).toEqual({ done: true, value: undefined });
    expect(result).toEqual({ end: "overflow", cursor: `0;${H1}/${RUN}:3` });
    expect(fast.batches).toEqual([["a3"], ["a4"], ["a5"], ["a6"], ["a7"]]);
    expect(fast.result).toEqual({ end: "stopped", cursor: null });
  });

  it("a client whose signal aborts ends stopped, with no cursor", async () => {
    const f = fleet([H1]);
    append(f.roots[0]!, RUN, 1);
    const a = follow(f, startCursor(0), true, 1);
    await until(seenAll(a, 1));
    await until(() => f.tails.length === 2 && f.tails[1]!.polls > 0, "the reader");
    await a.stop();
    expect(a.result).toEqual({ end: "stopped", cursor: null });
    expect(a.batches).toEqual([["a1"]]);
  });

  it("when the shared reader fails its clients end stopped, and the next client starts a new one", async () => {
    const f = fleet([H1]);
    append(f.roots[0]!, RUN, 1);
    f.fail.add(1); // the reader's own look at the workspaces
    const a = follow(f, startCursor(0));
    await a.done;
    expect(a.batches).toEqual([["a1"]]);
    expect(a.result).toEqual({ end: "stopped", cursor: null });
    const b = follow(f, parseCursor(`0;${H1}/${RUN}:1`)!);
    await until(() => f.tails.length === 4 && f.tails[3]!.polls > 0, "a new reader");
    append(f.roots[0]!, RUN, 2);
    await until(seenAll(b, 1));
    expect(b.batches).toEqual([["a2"]]);
  });

  it("a client that started alone while another started the reader joins that reader", async () => {
    const f = fleet([H1]);
    append(f.roots[0]!, RUN, 1, 2);
    let release!: () => void;
    f.hold.set(0, new Promise<void>((r) => (release = r)));
    const b = follow(f, startCursor(0)); // no reader yet; its own poll waits
    await until(() => f.tails.length === 1, "b's tail");
    const a = follow(f, startCursor(0));
    await until(() => f.tails.length === 3 && f.tails[2]!.polls > 0, "a's reader");
    release();
    await until(seenAll(b, 2));
    expect(f.tails[0]!.polls).toBe(2); // caught up once more after subscribing
    append(f.roots[0]!, RUN, 3);
    await until(() => seenAll(a, 3)() && seenAll(b, 3)());
    expect(a.batches).toEqual([["a1", "a2"], ["a3"]]);
    expect(b.batches).toEqual([["a1", "a2"], ["a3"]]);
    expect(f.tails.length).toBe(3);
  });

  it("events of several workspaces come in fleet order, the cursor holding each run", async () => {
    const f = fleet([H1, H2]);
    append(f.roots[0]!, RUN, 1, 4);
    append(f.roots[1]!, RUN2, 2, 3);
    const a = follow(f, startCursor(0));
    await until(seenAll(a, 4));
    append(f.roots[1]!, RUN2, 6);
    append(f.roots[0]!, RUN, 5);
    await until(seenAll(a, 6));
    expect(a.batches).toEqual([
      ["a1", "b1", "b2", "a2"],
      ["a3", "b3"],
    ]);
    expect(a.cursor()).toBe(`0;${H1}/${RUN}:3;${H2}/${RUN2}:3`);
  });

  it("clients that drop output share a reader of their own", async () => {
    const f = fleet([H1]);
    append(f.roots[0]!, RUN, 1);
    const a = follow(f, startCursor(0), true);
    await until(seenAll(a, 1));
    const b = follow(f, startCursor(0), false);
    await until(seenAll(b, 1));
    const c = follow(f, startCursor(0), false);
    await until(seenAll(c, 1));
    append(f.roots[0]!, RUN, 2);
    await until(() => seenAll(a, 2)() && seenAll(b, 2)() && seenAll(c, 2)());
    // a, its reader, b, the output-less reader, c.
    expect(f.tails.length).toBe(5);
    expect(c.batches).toEqual([["a1"], ["a2"]]);
  });
});
