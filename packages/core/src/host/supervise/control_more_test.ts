import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import type { RunBackend, StartRequest } from "../../runs/backend.ts";
import { type PlannedRun, respawnPlan } from "../../runs/plan.ts";
import type { RunRecord } from "../../runs/record.ts";
import { GIT_TEST_ENV, removeDir, tempDir } from "../_fixture.ts";
import { hostPorts } from "../ports.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { appendHistory, createRun, readRunSync, updateRun, writeExitOnce } from "../runs/store.ts";
import {
  ENDED_AT,
  exitOf,
  finished as finishedIn,
  recorded as recordedIn,
  running as runningIn,
  useRunsWorkspace,
} from "./_control_fixture.ts";
import { localBackend } from "./backends/local/backend.ts";
import { removeCorruptRun, removeRun, respawnRun, runLabel } from "./control.ts";

const A = "20261202T110943Z-aaaaaa";
const T0 = Date.UTC(2026, 11, 2, 11, 9, 43);
/** The id every respawn here plans: the fixed clock, random bytes all 1. */
const NEW = "20261202T110943Z-111111";

const w = useRunsWorkspace("ariel-control-more-");
let root = "";
let hash = "";
let home = "";
let calls: unknown[][] = [];

beforeEach(() => {
  ({ root, hash } = w);
  home = tempDir("ariel-control-home-");
  calls = [];
});

afterEach(() => removeDir(home));

const ports = (): Ports =>
  hostPorts({
    env: {
      PATH: process.env.PATH,
      ...GIT_TEST_ENV,
      ARIEL_STATE_HOME: home,
      ARIEL_OWNER: "tester",
      HOME: home,
    },
    cwd: root,
    clock: { now: () => T0 },
    random: { bytes: (k: number) => new Uint8Array(k).fill(1) },
  });

type Started = { ok: true } | { ok: false; status: number };

/**
 * The real local backend: its signals recorded in `calls`, its start (when `start` says how it
 * ends) recorded too and the run's record written as the monitor would.
 */
function backend(o: { start?: Started; prepare?: RunBackend["prepareRespawn"] } = {}): RunBackend {
  const local = localBackend(root, hash);
  return {
    ...local,
    signal: async (view, signal) => {
      calls.push(["signal", view.record.runId, signal]);
      return local.signal(view, signal);
    },
    start: async (specs: readonly StartRequest[]) => {
      // With what the original's endedAt was then (a respawn starts once it is settled).
      const was = specs.map((s) =>
        s.record.respawnOf ? readRunSync(root, s.record.respawnOf).endedAt : null,
      );
      calls.push(["start", specs, was]);
      for (const s of specs) await createRun(root, s.record);
      return specs.map((s) =>
        o.start?.ok === false
          ? { runId: s.runId, ok: false as const, status: o.start.status, code: "ERR_X", message: "no" }
          : { runId: s.runId, ok: true as const, child: { pid: 1, pgid: 1, startTime: null } },
      );
    },
    ...(o.prepare ? { prepareRespawn: o.prepare } : {}),
  };
}

const recorded = (runId: string, more: Partial<RunRecord> = {}) => recordedIn(w, runId, more);

/** A run that ended and was settled (its monitor gone), or `busy`: its monitor (this process) still settling it. */
async function ended(
  runId: string,
  o: { busy?: boolean; more?: Partial<RunRecord> } = {},
): Promise<RunRecord> {
  const rec = await recorded(runId, {
    endedAt: ENDED_AT,
    ...(o.busy ? { monitor: selfMonitorRef() } : {}),
    ...o.more,
  });
  await writeExitOnce(root, exitOf(runId, 0, null, "exited"));
  return rec;
}

const finished = (runId: string) => finishedIn(w, runId);

/** A running run (this process its monitor, `sleep 30` its child); `onEnd` runs when the monitor records its end. */
const running = (runId: string, more: Partial<RunRecord> = {}, onEnd: () => unknown = () => {}) =>
  runningIn(w, runId, { more, onEnd });

const refusal = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as ArielError).toRecord();
const there = (runId: string) => [
  existsSync(join(root, ".ariel/runs", runId)),
  existsSync(join(root, ".ariel/runs", `${runId}.ndjson`)),
];
const rmOpts = { force: false, graceMs: 5000, dryRun: false };

describe("runLabel: a run as messages name it", () => {
  it.each([
    ["named", { runId: A, name: "fix" }, `fix (${A})`],
    ["no name", { runId: A, name: null }, A],
    ["an empty name", { runId: A, name: "" }, A],
  ])("%s", (_name, rec, label) => {
    expect(runLabel(rec)).toBe(label);
  });
});

