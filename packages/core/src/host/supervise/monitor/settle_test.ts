/**
 * The end of a run (settle.ts), by a monitor served in this process: an isolated run's worktree
 * settled by its --on-exit policy (a clean one removed, one with work kept, `keep` kept) with its
 * `worktree.*` event before `run.finished` and its outcome in run.json; the --on-exit hook's end
 * in `run.finished`; and exit.json written once (a final state already there wins).
 */
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { taskRecordPath } from "../../../state_paths.ts";
import { GIT_TEST_ENV, initRepo } from "../../_fixture.ts";
import { hostPorts } from "../../ports.ts";
import { writeExitOnce } from "../../runs/store.ts";
import { worktreeIsolation } from "../../spawn/isolation.ts";
import { createTasks, releaseTasks } from "../../spawn/tasks.ts";
import { makeRoot } from "../../worktree/_fixture.ts";
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
  startRuns,
  until,
  useServedMonitor,
  useStateHome,
} from "./_monitor_fixture.ts";

/** The env the monitor's own git and state reads see (this process's): the tests' own. */
useStateHome("ariel-settle-home-", { ...GIT_TEST_ENV, ARIEL_OWNER: "tester" });

let l: LiveMonitor;
const logged = captureMonitorLog();
useServedMonitor(
  () => realpathSync(makeRoot(["api"])),
  (m) => {
    l = m;
  },
);

/** Task `task` made over source api (its worktree and branch), its lease let go. */
async function task(taskId: string, onExit: "remove" | "keep") {
  const ports = hostPorts({ env: process.env, cwd: l.root });
  const made = await createTasks(
    worktreeIsolation,
    ports,
    l.root,
    [{ name: "api", path: join(l.root, "api"), checkout: true }],
    { span: false, onExit, taskId },
    { dryRun: false },
  );
  await releaseTasks(made);
  const worktree = join(l.root, ".ariel/worktrees", taskId, "api");
  const branch = `ariel/${taskId}`;
  const fields: Partial<PlannedRun> = {
    source: "api",
    cwd: worktree,
    task: taskId,
    worktree,
    branch,
    legs: [{ source: "api", worktree, branch }],
    isolate: { onExit, created: true },
  };
  return { worktree, branch, fields };
}

async function runToEnd(over: Partial<PlannedRun>) {
  const runId = newRunId();
  const [result] = await startRuns(l, [plannedRun(l, runId, over)]);
  expect(result).toMatchObject({ runId, ok: true });
  expect(await ended(l, runId)).toBe(true);
  return runId;
}

describe("afterEnd: an isolated run's worktree", () => {
  it("clean, --on-exit remove: removed; worktree.removed before run.finished; the outcome in run.json", async () => {
    const t = await task("clean", "remove");
    const runId = await runToEnd({ ...t.fields, argv: ["true"] });
    expect(eventNames(l.root, runId)).toEqual([
      "run.started",
      "process.started",
      "process.exited",
      "worktree.removed",
      "run.finished",
    ]);
    expect(pinned(history(l.root, runId)[3])).toEqual({
      v: 1,
      type: "event",
      event: "worktree.removed",
      runId,
      ts: "<time>",
      source: "api",
      task: "clean",
      worktree: t.worktree,
      branch: t.branch,
    });
    expect(json(runPaths(l.root, runId).record).worktreeOutcome).toEqual({
      outcome: "removed",
      reason: null,
    });
    expect(existsSync(t.worktree)).toBe(false);
  });

  it("with work in it, --on-exit remove: kept, with why", async () => {
    const t = await task("dirty", "remove");
    const runId = await runToEnd({ ...t.fields, argv: ["sh", "-c", "echo work > new.txt"] });
    expect(eventNames(l.root, runId).slice(3)).toEqual(["worktree.kept", "run.finished"]);
    expect(pinned(history(l.root, runId)[3])).toEqual({
      v: 1,
      type: "event",
      event: "worktree.kept",
      runId,
      ts: "<time>",
      source: "api",
      task: "dirty",
      worktree: t.worktree,
      branch: t.branch,
      reason: "dirty",
      code: "ERR_DIRTY",
      message: `${t.worktree} has uncommitted changes: new.txt`,
    });
    expect(json(runPaths(l.root, runId).record).worktreeOutcome).toEqual({
      outcome: "kept",
      reason: "dirty",
    });
    expect(existsSync(join(t.worktree, "new.txt"))).toBe(true);
  });
});

