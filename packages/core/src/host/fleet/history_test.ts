import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readAllHistory, readHistory, readHistoryShared } from "./history.ts";

const W = "ae89cb2b620ea8fc";
const R = "20261202T110943Z-k3x9a2";
const line = (event: string, f: Record<string, unknown> = {}) =>
  `${JSON.stringify({ v: 1, type: "event", event, runId: R, ts: "2026-12-02T11:09:44.120Z", source: "api", ...f })}\n`;

describe("readHistory", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function file(text: string): string {
    const d = mkdtempSync(join(tmpdir(), "ariel-history-"));
    dirs.push(d);
    const p = join(d, `${R}.ndjson`);
    writeFileSync(p, text);
    return p;
  }

  it("numbers every line, skips and counts what is not an event, and leaves a torn last line", async () => {
    const p = file(`${line("run.started")}not json\n${line("disk.low")}${line("process.started")}{"v":1,"ty`);
    const c = await readHistory(p, W, R);
    expect(c.events.map((e) => [e.seq, e.event])).toEqual([
      [1, "run.started"],
      [4, "run.state"],
    ]);
    expect(c.skipped).toBe(2);
    expect(c.position.seq).toBe(4);
    appendFileSync(p, `pe":"event","event":"run.lost","runId":"${R}","ts":"2026-12-02T11:09:45Z"}\n`);
    const next = await readHistory(p, W, R, c.position);
    expect(next.events.map((e) => [e.seq, e.event])).toEqual([[5, "run.lost"]]);
    expect(next.position.offset).toBe(next.size);
  });

  it("reads a missing file as empty, and nothing new as nothing", async () => {
    expect(await readHistory("/nonexistent/x.ndjson", W, R)).toEqual({
      events: [],
      size: 0,
      skipped: 0,
      position: { offset: 0, seq: 0 },
    });
    const p = file(line("run.started"));
    const all = await readAllHistory(p, W, R);
    expect((await readHistory(p, W, R, all.position)).events).toEqual([]);
  });
});

describe("readHistory: edges", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function dir(): string {
    const d = mkdtempSync(join(tmpdir(), "ariel-history-"));
    dirs.push(d);
    return d;
  }
  function file(text: string): string {
    const p = join(dir(), `${R}.ndjson`);
    writeFileSync(p, text);
    return p;
  }

  it("a path through a file (ENOTDIR) reads as empty, at the position given", async () => {
    const p = file(line("run.started"));
    const from = { offset: 7, seq: 3 };
    expect(await readHistory(join(p, "x.ndjson"), W, R, from)).toEqual({
      events: [],
      size: 0,
      skipped: 0,
      position: from,
    });
  });

  it("any other failure to open or read is thrown", async () => {
    const d = dir();
    const loop = join(d, "loop.ndjson");
    symlinkSync(loop, loop);
    await expect(readHistory(loop, W, R)).rejects.toMatchObject({ code: "ELOOP" });
    mkdirSync(join(d, "a-dir.ndjson"));
    await expect(readHistory(join(d, "a-dir.ndjson"), W, R)).rejects.toMatchObject({ code: "EISDIR" });
  });

  it("closes the file every time", async () => {
    const p = file(`${line("run.started")}{"v":1`);
    const fds = () => readdirSync("/proc/self/fd").length;
    const before = fds();
    for (let i = 0; i < 50; i++) await readHistory(p, W, R);
    // a leak would leave 50 open (the margin is for whatever else the worker opens meanwhile)
    expect(fds()).toBeLessThan(before + 10);
  });

  it("a position past the end (a file that shrank): nothing, at that position", async () => {
    const p = file(line("run.started"));
    const from = { offset: 100_000, seq: 9 };
    const c = await readHistory(p, W, R, from);
    expect(c).toEqual({ events: [], size: line("run.started").length, skipped: 0, position: from });
  });

  it("only a torn line: nothing, the position unchanged", async () => {
    const p = file('{"v":1,"type":"event"');
    expect(await readHistory(p, W, R)).toEqual({
      events: [],
      size: 21,
      skipped: 0,
      position: { offset: 0, seq: 0 },
    });
  });

  it("an empty first line is a line: skipped and numbered", async () => {
    const p = file(`\n${line("run.started")}`);
    const c = await readHistory(p, W, R);
    expect(c.events.map((e) => [e.seq, e.event])).toEqual([[2, "run.started"]]);
    expect(c.skipped).toBe(1);
    expect(c.position).toEqual({ offset: c.size, seq: 2 });
    const only = file("\n");
    expect(await readHistory(only, W, R)).toEqual({
      events: [],
      size: 1,
      skipped: 1,
      position: { offset: 1, seq: 1 },
    });
  });

  it("JSON that is not an object (null, an array, a number, a string) is skipped, not an error", async () => {
    const p = file(`null\n[1]\n5\n"x"\n${line("run.started")}`);
    const c = await readHistory(p, W, R);
    expect(c.events.map((e) => [e.seq, e.event])).toEqual([[5, "run.started"]]);
    expect(c.skipped).toBe(4);
  });

  it("reads at most 4 MiB a call; readAllHistory goes on to the end", async () => {
    const pad = "x".repeat(1000);
    const n = 5 * 1024;
    const text = Array.from({ length: n }, (_, i) =>
      line(i % 2 === 0 ? "run.started" : "process.started", { pad }),
    ).join("");
    const p = file(`${text}junk\n`);
    const first = await readHistory(p, W, R);
    expect(first.size).toBe(text.length + 5);
    expect(first.position.offset).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(first.position.offset).toBeGreaterThan(4 * 1024 * 1024 - line("run.started", { pad }).length - 20);
    expect(first.events.length).toBe(first.position.seq);
    expect(first.events.length).toBeLessThan(n);
    const all = await readAllHistory(p, W, R);
    expect(all.events.length).toBe(n);
    expect(all.events.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(all.skipped).toBe(1);
    expect(all.size).toBe(text.length + 5);
    expect(all.position).toEqual({ offset: text.length + 5, seq: n + 1 });
  });

  it("readAllHistory: every event and every skipped line, a torn tail left for later", async () => {
    const p = file(`${line("run.started")}bad\nworse\n${line("process.started")}{"v":`);
    const all = await readAllHistory(p, W, R);
    expect(all.events.map((e) => [e.seq, e.event])).toEqual([
      [1, "run.started"],
      [4, "run.state"],
    ]);
    expect(all.skipped).toBe(2);
    expect(all.position.seq).toBe(4);
    expect(all.position.offset).toBe(all.size - 5);
  });
});