describeRemoveCorrupt();
describeRemoveRefused();
describeRemove();
describeRespawnChecks();
describeRespawnStarts();

function describeRemoveCorrupt(): void {
  describe("removeCorruptRun: a run whose record cannot be read", () => {
    // Removed under the run lock (or, dry, would be); one readable again is left to the caller;
    // any other failure to read it is thrown as it is.
    const damage = () => {
      mkdirSync(join(root, ".ariel/runs", A));
      writeFileSync(join(root, ".ariel/runs", A, "run.json"), "{");
      writeFileSync(join(root, ".ariel/runs", `${A}.ndjson`), "{}\n");
    };

    it("damaged: removed, its directory and history gone", async () => {
      damage();
      expect(await removeCorruptRun(root, backend(), A, false)).toBe("removed");
      expect(there(A)).toEqual([false, false]);
    });

    it("damaged, dry run: would be removed, nothing goes", async () => {
      damage();
      expect(await removeCorruptRun(root, backend(), A, true)).toBe("removed");
      expect(there(A)).toEqual([true, true]);
    });

    it("readable again: readable, nothing removed", async () => {
      await ended(A);
      expect(await removeCorruptRun(root, backend(), A, false)).toBe("readable");
      expect(there(A)[0]).toBe(true);
    });

    it("its directory without run.json: ERR_RUN_NOT_FOUND as read, nothing removed", async () => {
      mkdirSync(join(root, ".ariel/runs", A));
      const e = await refusal(removeCorruptRun(root, backend(), A, false));
      expect([e.code, e.message]).toEqual(["ERR_RUN_NOT_FOUND", `no run "${A}"`]);
      expect(there(A)[0]).toBe(true);
    });

    it("run.json not a file (not one of ours to judge): its error, nothing removed", async () => {
      mkdirSync(join(root, ".ariel/runs", A, "run.json"), { recursive: true });
      const e = (await removeCorruptRun(root, backend(), A, false).catch(
        (x: unknown) => x,
      )) as NodeJS.ErrnoException;
      expect(e.code).toBe("EISDIR");
      expect(there(A)[0]).toBe(true);
    });

    it("no such run: ERR_RUN_NOT_FOUND (removed meanwhile)", async () => {
      const e = await refusal(removeCorruptRun(root, backend(), A, true));
      expect([e.code, e.message]).toEqual(["ERR_RUN_NOT_FOUND", `no run "${A}" (removed meanwhile)`]);
    });
  });
}

function describeRemoveRefused(): void {
  describe("removeRun: a run at work is refused without --force (ERR_RUN_LIVE, 3)", () => {
    // Its hint names it as the user did (shell-quoted); a run whose monitor still settles it
    // says so, and how to wait.
    it.each([
      ["named, by its id", "agent", undefined, `agent (${A})`, A],
      ["named, by a ref that needs quoting", "agent", "my agent", `agent (${A})`, "'my agent'"],
      ["no name", null, undefined, A, A],
    ])("running, %s", async (_n, name, ref, named, arg) => {
      await running(A, { name });
      expect(await refusal(removeRun(root, backend(), A, { ...rmOpts, ...(ref ? { ref } : {}) }))).toEqual({
        v: 1,
        type: "error",
        code: "ERR_RUN_LIVE",
        message: `run ${named} is running; nothing was removed`,
        hint: `stop it first (ariel-runs kill ${arg}), or kill and remove it at once: ariel-runs rm --force ${arg}`,
        exit: 3,
        runId: A,
        state: "running",
      });
      expect([there(A)[0], calls]).toEqual([true, []]);
    });

    it("ended, its monitor still settling it: refused, saying so", async () => {
      await ended(A, { busy: true });
      expect(await refusal(removeRun(root, backend(), A, { ...rmOpts, ref: "fix" }))).toEqual({
        v: 1,
        type: "error",
        code: "ERR_RUN_LIVE",
        message: `run agent (${A}) is exited but its monitor is still settling it; nothing was removed`,
        hint: "wait for it (ariel-runs wait fix), then rm again, or pass --force to wait here (ariel-runs rm --force fix)",
        exit: 3,
        runId: A,
        state: "exited",
      });
      expect(there(A)).toEqual([true, false]);
    });

    it("lost, its group still running: refused as lost", async () => {
      await running(A, { monitor: null });
      const e = await refusal(removeRun(root, backend(), A, rmOpts));
      expect([e.code, e.message, e.state]).toEqual([
        "ERR_RUN_LIVE",
        `run agent (${A}) is lost; nothing was removed`,
        "lost",
      ]);
    });
  });
}

