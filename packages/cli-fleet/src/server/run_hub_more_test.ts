import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FleetEvent } from "@ariel/core";
import { type CursoredEvent, createRun, type LoadedRun, loadRun, writeExitOnce } from "@ariel/core/host";
import { afterEach, describe, expect, it } from "vitest";
import { runFields } from "../../../core/src/host/runs/_fixture.ts";
import { until } from "./_app_fixture.ts";
import { MAX_QUEUED, type StreamResult } from "./_subscriber.ts";
import { followShared } from "./run_hub.ts";

// The shared reader of a live run as its clients see it: each event once, with the cursor after
// it (a detached run's output lines by their offsets), whoever joins when; which reader a client
// ends up on (its backlog limit tells), and how a client's stream ends when it leaves, falls
// behind, or the reader fails. The runs are written here: a foreground run owned by this process,
// and a detached one whose monitor and child are this process.

const FG = "20261202T110000Z-aaaaaa";
const FG2 = "20261202T110000Z-cccccc";
const DET = "20261202T110100Z-bbbbbb";
const ZERO = { seq: 0, stdout: 0, stderr: 0 };

type Ws = { root: string; hash: string };
const dirs: string[] = [];
const clients: Client[] = [];
afterEach(() => {
  // Every client leaves (a generator paused at a yield leaves its reader only when returned).
  for (const c of clients.splice(0)) {
    c.stop.abort();
    void c.it.return(undefined);
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(): Ws {
  const root = mkdtempSync(join(tmpdir(), "ariel-run-hub-more-"));
  dirs.push(root);
  mkdirSync(join(root, ".ariel/runs"), { recursive: true });
  return { root, hash: randomBytes(8).toString("hex") }; // a reader of its own per test
}

/** Append one event to run `runId`'s history, as its writer does. */
function append(ws: Ws, runId: string, event: string, extra: object = {}): void {
  const line = { v: 1, type: "event", event, runId, ts: new Date().toISOString(), source: ".", ...extra };
  appendFileSync(join(ws.root, ".ariel/runs", `${runId}.ndjson`), `${JSON.stringify(line)}\n`);
}

const out = (ws: Ws, runId: string, line: string) => append(ws, runId, "output", { stream: "stdout", line });

/** A live foreground run (its ariel-spawn is this process) with its first two events. */
async function foreground(ws: Ws, runId = FG): Promise<LoadedRun> {
  append(ws, runId, "run.started", { source: null, argv: ["x"], targets: ["."], pid: process.pid });
  append(ws, runId, "process.started", { pid: process.pid, argv: ["x"] });
  return (await loadRun(ws, runId))!;
}

/** A live detached run (monitor and child: this process) with its run.started and empty output. */
async function detached(ws: Ws): Promise<LoadedRun> {
  const me = { pid: process.pid, startTime: null };
  await createRun(
    ws.root,
    runFields(ws, DET, { monitor: { ...me, bootId: null }, child: { ...me, pgid: process.pid } }),
  );
  append(ws, DET, "run.started", { argv: ["x"], targets: ["."], mode: "detached" });
  for (const s of ["stdout", "stderr"]) writeFileSync(join(ws.root, ".ariel/runs", DET, s), "");
  return (await loadRun(ws, DET))!;
}

const write = (ws: Ws, stream: string, text: string) =>
  appendFileSync(join(ws.root, ".ariel/runs", DET, stream), text);

/** What a client was sent: each event (an output line as stream:"text") with its cursor. */
const label = (c: CursoredEvent) => {
  const e = c.event as FleetEvent & { stream?: string; data?: string; to?: string };
  const what =
    e.event === "output" ? `${e.stream}:${JSON.stringify(e.data)}` : e.to ? `${e.event}>${e.to}` : e.event;
  return `${what}@${c.cursor}`;
};

interface Client {
  it: AsyncGenerator<CursoredEvent[]>;
  result: StreamResult;
  stop: AbortController;
}

/** A client from the run's start, stepped by the test (`it.next()`). */
function client(ws: Ws, run: LoadedRun, maxQueued = MAX_QUEUED): Client {
  const stop = new AbortController();
  const result: StreamResult = { end: "ended", cursor: null };
  const c = { it: followShared(ws, run, ZERO, stop.signal, result, maxQueued), result, stop };
  clients.push(c);
  return c;
}

/** A client that takes every batch as it comes: what it got, each batch's size, and its end. */
function reader(ws: Ws, run: LoadedRun, maxQueued = MAX_QUEUED) {
  const c = client(ws, run, maxQueued);
  const got: string[] = [];
  const sizes: number[] = [];
  const state = { ended: false };
  const done = (async () => {
    for await (const b of c.it) {
      sizes.push(b.length);
      got.push(...b.map(label));
    }
    state.ended = true;
  })();
  return { ...c, got, sizes, done, state };
}

/** Append an event and wait until `r` has it: it then went out as a batch of its own. */
async function step(r: { got: string[] }, add: () => void, what = "the event"): Promise<void> {
  const n = r.got.length;
  add();
  await until(() => r.got.length > n, what, 15_000);
}

const cursors = (b: IteratorResult<CursoredEvent[]>) => (b.done ? null : b.value.map((c) => c.cursor));

/** Reject when `p` has not settled within `ms` (a client that waits for good). */
function within<T>(p: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * A client with a backlog of 1 that keeps up, which has the run's `has` events and then two it
 * got from the shared reader it started or joined (`add(n)` appends event n).
 */
async function keepingUp(ws: Ws, run: LoadedRun, add: (n: number) => void, has: number) {
  const w = reader(ws, run, 1);
  await until(() => w.got.length === has, "the catch-up", 15_000);
  await step(w, () => add(has + 1));
  await step(w, () => add(has + 2));
  return w;
}

/**
 * Start `c` on the reader `w` is on, and leave it behind while `w` sees three more events (one
 * batch each): how `c` ends, and the cursors it got. On a reader whose backlog is 1, `c` ends
 * overflow after what it read itself.
 */
async function leftBehind(c: Client, w: { got: string[] }, add: (n: number) => void) {
  const first = c.it.next(); // c subscribes to the reader now
  const has = w.got.length;
  for (let n = has + 1; n <= has + 3; n++) await step(w, () => add(n));
  const seen = cursors(await first) ?? [];
  for (let r = await within(c.it.next(), "c's end"); !r.done; r = await within(c.it.next(), "c's end")) {
    seen.push(...r.value.map((x) => x.cursor));
  }
  return { seen, result: c.result };
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

describe("followShared: each event once, with the cursor after it", () => {
  it("two runs followed at once: each client gets its own run's events, the seq as cursor", async () => {
    const ws = workspace();
    const a = reader(ws, await foreground(ws, FG));
    const b = reader(ws, await foreground(ws, FG2));
    await until(() => a.got.length === 2 && b.got.length === 2, "both catch-ups", 15_000);
    for (const line of ["one", "two", "three"]) await step(a, () => out(ws, FG, line));
    await step(b, () => out(ws, FG2, "other"));
    await step(a, () => out(ws, FG, "four"));
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.done, b.done]);
    expect(a.got).toEqual([
      "run.started@1",
      "run.state>running@2",
      'stdout:"one\\n"@3',
      'stdout:"two\\n"@4',
      'stdout:"three\\n"@5',
      'stdout:"four\\n"@6',
    ]);
    expect(b.got).toEqual(["run.started@1", "run.state>running@2", 'stdout:"other\\n"@3']);
    expect([a.result.end, b.result.end]).toEqual(["stopped", "stopped"]);
  });

  it("a detached run: output lines by their offsets (stdout, then stderr alone), history events, its end", async () => {
    const ws = workspace();
    const a = reader(ws, await detached(ws));
    await until(() => a.got.length === 1, "the catch-up", 15_000);
    await step(a, () => write(ws, "stdout", "a\n"));
    await step(a, () => write(ws, "stderr", "b\n"));
    await step(a, () => write(ws, "stdout", "cc\n"));
    await step(a, () => write(ws, "stderr", "dd\n"));
    await step(a, () => append(ws, DET, "process.started", { pid: process.pid }));
    append(ws, DET, "process.exited", { code: 0, signal: null, status: 0 });
    append(ws, DET, "run.finished", { source: null, summary: { exit: 0 } });
    await writeExitOnce(ws.root, {
      ...{ v: 1, type: "exit", runId: DET, code: 0, signal: null, status: 0 },
      ...{ endedAt: new Date().toISOString(), state: "exited", reason: null },
    });
    await a.done;
    expect(a.got).toEqual([
      "run.started@1.0.0",
      'stdout:"a\\n"@1.2.0',
      'stderr:"b\\n"@1.2.2',
      'stdout:"cc\\n"@1.5.2',
      'stderr:"dd\\n"@1.5.5',
      "run.state>running@2.5.5",
      "run.exited@3.5.5",
      "run.state>exited@4.5.5",
    ]);
    expect(a.result).toEqual({ end: "ended", cursor: null });
  });

  it("a client that joins a live reader: what it read itself is not sent again, and no empty batch", async () => {
    const ws = workspace();
    const run = await foreground(ws);
    const a = reader(ws, run);
    await until(() => a.got.length === 2, "the catch-up", 15_000);
    await step(a, () => out(ws, FG, "3"));
    await step(a, () => out(ws, FG, "4"));
    const b = client(ws, run);
    const seen: (string[] | null)[] = [cursors(await b.it.next())];
    await step(a, () => out(ws, FG, "5")); // queued for b, which also reads it itself
    while (!seen.flat().includes("5")) seen.push(cursors(await b.it.next()));
    const next = b.it.next();
    await step(a, () => out(ws, FG, "6"));
    seen.push(cursors(await next));
    expect(seen.flat()).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(seen.every((s) => s !== null && s.length > 0)).toBe(true);
  });
});

describe("followShared: a detached run's output lines, once each", () => {
  it("a client that joins a live reader: output lines it read itself are not sent again", async () => {
    const ws = workspace();
    const run = await detached(ws);
    const a = reader(ws, run);
    await until(() => a.got.length === 1, "the catch-up", 15_000);
    await step(a, () => write(ws, "stdout", "a\n"));
    await step(a, () => write(ws, "stderr", "b\n"));
    const b = client(ws, run);
    const seen: (string[] | null)[] = [cursors(await b.it.next())];
    await step(a, () => write(ws, "stdout", "c\n")); // queued for b, which also reads them itself
    await step(a, () => write(ws, "stderr", "d\n"));
    while (!seen.flat().includes("1.4.4")) seen.push(cursors(await b.it.next()));
    const next = b.it.next();
    await step(a, () => write(ws, "stdout", "e\n"));
    seen.push(cursors(await next));
    expect(seen.flat()).toEqual(["1.0.0", "1.2.0", "1.2.2", "1.4.2", "1.4.4", "1.6.4"]);
  });
});

describe("followShared: which reader a client is on, and how its stream ends", () => {
  it("a client that joins a live reader and falls behind ends overflow with its last cursor", async () => {
    const ws = workspace();
    const run = await foreground(ws);
    const add = (n: number) => out(ws, FG, String(n));
    const a = await keepingUp(ws, run, add, 2); // the reader's backlog is that of the client that starts it
    const b = client(ws, run, 600);
    expect(await leftBehind(b, a, add)).toEqual({ seen: upTo(7), result: { end: "overflow", cursor: "7" } });
  });

  it("a client whose reader another client started meanwhile joins that one (and its backlog limit)", async () => {
    const ws = workspace();
    const run = await foreground(ws);
    const b = client(ws, run, 1);
    const seen = [cursors(await b.it.next())]; // b is in its catch-up, no reader yet
    const a = reader(ws, run);
    await until(() => a.got.length === 2, "a's catch-up", 15_000);
    await step(a, () => out(ws, FG, "3"));
    await step(a, () => out(ws, FG, "4")); // a's reader (backlog 600) is running now
    while (!seen.flat().includes("4")) seen.push(cursors(await b.it.next()));
    const pending = b.it.next();
    await step(a, () => out(ws, FG, "5"));
    seen.push(cursors(await pending));
    for (const n of ["6", "7", "8"]) await step(a, () => out(ws, FG, n));
    for (let i = 0; i < 3; i++) seen.push(cursors(await b.it.next()));
    b.stop.abort();
    expect([seen.flat(), (await b.it.next()).done, b.result.end]).toEqual([
      ["1", "2", "3", "4", "5", "6", "7", "8"],
      true,
      "stopped",
    ]);
  });

  it("one client leaving leaves the reader to the other; the last one stops it: the next starts its own", async () => {
    const ws = workspace();
    const run = await foreground(ws);
    const a = reader(ws, run);
    await until(() => a.got.length === 2, "the catch-up", 15_000);
    await step(a, () => out(ws, FG, "3"));
    const b = reader(ws, run);
    await step(b, () => out(ws, FG, "4"));
    a.stop.abort();
    await a.done;
    await step(b, () => out(ws, FG, "5"));
    await step(b, () => out(ws, FG, "6"));
    b.stop.abort();
    await b.done;
    expect([a.result.end, b.result.end, b.got.length, b.state.ended]).toEqual([
      "stopped",
      "stopped",
      6,
      true,
    ]);
    const add = (n: number) => out(ws, FG, String(n));
    const w = await keepingUp(ws, run, add, 6);
    const c = client(ws, run, 600);
    expect(await leftBehind(c, w, add)).toEqual({
      seen: upTo(11),
      result: { end: "overflow", cursor: "11" },
    });
  });

  it("a shared reader that fails ends its clients stopped; the next client starts a reader of its own", async () => {
    const ws = workspace();
    const run = await detached(ws);
    const a = reader(ws, run);
    await until(() => a.got.length === 1, "the catch-up", 15_000);
    await step(a, () => write(ws, "stdout", "1\n"));
    const record = join(ws.root, ".ariel/runs", DET, "run.json");
    const good = readFileSync(record, "utf8");
    writeFileSync(record, "{");
    await until(() => a.state.ended, "the reader to fail", 15_000);
    writeFileSync(record, good);
    expect([a.result, a.got.length]).toEqual([{ end: "stopped", cursor: null }, 2]);
    const add = (n: number) => write(ws, "stdout", `${n}\n`);
    const w = await keepingUp(ws, run, add, 2);
    const got = await leftBehind(client(ws, run, 600), w, add);
    const seen = ["1.0.0", "1.2.0", "1.4.0", "1.6.0", "1.8.0", "1.10.0", "1.12.0"];
    expect(got).toEqual({ seen, result: { end: "overflow", cursor: "1.12.0" } });
  });

  it("a client whose signal aborted before it started: nothing sent, stopped", async () => {
    const ws = workspace();
    const c = client(ws, await foreground(ws));
    c.stop.abort();
    expect([await c.it.next(), c.result.end]).toEqual([{ done: true, value: undefined }, "stopped"]);
  });
});
