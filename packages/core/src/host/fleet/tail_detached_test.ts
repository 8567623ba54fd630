/**
 * FleetTail over detached runs (a run directory with run.json, stdout and stderr next to its
 * history), and over foreground histories where the tail's bookkeeping shows: the file cache,
 * the skip of old files, the workspace list's refresh, and the follow loops. Every run is real
 * files in a temp dir, read through the real runs backend.
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseCursor, startCursor } from "../../fleet/cursor.ts";
import type { FleetEvent } from "../../fleet/events.ts";
import { runPaths } from "../../runs/paths.ts";
import { type CursoredEvent, FleetTail, followFleet, followFleetBatches } from "./tail.ts";
import type { KnownWorkspace } from "./workspaces.ts";

const HASH = "0123456789abcdef";
const RUN = "20261202T110000Z-aaaaaa";
/** A time `s` seconds after 2026-12-02T11:00:00Z. */
const T = (s: number) => new Date(Date.UTC(2026, 11, 2, 11, 0, 0) + s * 1000).toISOString();
const ms = (s: number) => Date.parse(T(s));

/** One history line of RUN in fleet form. */
const ev = (event: string, s: number, fields: Record<string, unknown> = {}) =>
  `${JSON.stringify({ v: 1, type: "event", event, runId: RUN, ts: T(s), source: "api", ...fields })}\n`;
const started = (s: number) => ev("run.started", s);
const running = (s: number) => ev("run.state", s, { from: "starting", to: "running" });
const exited = (s: number) => ev("run.exited", s, { code: 0, signal: null, status: 0 });
const ended = (s: number) => ev("run.state", s, { from: "running", to: "exited" });

/** An event as `state:seq:data` for output, `name@seq` for the rest. */
const show = (e: FleetEvent) =>
  e.event === "output" ? `${e.stream}:${e.seq}:${e.data}` : `${e.event}@${e.seq}`;
const shown = (batch: CursoredEvent[]) => batch.map((x) => show(x.event));
/** The cursor text for `since` with RUN at `at` (`seq` or `seq.stdout.stderr`). */
const cursorOf = (since: number, at?: string) =>
  at === undefined ? since.toString(36) : `${since.toString(36)};${HASH}/${RUN}:${at}`;