function describeRemove(): void {
  describe("removeRun: what goes, and what --force does first", () => {
    it("ended and settled: its view; its directory and history gone", async () => {
      const rec = await ended(A);
      await finished(A);
      expect(await removeRun(root, backend(), A, rmOpts)).toEqual({
        record: rec,
        exit: exitOf(A, 0, null, "exited"),
        state: "exited",
      });
      expect(there(A)).toEqual([false, false]);
    });

    it("lost with nothing left: removed", async () => {
      await recorded(A);
      expect((await removeRun(root, backend(), A, rmOpts)).state).toBe("lost");
      expect(there(A)[0]).toBe(false);
    });

    it.each([
      ["ended", false],
      ["running, --force", true],
    ])("dry run, %s: its view, nothing killed or removed", async (_n, live) => {
      const rec = live ? (await running(A)).rec : await ended(A);
      const v = await removeRun(root, backend(), A, { ...rmOpts, force: live, dryRun: true });
      expect([v.record, calls, there(A)[0], readRunSync(root, A)]).toEqual([rec, [], true, rec]);
    });

    it("running, --force: TERM to its group, its end waited for, then removed; its last view", async () => {
      const { rec } = await running(A);
      const v = await removeRun(root, backend(), A, { ...rmOpts, force: true });
      expect([v.state, v.exit, v.record.endedAt, v.record.kill?.reason]).toEqual([
        "killed",
        exitOf(A, 143, "SIGTERM", "killed"),
        ENDED_AT,
        "kill",
      ]);
      expect([v.record.runId, calls, there(A)]).toEqual([
        rec.runId,
        [["signal", A, "SIGTERM"]],
        [false, false],
      ]);
    });

    it("ended, its monitor still settling, --force: waited for, then removed; nothing signalled", async () => {
      await ended(A, { busy: true });
      setTimeout(() => void finished(A), 200);
      const v = await removeRun(root, backend(), A, { ...rmOpts, force: true });
      expect([v.state, calls, there(A)]).toEqual(["exited", [], [false, false]]);
    });

    it("removed by another while --force waits: done, its last view; nothing signalled", async () => {
      await ended(A, { busy: true });
      setTimeout(() => rmSync(join(root, ".ariel/runs", A), { recursive: true, force: true }), 150);
      const v = await removeRun(root, backend(), A, { ...rmOpts, force: true });
      expect([v.record.runId, v.state, calls, there(A)]).toEqual([A, "exited", [], [false, false]]);
    });
  });
}

/** What respawnPlan makes of `rec` here (the fixed clock and random bytes). */
const plannedOf = (rec: RunRecord, more: Partial<PlannedRun> = {}) => ({
  ...respawnPlan(rec, { runId: NEW, createdAt: "2026-12-02T11:09:43.000Z" }),
  ...more,
});

