/**
 * Supervision of a run's child (supervise.ts), by a monitor served in this process: the whole
 * life of a run (history events in order, run.json and exit.json written whole), an end by a
 * signal, --timeout (SIGTERM, then SIGKILL after the grace), --restart on-failure (attempts,
 * back-off, the count kept), a kill while backing off, and a new run whose record cannot be
 * written (its child killed, the run refused).
 */
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { tempDir } from "../../_fixture.ts";
import { childrenOf } from "../../runs/_fixture.ts";
import { createRun, updateRun } from "../../runs/store.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import {
  ended,
  eventNames,
  history,
  json,
  type LiveMonitor,
  newRunId,
  pinned,
  plannedRun,
  runToEnd as runToEndIn,
  startRuns,
  until,
  useServedMonitor,
} from "./_monitor_fixture.ts";

let l: LiveMonitor;
const logged = captureMonitorLog();
useServedMonitor(
  () => tempDir("ariel-supervise-"),
  (m) => {
    l = m;
  },
);

/** Start one run of `over` and wait for its end; its id and the start's result. */
const runToEnd = (over: Partial<PlannedRun>) => runToEndIn(l, over);

const sh = (script: string) => ["sh", "-c", script];
const ev = (runId: string, event: string, fields: Record<string, unknown>) => ({
  v: 1,
  type: "event",
  event,
  runId,
  ts: "<time>",
  source: null,
  ...fields,
});

describe("launch: a run's whole life", () => {
  // The child lives a moment: one that is gone (a zombie) before its start time is read is
  // recorded without it (startTime null).
  it("its events in order, run.json with its monitor, child and end, exit.json", async () => {
    const { runId, result } = await runToEnd({ argv: sh("echo out; echo err >&2; sleep 0.3; exit 3") });
    const rec = json(runPaths(l.root, runId).record);
    expect(result).toEqual({ runId, ok: true, child: rec.child });
    expect(pinned(history(l.root, runId))).toEqual([
      ev(runId, "run.started", {
        argv: sh("echo out; echo err >&2; sleep 0.3; exit 3"),
        workspace: { root: l.root, hash: l.hash },
        targets: [null],
        mode: "detached",
        name: null,
        group: null,
      }),
      ev(runId, "process.started", { pid: "<pid>", pgid: "<pid>", attempt: 1 }),
      ev(runId, "process.exited", { code: 3, signal: null, status: 3 }),
      ev(runId, "run.finished", { state: "failed", status: 3, code: 3, signal: null }),
    ]);
    const child = rec.child as { pid: number; pgid: number };
    expect(history(l.root, runId)[1]).toMatchObject({ pid: child.pid, pgid: child.pid });
    expect(pinned(rec)).toEqual(
      pinned({
        ...plannedRun(l, runId, { argv: sh("echo out; echo err >&2; sleep 0.3; exit 3") }),
        startedAt: "<time>",
        endedAt: "<time>",
        monitor: l.m.me,
        child: { pid: 1, pgid: 1, startTime: "1" },
        exit: { code: 3, signal: null, status: 3, endedAt: "<time>", state: "failed", reason: null },
        version: 2,
        fencingToken: 0,
      }),
    );
    expect(pinned(json(runPaths(l.root, runId).exit))).toEqual({
      v: 1,
      type: "exit",
      runId,
      code: 3,
      signal: null,
      status: 3,
      endedAt: "<time>",
      state: "failed",
      reason: null,
    });
    expect(rec.endedAt).toBe(json(runPaths(l.root, runId).exit).endedAt);
    expect(logged).toEqual([]); // nothing failed
  });

  it.each([
    ["exit 0", sh("exit 0"), { code: 0, signal: null, status: 0 }, "exited"],
    ["a signal", sh("kill -TERM $$"), { code: null, signal: "SIGTERM", status: 143 }, "failed"],
  ])("ended by %s: process.exited and the end as it was", async (_name, argv, how, state) => {
    const { runId } = await runToEnd({ argv });
    expect(pinned(history(l.root, runId).slice(2))).toEqual([
      ev(runId, "process.exited", how),
      ev(runId, "run.finished", { state, ...how }),
    ]);
    expect(pinned(json(runPaths(l.root, runId).exit))).toMatchObject({ ...how, state, reason: null });
  });
});