describe("readHistoryShared", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function file(text: string, name = `${R}.ndjson`): string {
    const d = mkdtempSync(join(tmpdir(), "ariel-history-shared-"));
    dirs.push(d);
    const p = join(d, name);
    writeFileSync(p, text);
    return p;
  }

  it("readers at one position get the one chunk read; the default position is the start", async () => {
    const p = file(line("run.started"));
    const a = await readHistoryShared(p, W, R, { offset: 0, seq: 0 });
    const b = await readHistoryShared(p, W, R);
    expect(b).toBe(a);
    expect(a.events.map((e) => [e.seq, e.event])).toEqual([[1, "run.started"]]);
    // a later reader goes on from there
    appendFileSync(p, line("process.started"));
    const next = await readHistoryShared(p, W, R, a.position);
    expect(next.events.map((e) => [e.seq, e.event])).toEqual([[2, "run.state"]]);
  });

  it("a chunk that did not reach a line end is not shared: the line is read once it is whole", async () => {
    const p = file('{"v":1,');
    const torn = await readHistoryShared(p, W, R);
    expect(torn.events).toEqual([]);
    writeFileSync(p, line("run.started"));
    const whole = await readHistoryShared(p, W, R);
    expect(whole.events.map((e) => e.event)).toEqual(["run.started"]);
  });

  it("keeps the last 512 chunks read, the oldest dropped first", async () => {
    const p = file(line("run.started"));
    // chunks at distinct positions (a seq of one's own each), so that nothing older is kept
    const at = (seq: number) => readHistoryShared(p, W, R, { offset: 0, seq });
    for (let s = 1000; s < 1512; s++) await at(s);
    const first = await at(1);
    const second = await at(2);
    expect(await at(1)).toBe(first);
    for (let s = 3; s < 513; s++) await at(s);
    // 512 chunks since `first` (itself one of them): it is still kept
    expect(await at(1)).toBe(first);
    await at(513);
    // one more: `first` was the oldest, and went
    const again = await at(1);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(await at(2)).not.toBe(second);
  });
});