function describeRespawnChecks(): void {
  describe("respawnRun --dry-run: the plan, and --resume", () => {
    it("an ended run: its plan under the new id, linked to it; nothing started or killed", async () => {
      const rec = await ended(A, { more: { argv: ["make", "test"], source: "api" } });
      const old = await localBackend(root, hash).get(A);
      const r = await respawnRun(ports(), root, backend(), A, { graceMs: 5000, dryRun: true });
      expect(r).toStrictEqual({ old, planned: plannedOf(rec), started: null, status: 0 });
      expect([r.planned.runId, r.planned.respawnOf, r.planned.argv]).toEqual([NEW, A, ["make", "test"]]);
      expect([calls, there(NEW)[0]]).toEqual([[], false]);
    });

    it.each([
      [
        "a session reported: resumed by id",
        ["agent.session", "abc-123"],
        ["claude", "-p", "go", "--resume", "abc-123"],
        "abc-123",
      ],
      ["no session reported: the latest conversation", null, ["claude", "-p", "go", "--continue"], null],
    ])("--resume, %s", async (_n, event, argv, session) => {
      const rec = await ended(A, { more: { argv: ["claude", "-p", "go"] } });
      if (event) {
        const ts = "2026-12-02T11:09:50.000Z";
        await appendHistory(root, A, {
          v: 1,
          type: "event",
          event: event[0],
          runId: A,
          ts,
          source: "api",
          id: event[1],
        });
      }
      const r = await respawnRun(ports(), root, backend(), A, { graceMs: 0, dryRun: true, resume: true });
      expect([r.planned, r.session, r.started]).toEqual([plannedOf(rec, { argv }), session, null]);
    });

    it("--resume of a preset with no resume form: ERR_USAGE, naming it", async () => {
      await ended(A, { more: { argv: ["make"] } });
      const e = await refusal(
        respawnRun(ports(), root, backend(), A, { graceMs: 0, dryRun: true, resume: true }),
      );
      expect(e).toEqual({
        v: 1,
        type: "error",
        code: "ERR_USAGE",
        message: `run agent (${A}): its agent preset (generic) has no resume form`,
        hint: "respawn without --resume starts it afresh; presets with one: claude, codex, aider",
        exit: 64,
        runId: A,
        agent: "generic",
      });
    });
  });

  describe("respawnRun: a local run whose directory is gone", () => {
    // ERR_SOURCE_NOT_FOUND, the run left as it is; a dry run of a worktree's run says nothing
    // (its worktree would be restored).
    const gone = () => join(root, "gone");

    it.each([
      ["a checkout's run", null, "check the source, or start a new run with ariel-spawn --detach"],
      [
        "a worktree's run",
        "/wt/x",
        "the worktree was removed; start a new run with ariel-spawn --detach --isolate",
      ],
    ])("%s: refused before anything is killed", async (_n, worktree, hint) => {
      await running(A, { cwd: gone(), worktree });
      const e = await refusal(respawnRun(ports(), root, backend(), A, { graceMs: 0, dryRun: false }));
      expect(e).toEqual({
        v: 1,
        type: "error",
        code: "ERR_SOURCE_NOT_FOUND",
        message: `cannot respawn ${A}: its directory ${JSON.stringify(gone())} is gone; the run was left as it is`,
        hint,
        exit: 66,
        runId: A,
        cwd: gone(),
      });
      expect([calls, readRunSync(root, A).kill]).toEqual([[], null]);
    });

    it("dry run: a checkout's run refused; a worktree's run planned", async () => {
      const rec = await ended(A, { more: { cwd: gone(), worktree: "/wt/x" } });
      const r = await respawnRun(ports(), root, backend(), A, { graceMs: 0, dryRun: true });
      expect(r.planned).toEqual(plannedOf(rec));
      await updateRun(root, A, () => ({ worktree: null }));
      const e = await refusal(respawnRun(ports(), root, backend(), A, { graceMs: 0, dryRun: true }));
      expect(e.code).toBe("ERR_SOURCE_NOT_FOUND");
    });
  });
}