describe("afterEnd: an isolated run's legs", () => {
  // A record written before runs named their legs: its one leg is its source, worktree and branch.
  it("a record without legs: its one leg from its source, worktree and branch", async () => {
    const t = await task("nolegs", "remove");
    const { legs: _legs, ...fields } = t.fields;
    const runId = await runToEnd({ ...fields, argv: ["true"] });
    expect(pinned(history(l.root, runId)[3])).toMatchObject({
      event: "worktree.removed",
      source: "api",
      task: "nolegs",
      worktree: t.worktree,
      branch: t.branch,
    });
    expect(existsSync(t.worktree)).toBe(false);
  });

  // --span: every leg on its own (a clean one removed, one with work kept), one event each with
  // its own worktree and branch, and each leg's outcome in run.json.
  it("--span over api and web: api removed, web (with work) kept, each said", async () => {
    initRepo(join(l.root, "web"));
    const ports = hostPorts({ env: process.env, cwd: l.root });
    const sources = ["api", "web"].map((name) => ({ name, path: join(l.root, name), checkout: true }));
    await releaseTasks(
      await createTasks(
        worktreeIsolation,
        ports,
        l.root,
        sources,
        { span: true, onExit: "remove", taskId: "both" },
        {
          dryRun: false,
        },
      ),
    );
    const wt = (s: string) => join(l.root, ".ariel/worktrees/both", s);
    const legs = ["api", "web"].map((source) => ({ source, worktree: wt(source), branch: "ariel/both" }));
    const runId = await runToEnd({
      source: null,
      cwd: join(l.root, ".ariel/worktrees/both"),
      task: "both",
      worktree: null,
      branch: null,
      legs,
      isolate: { onExit: "remove", created: true },
      argv: ["sh", "-c", "echo work > web/new.txt"],
    });
    const events = history(l.root, runId).slice(3, 5);
    expect(events.map((e) => [e.event, e.source, e.worktree, e.branch, e.reason])).toEqual([
      ["worktree.removed", "api", wt("api"), "ariel/both", undefined],
      ["worktree.kept", "web", wt("web"), "ariel/both", "dirty"],
    ]);
    expect(json(runPaths(l.root, runId).record).worktreeOutcome).toEqual({
      outcome: "kept",
      reason: "dirty",
      legs: [
        { source: "api", outcome: "removed", reason: null },
        { source: "web", outcome: "kept", reason: "dirty" },
      ],
    });
    expect([existsSync(wt("api")), existsSync(join(wt("web"), "new.txt"))]).toEqual([false, true]);
  });

  // A leg the driver cannot settle (an error, not a refusal): kept, the error's code its reason,
  // said in monitor.log; the run still finishes.
  it("a task record damaged while it runs: kept with the error's code, logged, run.finished", async () => {
    const t = await task("broken", "remove");
    const runId = newRunId();
    await startRuns(l, [plannedRun(l, runId, { ...t.fields, argv: ["sleep", "0.3"] })]);
    writeFileSync(taskRecordPath(l.root, "broken"), "{bad");
    expect(await ended(l, runId)).toBe(true);
    expect(eventNames(l.root, runId).slice(3)).toEqual(["worktree.kept", "run.finished"]);
    expect(history(l.root, runId)[3]).toMatchObject({ source: "api", reason: "ERR_RECORD_CORRUPT" });
    expect(json(runPaths(l.root, runId).record).worktreeOutcome).toEqual({
      outcome: "kept",
      reason: "ERR_RECORD_CORRUPT",
    });
    expect(logged.join("")).toContain(`run ${runId}: worktree settle failed [ERR_RECORD_CORRUPT]`);
    expect(existsSync(t.worktree)).toBe(true);
  });
});

