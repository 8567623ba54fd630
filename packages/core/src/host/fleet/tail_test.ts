import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCursor, startCursor } from "../../fleet/cursor.ts";
import { FleetTail } from "./tail.ts";
import type { KnownWorkspace } from "./workspaces.ts";

const A = "20261202T110000Z-aaaaaa";
const B = "20261202T110000Z-bbbbbb";
const at = (s: number) => new Date(Date.UTC(2026, 11, 2, 11, 0, s)).toISOString();
const line = (runId: string, s: number, text: string) =>
  `${JSON.stringify({ v: 1, type: "event", event: "output", runId, ts: at(s), source: ".", stream: "stdout", line: text })}\n`;

describe("FleetTail", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function workspace(hash: string): KnownWorkspace {
    const root = mkdtempSync(join(tmpdir(), "ariel-tail-"));
    dirs.push(root);
    mkdirSync(join(root, ".ariel/runs"), { recursive: true });
    return { root, hash, origin: "flag", exists: true };
  }

  it("resumes from any cursor with every event once, also one appended late with an older time", async () => {
    const w1 = workspace("1111111111111111");
    const w2 = workspace("2222222222222222");
    const fileA = join(w1.root, ".ariel/runs", `${A}.ndjson`);
    const fileB = join(w2.root, ".ariel/runs", `${B}.ndjson`);
    appendFileSync(fileA, line(A, 1, "a1") + line(A, 3, "a2"));
    appendFileSync(fileB, line(B, 2, "b1"));
    const known = async () => [w1, w2];
    const first = await new FleetTail(known, startCursor(0)).poll();
    expect(first.map((e) => e.event.data)).toEqual(["a1\n", "b1\n", "a2\n"]);
    // A reader got the first two, then dropped; meanwhile both runs went on, B with an event whose
    // time is before a2's (a buffered history flushed late).
    const cursor = first[1]!.cursor;
    appendFileSync(fileB, line(B, 2, "b2"));
    appendFileSync(fileA, line(A, 4, "a3"));
    const resumed = await new FleetTail(known, parseCursor(cursor)!).poll();
    expect(resumed.map((e) => e.event.data)).toEqual(["b2\n", "a2\n", "a3\n"]);
    // And from the last cursor, nothing is new.
    expect(await new FleetTail(known, parseCursor(resumed.at(-1)!.cursor)!).poll()).toEqual([]);
  });

  it("a torn last line waits for its end; a tail follows what is appended", async () => {
    const w = workspace("3333333333333333");
    const file = join(w.root, ".ariel/runs", `${A}.ndjson`);
    appendFileSync(file, line(A, 1, "x") + line(A, 2, "y").slice(0, 20));
    const tail = new FleetTail(async () => [w], startCursor(0));
    expect((await tail.poll()).map((e) => e.event.seq)).toEqual([1]);
    appendFileSync(file, line(A, 2, "y").slice(20));
    expect((await tail.poll()).map((e) => [e.event.seq, e.event.data])).toEqual([[2, "y\n"]]);
  });

  it("reads a history whose mtime is a little before its last event (the kernel's file clock is coarse)", async () => {
    // Linux stamps files from a clock that lags by up to a tick (1-10 ms): a run written at
    // 11:00:03.000 can carry mtime 11:00:02.996, and `--since 11:00:03` must still find it.
    const w = workspace("4444444444444444");
    const file = join(w.root, ".ariel/runs", `${A}.ndjson`);
    appendFileSync(file, line(A, 1, "early") + line(A, 3, "late"));
    const mtime = (Date.parse(at(3)) - 4) / 1000;
    utimesSync(file, mtime, mtime);
    const events = await new FleetTail(async () => [w], startCursor(Date.parse(at(3)))).poll();
    expect(events.map((e) => e.event.data)).toEqual(["late\n"]);
    // A history untouched for long before the start is still not read.
    const old = (Date.parse(at(3)) - 60_000) / 1000;
    utimesSync(file, old, old);
    expect(await new FleetTail(async () => [w], startCursor(Date.parse(at(3)))).poll()).toEqual([]);
  });
});