describe("FleetTail over detached runs", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function workspace(hash = HASH, exists = true): KnownWorkspace {
    const root = mkdtempSync(join(tmpdir(), "ariel-tail-det-"));
    dirs.push(root);
    mkdirSync(join(root, ".ariel/runs"), { recursive: true });
    return { root, hash, origin: "flag", exists };
  }

  interface RunSpec {
    /** run.json's startedAt (null: not started) and createdAt. */
    startedAt?: string | null;
    createdAt?: string;
    /** `running`: its monitor is this process; `lost`: no monitor; `none`: no run.json at all. */
    state?: "running" | "lost" | "none";
    history?: string;
    stdout?: string;
    stderr?: string;
  }

  /** A detached run's directory (run.json, stdout, stderr) and its history, as a monitor leaves them. */
  function detached(ws: KnownWorkspace, spec: RunSpec = {}) {
    const p = runPaths(ws.root, RUN);
    mkdirSync(p.dir, { recursive: true });
    const startedAt = spec.startedAt === undefined ? T(0) : spec.startedAt;
    const createdAt = spec.createdAt ?? startedAt ?? T(0);
    const me = { pid: process.pid, startTime: null };
    if ((spec.state ?? "running") !== "none") {
      const record = {
        v: 1,
        type: "run",
        runId: RUN,
        name: null,
        backend: "local",
        workspace: { root: ws.root, hash: ws.hash },
        source: null,
        cwd: ws.root,
        task: null,
        worktree: null,
        branch: null,
        argv: ["sh", "-c", "work"],
        createdAt,
        startedAt,
        endedAt: null,
        monitor: spec.state === "lost" ? null : { ...me, bootId: null },
        child: { pid: process.pid, pgid: process.pid, startTime: null },
        restart: { policy: "no", max: 0, count: 0 },
        respawnOf: null,
        exit: null,
        timeoutMs: null,
        graceMs: 0,
        onExit: null,
        interactive: false,
        isolate: null,
        kill: null,
        worktreeOutcome: null,
        version: 1,
        fencingToken: 0,
      };
      writeFileSync(p.record, `${JSON.stringify(record)}\n`);
    }
    writeFileSync(p.stdout, spec.stdout ?? "");
    writeFileSync(p.stderr, spec.stderr ?? "");
    if (spec.history !== undefined) writeFileSync(p.history, spec.history);
    return {
      paths: p,
      /** The monitor's exit.json: the run is final from now on. */
      exit(state: "exited" | "failed" = "exited") {
        const status = state === "exited" ? 0 : 1;
        const exit = {
          v: 1,
          type: "exit",
          runId: RUN,
          code: status,
          signal: null,
          status,
          endedAt: T(50),
          state,
          reason: null,
        };
        writeFileSync(p.exit, `${JSON.stringify(exit)}\n`);
      },
    };
  }

  it("takes a run's history, then its stdout and stderr lines, each with the cursor after it", async () => {
    const ws = workspace();
    detached(ws, { history: started(0) + running(1), stdout: "one\ntwo\n", stderr: "err\n" });
    const got = await new FleetTail(async () => [ws], startCursor(0)).poll();
    expect(shown(got)).toEqual([
      "run.started@1",
      "run.state@2",
      "stdout:0:one\n",
      "stdout:4:two\n",
      "stderr:0:err\n",
    ]);
    expect(got.map((x) => x.cursor)).toEqual([
      cursorOf(0, "1"),
      cursorOf(0, "2"),
      cursorOf(0, "2.4.0"),
      cursorOf(0, "2.8.0"),
      cursorOf(0, "2.8.4"),
    ]);
    expect(got[2]!.event).toMatchObject({
      v: 1,
      type: "event",
      workspace: HASH,
      runId: RUN,
      stream: "stdout",
    });
    // From a cursor in the middle of the output: the rest, and nothing twice.
    const resumed = await new FleetTail(async () => [ws], parseCursor(got[2]!.cursor)!).poll();
    expect(shown(resumed)).toEqual(["stdout:4:two\n", "stderr:0:err\n"]);
    expect(resumed.at(-1)!.cursor).toBe(cursorOf(0, "2.8.4"));
  });

  it("holds the closing events (and what follows them) until the run is final and its output drained, torn last line included", async () => {
    const ws = workspace();
    const run = detached(ws, { history: started(0) + running(1), stdout: "one\n" });
    const p = run.paths;
    const tail = new FleetTail(async () => [ws], startCursor(0));
    expect(shown(await tail.poll())).toEqual(["run.started@1", "run.state@2", "stdout:0:one\n"]);
    // The monitor wrote the closing events while the run still reads running (no exit.json yet).
    appendFileSync(p.stdout, "four\nfi");
    appendFileSync(p.history, exited(5) + ev("worktree.removed", 6) + ended(7));
    expect(shown(await tail.poll())).toEqual(["stdout:4:four\n"]);
    expect(tail.cursor).toBe(cursorOf(0, "2.9.0"));
    expect(shown(await tail.poll())).toEqual([]);
    run.exit();
    const last = await tail.poll();
    expect(shown(last)).toEqual(["stdout:9:fi", "run.exited@3", "worktree.removed@4", "run.state@5"]);
    expect(last.at(-1)!.cursor).toBe(cursorOf(0, "5.11.0"));
    // Drained for good: its output files are not read again, its history still is.
    appendFileSync(p.stdout, "late\n");
    appendFileSync(p.history, ev("worktree.kept", 8));
    expect(shown(await tail.poll())).toEqual(["worktree.kept@6"]);
    expect(shown(await tail.poll())).toEqual([]);
  });

  it("a run with a directory and no history file yet: its output alone", async () => {
    const ws = workspace();
    detached(ws, { stdout: "hi\n" });
    const tail = new FleetTail(async () => [ws], startCursor(0));
    const got = await tail.poll();
    expect(shown(got)).toEqual(["stdout:0:hi\n"]);
    expect(got[0]!.cursor).toBe(cursorOf(0, "0.3.0"));
    expect(await tail.poll()).toEqual([]);
  });

  it("a run directory without a readable run.json: its history as it is, its output files unread", async () => {
    for (const record of [null, "{ torn"]) {
      const ws = workspace();
      const run = detached(ws, { state: "none", history: started(0) + running(1), stdout: "one\n" });
      if (record !== null) writeFileSync(run.paths.record, record);
      const tail = new FleetTail(async () => [ws], startCursor(0));
      expect(shown(await tail.poll())).toEqual(["run.started@1", "run.state@2"]);
      appendFileSync(run.paths.history, ev("agent.notice", 3, { kind: "info", message: "m" }));
      expect(shown(await tail.poll())).toEqual(["agent.notice@3"]);
      expect(tail.cursor).toBe(cursorOf(0, "3"));
    }
  });

  it("output: false reads no output file, only the history", async () => {
    const ws = workspace();
    detached(ws, { history: started(0), stdout: "one\n", stderr: "two\n" });
    const off = await new FleetTail(async () => [ws], startCursor(0), { output: false }).poll();
    expect(shown(off)).toEqual(["run.started@1"]);
    const on = await new FleetTail(async () => [ws], startCursor(0), {}).poll();
    expect(shown(on)).toEqual(["run.started@1", "stdout:0:one\n", "stderr:0:two\n"]);
  });

  it("pollItems: each event with what it moves in the cursor (a stream and the offset after the line)", async () => {
    const ws = workspace();
    detached(ws, { history: started(0), stdout: "a\nbb\n", stderr: "c\n" });
    const tail = new FleetTail(async () => [ws], startCursor(0));
    expect(tail.cursor).toBe("0");
    const items = await tail.pollItems();
    expect(items.map((i) => [show(i.event), i.stream, i.next])).toEqual([
      ["run.started@1", undefined, undefined],
      ["stdout:0:a\n", "stdout", 2],
      ["stdout:2:bb\n", "stdout", 5],
      ["stderr:0:c\n", "stderr", 2],
    ]);
    expect(tail.cursor).toBe(cursorOf(0, "1.5.2"));
    expect(await tail.pollItems()).toEqual([]);
  });

  describe("a run that began before the cursor's start", () => {
    const since = ms(100);

    it("takes only what is written after the first look, and pins that place in the cursor at once", async () => {
      const ws = workspace();
      const run = detached(ws, {
        startedAt: T(90),
        history: started(90) + running(91),
        stdout: "old\n",
        stderr: "e\n",
      });
      const tail = new FleetTail(async () => [ws], startCursor(since));
      expect(await tail.poll()).toEqual([]);
      expect(tail.cursor).toBe(cursorOf(since, "2.4.2"));
      appendFileSync(run.paths.stdout, "new\n");
      const got = await tail.poll();
      expect(shown(got)).toEqual(["stdout:4:new\n"]);
      expect(got[0]!.cursor).toBe(cursorOf(since, "2.8.2"));
    });

    it("a run that began at the start itself takes all its output (startedAt counts, not createdAt)", async () => {
      const ws = workspace();
      detached(ws, { createdAt: T(80), startedAt: T(100), stdout: "old\n" });
      const tail = new FleetTail(async () => [ws], startCursor(since));
      expect(shown(await tail.poll())).toEqual(["stdout:0:old\n"]);
      // Not started yet: its createdAt says when it began.
      const ws2 = workspace();
      detached(ws2, { createdAt: T(100), startedAt: null, stdout: "old\n" });
      expect(shown(await new FleetTail(async () => [ws2], startCursor(since)).poll())).toEqual([
        "stdout:0:old\n",
      ]);
      const ws3 = workspace();
      detached(ws3, { createdAt: T(99), startedAt: null, stdout: "old\n" });
      expect(shown(await new FleetTail(async () => [ws3], startCursor(since)).poll())).toEqual([]);
    });

    it("pins the seq before its first event taken, so a resume gets that event again", async () => {
      const ws = workspace();
      // seq 2 is after the start; seq 3, flushed late, is dated before it.
      detached(ws, {
        startedAt: T(90),
        history: started(90) + ev("agent.notice", 101, { kind: "info", message: "m" }) + running(95),
        stdout: "old\n",
      });
      const tail = new FleetTail(async () => [ws], startCursor(since));
      const got = await tail.poll();
      expect(shown(got)).toEqual(["agent.notice@2"]);
      expect(got[0]!.cursor).toBe(cursorOf(since, "2.4.0"));
    });

    it("a lost run (no monitor) without its closing events is pinned too", async () => {
      const ws = workspace();
      detached(ws, { state: "lost", startedAt: T(90), history: started(90) + running(91), stdout: "old\n" });
      const tail = new FleetTail(async () => [ws], startCursor(since));
      expect(await tail.poll()).toEqual([]);
      expect(tail.cursor).toBe(cursorOf(since, "2.4.0"));
    });

    it("a run that ended after the start: its closing events, no output of before, its output's place in the cursor", async () => {
      const ws = workspace();
      const run = detached(ws, {
        startedAt: T(90),
        history:
          started(90) +
          running(91) +
          ev("agent.notice", 101, { kind: "info", message: "m" }) +
          exited(102) +
          ended(102),
        stdout: "old\n",
      });
      run.exit();
      const got = await new FleetTail(async () => [ws], startCursor(since)).poll();
      expect(shown(got)).toEqual(["agent.notice@3", "run.exited@4", "run.state@5"]);
      expect(got.map((x) => x.cursor)).toEqual([
        cursorOf(since, "3.4.0"),
        cursorOf(since, "4.4.0"),
        cursorOf(since, "5.4.0"),
      ]);
    });

    // docs/fleet.md: `--from CURSOR` goes on "right after the event that cursor came with", and a
    // run that began before the start gives "only what is written from the first look on". The
    // tail above once left such an ended run unpinned (`<since>;<run>:5`, no output offsets), and
    // a tail resumed from its last cursor replayed the run's whole old output.
    it("a resume from the last cursor of an ended run that began before the start has nothing new", async () => {
      const ws = workspace();
      const run = detached(ws, {
        startedAt: T(90),
        history: started(90) + running(91) + exited(102) + ended(102),
        stdout: "old\n",
      });
      run.exit();
      const got = await new FleetTail(async () => [ws], startCursor(since)).poll();
      expect(shown(got)).toEqual(["run.exited@3", "run.state@4"]);
      const resumed = await new FleetTail(async () => [ws], parseCursor(got.at(-1)!.cursor)!).poll();
      expect(shown(resumed)).toEqual([]);
    });

    it("a history gone since the last look pins the seq reached before", async () => {
      const ws = workspace();
      // First look: no run.json yet, a history of events before the start (none taken).
      const run = detached(ws, { state: "none", history: started(90) + running(91) });
      const tail = new FleetTail(async () => [ws], startCursor(since));
      expect(await tail.poll()).toEqual([]);
      expect(tail.cursor).toBe(cursorOf(since));
      unlinkSync(run.paths.history);
      detached(ws, { startedAt: T(90), stdout: "x\n" });
      expect(await tail.poll()).toEqual([]);
      expect(tail.cursor).toBe(cursorOf(since, "2.2.0"));
    });

    it("a detached run's history is read whatever its mtime (its seq is pinned)", async () => {
      const ws = workspace();
      const run = detached(ws, { startedAt: T(90), history: started(90) + running(91), stdout: "o\n" });
      utimesSync(run.paths.history, ms(0) / 1000, ms(0) / 1000);
      const tail = new FleetTail(async () => [ws], startCursor(since));
      expect(await tail.poll()).toEqual([]);
      expect(tail.cursor).toBe(cursorOf(since, "2.2.0"));
    });
  });

  describe("a run final without its closing events (its monitor died)", () => {
    it("asks for the state every 10th poll, and drains the output 3 s after it first read final", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      const t0 = ms(200);
      vi.setSystemTime(t0);
      const ws = workspace();
      const run = detached(ws, { history: started(0), stdout: "a\nb" });
      const tail = new FleetTail(async () => [ws], startCursor(0));
      expect(shown(await tail.poll())).toEqual(["run.started@1", "stdout:0:a\n"]);
      run.exit("failed");
      // Polls 2-10 do not ask: the run still counts as live, its torn line held.
      expect(await tail.poll()).toEqual([]);
      vi.setSystemTime(t0 + 5_000);
      for (let i = 3; i <= 10; i++) expect(await tail.poll()).toEqual([]);
      // Poll 11 asks: final from now on; drained once it stayed so for more than 3 s.
      vi.setSystemTime(t0 + 6_000);
      expect(await tail.poll()).toEqual([]);
      vi.setSystemTime(t0 + 8_500);
      expect(await tail.poll()).toEqual([]);
      vi.setSystemTime(t0 + 9_000);
      expect(await tail.poll()).toEqual([]);
      vi.setSystemTime(t0 + 9_001);
      const got = await tail.poll();
      expect(shown(got)).toEqual(["stdout:2:b"]);
      expect(got[0]!.cursor).toBe(cursorOf(0, "1.3.0"));
      appendFileSync(run.paths.stdout, "more\n");
      expect(await tail.poll()).toEqual([]);
    });
  });

  it("reads an output larger than one read (1 MiB) whole in one poll; a final torn line only at its end", async () => {
    const ws = workspace();
    const big = "z".repeat(100_000);
    const stdout = `${`${big}\n`.repeat(12)}tail`;
    const run = detached(ws, { history: started(0) + exited(1) + ended(1), stdout });
    run.exit();
    const got = await new FleetTail(async () => [ws], startCursor(0)).poll();
    const out = got
      .filter((x) => x.event.event === "output")
      .map((x) => [x.event.seq, (x.event.data as string).length]);
    expect(out).toEqual([...Array.from({ length: 12 }, (_, i) => [i * 100_001, 100_001]), [1_200_012, 4]]);
    expect(got.at(-1)!.event.data).toBeUndefined();
    expect(shown(got).slice(0, 1)).toEqual(["run.started@1"]);
    expect(shown(got).slice(-2)).toEqual(["run.exited@2", "run.state@3"]);
    expect(got.at(-1)!.cursor).toBe(cursorOf(0, "3.1200016.0"));
  });

  // A line longer than one read (1 MiB) once never came: each poll read the same 1 MiB, found no
  // newline and stopped, and the run's later output stayed behind it for good. It comes in
  // pieces of one read each now (docs/fleet.md).
  it("a line longer than 1 MiB comes in pieces and does not stop the output that follows it", async () => {
    const ws = workspace();
    const long = "y".repeat(1_500_000);
    detached(ws, { stdout: `${long}\nafter\n` });
    const tail = new FleetTail(async () => [ws], startCursor(0));
    const out: [number, number, string][] = [];
    for (let i = 0; i < 3; i++)
      for (const x of await tail.poll())
        if (x.event.event === "output") {
          const data = x.event.data as string;
          out.push([x.event.seq as number, data.length, data.slice(-6)]);
        }
    expect(out).toEqual([
      [0, 1 << 20, "yyyyyy"],
      [1 << 20, 1_500_001 - (1 << 20), "yyyyy\n"],
      [1_500_001, 6, "after\n"],
    ]);
  });
});