describe("afterEnd: an isolated run's worktree kept", () => {
  it("--on-exit keep: kept as it is, clean or not", async () => {
    const t = await task("keep", "keep");
    const runId = await runToEnd({ ...t.fields, argv: ["true"] });
    expect(eventNames(l.root, runId).slice(3)).toEqual(["worktree.kept", "run.finished"]);
    expect(existsSync(t.worktree)).toBe(true);
    expect(json(runPaths(l.root, runId).record).worktreeOutcome).toEqual({ outcome: "kept", reason: "keep" });
  });

  it("a task that is not isolated (no task): no worktree event, no outcome", async () => {
    const runId = await runToEnd({ argv: ["true"], isolate: { onExit: "remove", created: true } });
    expect(eventNames(l.root, runId)).toEqual([
      "run.started",
      "process.started",
      "process.exited",
      "run.finished",
    ]);
    expect(json(runPaths(l.root, runId).record).worktreeOutcome).toBe(null);
  });
});

describe("afterEnd: the --on-exit hook and run.finished", () => {
  it("the hook's end in run.finished", async () => {
    const runId = await runToEnd({
      argv: ["sh", "-c", "exit 2"],
      onExit: ["sh", "-c", "exit 4"],
      onExitTimeoutMs: 5000,
    });
    expect(pinned(history(l.root, runId).at(-1))).toEqual({
      v: 1,
      type: "event",
      event: "run.finished",
      runId,
      ts: "<time>",
      source: null,
      state: "failed",
      status: 2,
      code: 2,
      signal: null,
      onExit: { code: 4, signal: null, timedOut: false },
    });
  });
});

describe("recordEnd: exit.json written once", () => {
  it("a final state already written wins: run.json and run.finished tell it", async () => {
    const runId = newRunId();
    const [result] = await startRuns(l, [plannedRun(l, runId, { argv: ["sleep", "5"] })]);
    const theirs = {
      v: 1 as const,
      type: "exit" as const,
      runId,
      code: null,
      signal: "SIGKILL",
      status: 137,
      endedAt: "2026-12-06T00:00:09.000Z",
      state: "killed" as const,
      reason: "lost",
    };
    await writeExitOnce(l.root, theirs);
    process.kill(-(result as { child: { pid: number } }).child.pid, "SIGTERM");
    expect(await ended(l, runId)).toBe(true);
    expect(json(runPaths(l.root, runId).exit)).toEqual(theirs);
    const { v: _v, type: _t, runId: _r, ...info } = theirs;
    const rec = json(runPaths(l.root, runId).record);
    expect([rec.exit, rec.endedAt]).toEqual([info, theirs.endedAt]);
    expect(history(l.root, runId).at(-1)).toMatchObject({
      state: "killed",
      status: 137,
      code: null,
      signal: "SIGKILL",
    });
    expect(await until(() => logged.length === 0)).toBe(true);
  });

  it("exit.json that cannot be written: said in monitor.log, the end goes on with the monitor's own", async () => {
    const runId = newRunId();
    const [result] = await startRuns(l, [plannedRun(l, runId, { argv: ["sleep", "5"] })]);
    mkdirSync(runPaths(l.root, runId).exit); // read as no exit record, written over: EISDIR
    process.kill(-(result as { child: { pid: number } }).child.pid, "SIGTERM");
    expect(await ended(l, runId)).toBe(true);
    expect(history(l.root, runId).at(-1)).toMatchObject({
      event: "run.finished",
      status: 143,
      signal: "SIGTERM",
    });
    expect(logged.map((line) => line.replace(/^\S+ monitor \d+: /, ""))).toEqual([
      `run ${runId}: exit.json failed [EISDIR] (EISDIR: illegal operation on a directory, read)\n`,
    ]);
    expect(pinned(json(runPaths(l.root, runId).record).exit)).toEqual({
      code: null,
      signal: "SIGTERM",
      status: 143,
      endedAt: "<time>",
      state: "failed",
      reason: null,
    });
  });
});