function describeRespawnStarts(): void {
  describe("respawnRun: the new run started", () => {
    it("an ended run: started under the new id with the workspace's and run's variables", async () => {
      const rec = await ended(A, { more: { source: "api" } });
      const old = await localBackend(root, hash).get(A);
      const r = await respawnRun(ports(), root, backend(), A, { graceMs: 0, dryRun: false });
      const planned = plannedOf(rec);
      expect(r).toEqual({
        old,
        planned,
        started: { record: { ...planned, version: 1, fencingToken: 0 }, exit: null, state: "lost" },
        status: 0,
      });
      const [[what, specs]] = calls as [[string, StartRequest[]]];
      const ariel = Object.fromEntries(
        Object.entries(specs[0]?.env ?? {}).filter(([k]) => k.startsWith("ARIEL_")),
      );
      expect([what, specs.map((s) => [s.runId, s.record]), ariel]).toEqual([
        "start",
        [[NEW, planned]],
        {
          ARIEL_STATE_HOME: home,
          ARIEL_OWNER: "tester",
          ARIEL_WORKSPACE_ROOT: root,
          ARIEL_WORKSPACE_HASH: hash,
          ARIEL_RUN_ID: NEW,
          ARIEL_SOURCE: "api",
        },
      ]);
      const started = JSON.parse(
        readFileSync(join(root, ".ariel/runs", `${NEW}.ndjson`), "utf8").split("\n")[0] as string,
      );
      expect([started.event, started.respawnOf]).toEqual(["run.started", A]);
    });

    it("a start that failed: its status", async () => {
      await ended(A, { more: { source: null } });
      const r = await respawnRun(ports(), root, backend({ start: { ok: false, status: 126 } }), A, {
        graceMs: 0,
        dryRun: false,
      });
      const [[, specs]] = calls as [[string, StartRequest[]]];
      const env = specs[0]?.env ?? {};
      expect([r.status, "ARIEL_SOURCE" in env]).toEqual([126, false]);
    });

    it("a live run: TERM first, its end (and settling) waited for, then the new one", async () => {
      await running(A, {}, () => new Promise((r) => setTimeout(r, 300)));
      const r = await respawnRun(ports(), root, backend(), A, { graceMs: 5000, dryRun: false });
      expect([r.old?.state, r.old?.record.kill?.reason, r.started?.record.runId]).toEqual([
        "killed",
        "respawn",
        NEW,
      ]);
      expect(calls.map((c) => c[0])).toEqual(["signal", "start"]);
      expect(calls[1]?.[2]).toEqual([ENDED_AT]);
      expect(calls[0]).toEqual(["signal", A, "SIGTERM"]);
    });

    it("a live run whose directory went with it: killed, and nothing new started (saying so)", async () => {
      const dir = join(root, "api");
      mkdirSync(dir);
      await running(A, { cwd: dir }, () => rmSync(dir, { recursive: true, force: true }));
      const e = await refusal(respawnRun(ports(), root, backend(), A, { graceMs: 5000, dryRun: false }));
      expect([e.code, e.message]).toEqual([
        "ERR_SOURCE_NOT_FOUND",
        `cannot respawn ${A}: its directory ${JSON.stringify(dir)} is gone; the run was killed and nothing new started`,
      ]);
      expect([calls, there(NEW)[0], readRunSync(root, A).kill?.reason]).toEqual([
        [["signal", A, "SIGTERM"]],
        false,
        "respawn",
      ]);
    });

    it("a backend with its own respawn (a k8s run): checked first, its start used, not the local one", async () => {
      // Its cwd is not on this machine: never checked here.
      const rec = await ended(A, { more: { backend: "k8s", cwd: join(root, "gone") } });
      const prepare = async (old: RunRecord) => {
        calls.push(["prepare", old.runId]);
        return async (p: PlannedRun) => {
          calls.push(["startOther", p.runId]);
          await createRun(root, p);
        };
      };
      const r = await respawnRun(ports(), root, backend({ prepare }), A, { graceMs: 0, dryRun: false });
      const planned = plannedOf(rec);
      expect(r).toEqual({
        old: await localBackend(root, hash).get(A),
        planned,
        started: { record: { ...planned, version: 1, fencingToken: 0 }, exit: null, state: "lost" },
        status: 0,
      });
      expect(calls).toEqual([
        ["prepare", A],
        ["startOther", NEW],
      ]);
    });

    it("a task's run: started under the task's lease with its task, worktree and branch", async () => {
      const wt = join(root, ".ariel/worktrees/t1/api");
      mkdirSync(wt, { recursive: true });
      await ended(A, { more: { source: "api", task: "t1", worktree: wt, branch: "ariel/t1", cwd: wt } });
      const r = await respawnRun(ports(), root, backend(), A, { graceMs: 0, dryRun: false });
      const [[, specs]] = calls as [[string, StartRequest[]]];
      const env = specs[0]?.env ?? {};
      expect([r.status, env.ARIEL_TASK, env.ARIEL_WORKTREE, env.ARIEL_BRANCH, env.ARIEL_SOURCE]).toEqual([
        0,
        "t1",
        wt,
        "ariel/t1",
        "api",
      ]);
    });

    it.each([
      ["its one worktree gone (a record without legs): restored first", undefined, false],
      ["a leg's worktree gone: restored first", ["api-gone", "web"], false],
      ["every leg's worktree there: nothing restored", ["api", "web"], true],
    ])("a task's run, %s", async (_n, legs, planned) => {
      // No such task here: a restore asked for is refused (ERR_TASK_NOT_FOUND), changing nothing.
      const wt = (s: string) => join(root, ".ariel/worktrees/t1", s);
      mkdirSync(wt("web"), { recursive: true });
      if (planned) mkdirSync(wt("api"), { recursive: true });
      const recLegs = legs?.map((dir) => ({
        source: dir.replace("-gone", ""),
        worktree: wt(dir),
        branch: "b",
      }));
      const more = { source: "api", task: "t1", worktree: wt("api"), branch: "b", cwd: wt("api") };
      await ended(A, { more: { ...more, ...(recLegs ? { legs: recLegs } : {}) } });
      const r = await respawnRun(ports(), root, backend(), A, { graceMs: 0, dryRun: true }).then(
        (x) => x.planned.runId,
        (e: ArielError) => [e.code, e.message],
      );
      expect(r).toEqual(planned ? NEW : ["ERR_TASK_NOT_FOUND", `no task "t1" in ${root}`]);
    });

    it("a backend whose respawn is the local one (null): started locally", async () => {
      await ended(A);
      const prepare = async () => null;
      const r = await respawnRun(ports(), root, backend({ prepare }), A, { graceMs: 0, dryRun: false });
      expect([r.status, calls.map((c) => c[0])]).toEqual([0, ["start"]]);
    });
  });
}