describe("FleetTail's bookkeeping over histories", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function workspace(hash = HASH, exists = true): KnownWorkspace {
    const root = mkdtempSync(join(tmpdir(), "ariel-tail-fg-"));
    dirs.push(root);
    mkdirSync(join(root, ".ariel/runs"), { recursive: true });
    return { root, hash, origin: "flag", exists };
  }
  const historyOf = (ws: KnownWorkspace) => runPaths(ws.root, RUN).history;

  it("counts skipped lines once each; an unchanged file gives nothing", async () => {
    const ws = workspace();
    const file = historyOf(ws);
    writeFileSync(file, `${started(1)}not json\n${running(2)}`);
    const tail = new FleetTail(async () => [ws], startCursor(0));
    expect(shown(await tail.poll())).toEqual(["run.started@1", "run.state@3"]);
    expect(tail.skipped).toBe(1);
    expect(await tail.poll()).toEqual([]);
    expect(await tail.poll()).toEqual([]);
    expect(tail.skipped).toBe(1);
    appendFileSync(file, `{"v":1,"type":"event","event":"no.such","runId":"r","ts":"${T(3)}"}\n${exited(4)}`);
    expect(shown(await tail.poll())).toEqual(["run.exited@5"]);
    expect(tail.skipped).toBe(2);
  });

  it("reads a file that grew though its mtime reads the same", async () => {
    const ws = workspace();
    const file = historyOf(ws);
    const whole = running(2);
    writeFileSync(file, started(1) + whole.slice(0, 10));
    const stamp = Math.floor(Date.now() / 1000);
    utimesSync(file, stamp, stamp);
    const tail = new FleetTail(async () => [ws], startCursor(0));
    expect(shown(await tail.poll())).toEqual(["run.started@1"]);
    appendFileSync(file, whole.slice(10));
    utimesSync(file, stamp, stamp);
    expect(shown(await tail.poll())).toEqual(["run.state@2"]);
  });

  it("a history untouched since long before the start is still read for a run the cursor has", async () => {
    const ws = workspace();
    const file = historyOf(ws);
    writeFileSync(file, started(1) + running(2) + exited(3));
    utimesSync(file, ms(0) / 1000, ms(0) / 1000);
    const since = ms(100);
    const got = await new FleetTail(async () => [ws], parseCursor(cursorOf(since, "1"))!).poll();
    expect(shown(got)).toEqual(["run.state@2", "run.exited@3"]);
    expect(got.at(-1)!.cursor).toBe(cursorOf(since, "3"));
    // The same file for a cursor without that run: skipped unread.
    expect(await new FleetTail(async () => [ws], startCursor(since)).poll()).toEqual([]);
  });

  it("a file stamped exactly 2 s before the start is read (the mtime slack); 1 ms more is not", async () => {
    const ws = workspace();
    const file = historyOf(ws);
    const since = ms(100);
    writeFileSync(file, ev("agent.notice", 100, { kind: "info", message: "m" }));
    utimesSync(file, (since - 2_000) / 1000, (since - 2_000) / 1000);
    expect(shown(await new FleetTail(async () => [ws], startCursor(since)).poll())).toEqual([
      "agent.notice@1",
    ]);
    utimesSync(file, (since - 2_001) / 1000, (since - 2_001) / 1000);
    expect(await new FleetTail(async () => [ws], startCursor(since)).poll()).toEqual([]);
  });

  it("leaves out a workspace whose root is gone (exists: false)", async () => {
    const ws = workspace(HASH, false);
    writeFileSync(historyOf(ws), started(1));
    expect(await new FleetTail(async () => [ws], startCursor(0)).poll()).toEqual([]);
  });

  it("asks for the workspaces again only every 2 s", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = ms(300);
    vi.setSystemTime(t0);
    const w1 = workspace("1111111111111111");
    const w2 = workspace("2222222222222222");
    writeFileSync(historyOf(w2), started(1));
    let asked = 0;
    const list: KnownWorkspace[] = [w1];
    const tail = new FleetTail(async () => {
      asked++;
      return [...list];
    }, startCursor(0));
    expect(await tail.poll()).toEqual([]);
    expect(asked).toBe(1);
    list.push(w2);
    vi.setSystemTime(t0 + 1_999);
    expect(await tail.poll()).toEqual([]);
    expect(asked).toBe(1);
    vi.setSystemTime(t0 + 2_000);
    expect(shown(await tail.poll())).toEqual(["run.started@1"]);
    expect(asked).toBe(2);
    vi.setSystemTime(t0 + 3_999);
    await tail.poll();
    expect(asked).toBe(2);
  });

  it("keeps the workspace list's order between events of equal place", async () => {
    // Two roots under one hash (a registry entry and a --workspace flag for the same workspace):
    // one history event and a detached run's output line at the same time and seq.
    const w1 = workspace();
    const w2 = workspace();
    writeFileSync(historyOf(w1), ev("agent.notice", 5, { kind: "info", message: "m" }));
    const p = runPaths(w2.root, RUN);
    mkdirSync(p.dir);
    writeFileSync(
      p.record,
      `${JSON.stringify({
        v: 1,
        type: "run",
        runId: RUN,
        name: null,
        backend: "local",
        workspace: { root: w2.root, hash: HASH },
        source: null,
        cwd: w2.root,
        task: null,
        worktree: null,
        branch: null,
        argv: ["x"],
        createdAt: T(0),
        startedAt: T(0),
        endedAt: null,
        monitor: { pid: process.pid, startTime: null, bootId: null },
        child: { pid: process.pid, pgid: process.pid, startTime: null },
        restart: { policy: "no", max: 0, count: 0 },
        respawnOf: null,
        exit: null,
        timeoutMs: null,
        graceMs: 0,
        onExit: null,
        interactive: false,
        isolate: null,
        kill: null,
        worktreeOutcome: null,
        version: 1,
        fencingToken: 0,
      })}\n`,
    );
    writeFileSync(p.stdout, "\nx\n");
    writeFileSync(p.stderr, "");
    utimesSync(p.stdout, ms(5) / 1000, ms(5) / 1000);
    const got = await new FleetTail(async () => [w1, w2], startCursor(0)).poll();
    expect(shown(got)).toEqual(["stdout:0:\n", "agent.notice@1", "stdout:1:x\n"]);
  });
});