describe("launch: --timeout", () => {
  it("past its time: the kill recorded (timeout), SIGTERM to the group, the run killed", async () => {
    const { runId } = await runToEnd({ argv: ["sleep", "5"], timeoutMs: 100, graceMs: 5000 });
    const rec = json(runPaths(l.root, runId).record);
    expect(pinned(rec.kill)).toEqual({ requestedAt: "<time>", signal: "SIGTERM", reason: "timeout" });
    expect(pinned(json(runPaths(l.root, runId).exit))).toMatchObject({
      code: null,
      signal: "SIGTERM",
      status: 143,
      state: "killed",
      reason: "timeout",
    });
  });

  it("a child that ignores SIGTERM: SIGKILL after the grace", async () => {
    const { runId } = await runToEnd({
      argv: sh("trap '' TERM; echo up; while :; do :; done"),
      timeoutMs: 300,
      graceMs: 200,
    });
    expect(pinned(json(runPaths(l.root, runId).exit))).toMatchObject({
      signal: "SIGKILL",
      status: 137,
      state: "killed",
      reason: "timeout",
    });
  });

  it("a child that ended before its time: no kill recorded, no timer left", async () => {
    const { runId } = await runToEnd({ argv: sh("exit 2"), timeoutMs: 60_000 });
    expect(json(runPaths(l.root, runId).record).kill).toBe(null);
    expect(json(runPaths(l.root, runId).exit).state).toBe("failed");
  });
});

describe("launch: --restart on-failure", () => {
  it("a failing child restarted up to its max: each attempt in the history, the count in run.json", async () => {
    const { runId } = await runToEnd({
      argv: sh("exit 7"),
      restart: { policy: "on-failure", max: 2, count: 0 },
    });
    expect(eventNames(l.root, runId)).toEqual([
      "run.started",
      "process.started",
      "process.exited",
      "process.started",
      "process.exited",
      "process.started",
      "process.exited",
      "run.finished",
    ]);
    const attempts = history(l.root, runId)
      .filter((e) => e.event === "process.started")
      .map((e) => e.attempt);
    expect(attempts).toEqual([1, 2, 3]);
    const rec = json(runPaths(l.root, runId).record);
    expect([rec.restart, (rec.exit as { status: number }).status]).toEqual([
      { policy: "on-failure", max: 2, count: 2 },
      7,
    ]);
  });

  it("a child that succeeds is not restarted", async () => {
    const { runId } = await runToEnd({
      argv: sh("exit 0"),
      restart: { policy: "on-failure", max: 2, count: 0 },
    });
    expect(eventNames(l.root, runId)).toEqual([
      "run.started",
      "process.started",
      "process.exited",
      "run.finished",
    ]);
  });
});