describe("followFleetBatches / followFleet", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function history(): { ws: KnownWorkspace; file: string } {
    const root = mkdtempSync(join(tmpdir(), "ariel-tail-follow-"));
    dirs.push(root);
    mkdirSync(join(root, ".ariel/runs"), { recursive: true });
    const ws: KnownWorkspace = { root, hash: HASH, origin: "flag", exists: true };
    return { ws, file: runPaths(root, RUN).history };
  }

  it("yields each poll's events as a batch, never an empty one, and ends on abort", async () => {
    const { ws, file } = history();
    writeFileSync(file, started(1) + running(2));
    const ac = new AbortController();
    const gen = followFleetBatches(new FleetTail(async () => [ws], startCursor(0)), ac.signal);
    const first = await gen.next();
    expect(shown(first.value as CursoredEvent[])).toEqual(["run.started@1", "run.state@2"]);
    const second = gen.next();
    setTimeout(() => appendFileSync(file, exited(3)), 350);
    const b = await second;
    expect(b.done).toBe(false);
    expect(shown(b.value as CursoredEvent[])).toEqual(["run.exited@3"]);
    ac.abort();
    expect(await gen.next()).toEqual({ done: true, value: undefined });
  });

  it("a batch found by a poll the signal aborted during is not yielded", async () => {
    const { ws, file } = history();
    writeFileSync(file, started(1));
    const ac = new AbortController();
    const tail = new FleetTail(async () => {
      ac.abort();
      return [ws];
    }, startCursor(0));
    expect(await followFleetBatches(tail, ac.signal).next()).toEqual({ done: true, value: undefined });
  });

  it("an aborted signal polls nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    let asked = 0;
    const tail = new FleetTail(async () => {
      asked++;
      return [];
    }, startCursor(0));
    expect(await followFleet(tail, ac.signal).next()).toEqual({ done: true, value: undefined });
    expect(asked).toBe(0);
  });

  it("followFleet yields one event at a time, with its cursor", async () => {
    const { ws, file } = history();
    writeFileSync(file, started(1) + running(2));
    const ac = new AbortController();
    const gen = followFleet(new FleetTail(async () => [ws], startCursor(0)), ac.signal);
    const a = await gen.next();
    const b = await gen.next();
    expect(
      [a.value, b.value].map((x) => [show((x as CursoredEvent).event), (x as CursoredEvent).cursor]),
    ).toEqual([
      ["run.started@1", cursorOf(0, "1")],
      ["run.state@2", cursorOf(0, "2")],
    ]);
    ac.abort();
    expect((await gen.next()).done).toBe(true);
  });
});