describe("launch: --restart, each attempt", () => {
  // run.json names the child now running (the restart's, not the first's), its startedAt stays
  // the first start's, and each restart waits its back-off (250 ms, then 500 ms) first.
  it("run.json's child is the new one, startedAt the first, each back-off waited", async () => {
    const runId = newRunId();
    const argv = sh("sleep 0.3; exit 7");
    await startRuns(l, [plannedRun(l, runId, { argv, restart: { policy: "on-failure", max: 2, count: 0 } })]);
    const started = () => history(l.root, runId).filter((e) => e.event === "process.started");
    expect(await until(() => started().length === 1)).toBe(true);
    const startedAt = json(runPaths(l.root, runId).record).startedAt;
    expect(await until(() => started().length === 2)).toBe(true);
    const during = json(runPaths(l.root, runId).record);
    expect(await ended(l, runId)).toBe(true);
    expect([(during.child as { pid: number }).pid, during.startedAt, during.restart]).toEqual([
      started()[1]?.pid,
      startedAt,
      { policy: "on-failure", max: 2, count: 1 },
    ]);
    const at = (e: Record<string, unknown>) => Date.parse(String(e.ts));
    const h = history(l.root, runId);
    const gaps = h.flatMap((e, i) =>
      e.event === "process.exited" && h[i + 1]?.event === "process.started" ? [at(h[i + 1]!) - at(e)] : [],
    );
    expect([gaps.length, gaps[0]! >= 240, gaps[1]! >= 490]).toEqual([2, true, true]);
  });

  // A kill recorded while the child runs: its end (143) is the kill's, not a failure to restart.
  it("killed while running: not restarted, the count left at 0, ended killed", async () => {
    const runId = newRunId();
    const [r] = await startRuns(l, [
      plannedRun(l, runId, { argv: ["sleep", "5"], restart: { policy: "on-failure", max: 5, count: 0 } }),
    ]);
    await updateRun(l.root, runId, () => ({
      kill: { requestedAt: new Date().toISOString(), signal: "SIGTERM", reason: "kill" },
    }));
    process.kill(-(r as { child: { pgid: number } }).child.pgid, "SIGTERM");
    expect(await ended(l, runId)).toBe(true);
    const rec = json(runPaths(l.root, runId).record);
    expect([eventNames(l.root, runId), rec.restart, pinned(rec.exit)]).toEqual([
      ["run.started", "process.started", "process.exited", "run.finished"],
      { policy: "on-failure", max: 5, count: 0 },
      { code: null, signal: "SIGTERM", status: 143, endedAt: "<time>", state: "killed", reason: "kill" },
    ]);
  });
});

describe("launch: --restart, killed while backing off", () => {
  it("killed while backing off: never restarted, ended killed with its last status", async () => {
    const runId = newRunId();
    await startRuns(l, [
      plannedRun(l, runId, { argv: sh("exit 9"), restart: { policy: "on-failure", max: 5, count: 0 } }),
    ]);
    expect(await until(() => eventNames(l.root, runId).includes("process.exited"))).toBe(true);
    expect(await until(() => json(runPaths(l.root, runId).record).child === null)).toBe(true);
    await updateRun(l.root, runId, () => ({
      kill: { requestedAt: new Date().toISOString(), signal: "SIGTERM", reason: "kill" },
    }));
    expect(await ended(l, runId)).toBe(true);
    expect(eventNames(l.root, runId)).toEqual([
      "run.started",
      "process.started",
      "process.exited",
      "run.finished",
    ]);
    expect(pinned(json(runPaths(l.root, runId).exit))).toMatchObject({
      code: null,
      signal: null,
      status: 9,
      state: "killed",
      reason: "kill",
    });
  });
});

describe("launch: a new run whose record cannot be written", () => {
  it("its run.json already there: the child killed at once, the run refused with the store's error", async () => {
    const runId = newRunId();
    const run = plannedRun(l, runId, { argv: ["sleep", "7"] });
    mkdirSync(runPaths(l.root, runId).dir, { recursive: true });
    await createRun(l.root, run);
    const [result] = await startRuns(l, [run]);
    expect(result).toEqual({
      runId,
      ok: false,
      status: 125,
      code: "ERR_CONFLICT",
      message: `${runPaths(l.root, runId).record}: version is 1, expected 0`,
    });
    expect(l.m.active.has(runId)).toBe(false);
    expect(eventNames(l.root, runId)).toEqual(["run.started"]);
    // not left to run unseen: its group got SIGKILL (reaped, so no child of ours is left)
    expect(await until(() => childrenOf(process.pid, "sleep").length === 0)).toBe(true);
    expect(json(runPaths(l.root, runId).record).child).toBe(null);
  });
});
