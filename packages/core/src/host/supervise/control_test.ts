/**
 * The CLI's side of controlling background runs (control.ts), in-process against real temp
 * workspaces and the real local backend: the run lock, the two halves of `kill`, and `wait`.
 * Runs are records written here with the runs store; a "live" one names this process as its
 * monitor, and its child is a real process in a group of its own, whose end this test records as
 * its monitor would (exit.json, endedAt, run.finished). control_more_test.ts pins rm and respawn.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { ArielError } from "../../errors.ts";
import type { RunBackend, RunView } from "../../runs/backend.ts";
import type { ExitRecord, RunRecord } from "../../runs/record.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { readRunSync, removeRunFiles, updateRun, writeExitOnce } from "../runs/store.ts";
import {
  ENDED_AT,
  exitOf,
  recorded as recordedIn,
  running as runningIn,
  useRunsWorkspace,
} from "./_control_fixture.ts";
import { localBackend } from "./backends/local/backend.ts";
import { beginKill, finishKill, killRun, waitRuns, withRunLock } from "./control.ts";

const A = "20261202T110943Z-aaaaaa";
const B = "20261202T110944Z-bbbbbb";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const w = useRunsWorkspace("ariel-control-");
let root = "";
let hash = "";
/** The backend's signal and changes calls, in order. */
let calls: unknown[][] = [];

beforeEach(() => {
  ({ root, hash } = w);
  calls = [];
});

/** The real local backend, its signal (and a k8s-style changes, when asked) recorded in `calls`. */
function backend(o: { changes?: (views: readonly RunView[], ms: number) => Promise<void> } = {}): RunBackend {
  const local = localBackend(root, hash);
  return {
    ...local,
    signal: async (view, signal) => {
      calls.push(["signal", view.record.runId, signal]);
      return local.signal(view, signal);
    },
    ...(o.changes
      ? {
          changes: async (views: readonly RunView[], ms: number) => {
            calls.push(["changes", views.map((v) => v.record.runId), ms]);
            await o.changes?.(views, ms);
          },
        }
      : {}),
  };
}

const recorded = (runId: string, more: Partial<RunRecord> = {}) => recordedIn(w, runId, more);

/** A run that ended (exit.json), its monitor done with it (endedAt, run.finished) unless `settled` is false. */
async function ended(runId: string, state: ExitRecord["state"] = "exited", more: Partial<RunRecord> = {}) {
  await recorded(runId, more);
  await writeExitOnce(root, exitOf(runId, state === "exited" ? 0 : 1, null, state));
}

const running = (runId: string, o: { deaf?: boolean; more?: Partial<RunRecord> } = {}) =>
  runningIn(w, runId, o);

/** The pid of a process that has ended (and been reaped). */
async function deadPid(): Promise<number> {
  const c = spawn("true", [], { stdio: "ignore" });
  await new Promise((r) => c.once("exit", r));
  return c.pid as number;
}

const onDisk = (runId: string) => readRunSync(root, runId);

describe("withRunLock: fn under the run's lock, or ERR_RUN_NOT_FOUND for a run removed", () => {
  it("a run: fn's result, its lock file held while fn runs and gone after", async () => {
    await recorded(A);
    const lock = join(root, ".ariel/runs", A, "run.lock");
    const held = await withRunLock(root, A, async () => existsSync(lock));
    expect([held, existsSync(lock)]).toEqual([true, false]);
  });

  it("no run directory: ERR_RUN_NOT_FOUND (removed meanwhile), fn never called, no lock made", async () => {
    let called = false;
    const e = (await withRunLock(root, A, async () => {
      called = true;
    }).catch((x: unknown) => x)) as ArielError;
    expect(e.toRecord()).toEqual({
      v: 1,
      type: "error",
      code: "ERR_RUN_NOT_FOUND",
      message: `no run "${A}" (removed meanwhile)`,
      hint: "run ariel-runs list --all to see the runs",
      exit: 66,
    });
    expect([called, existsSync(join(root, ".ariel/runs", A))]).toEqual([false, false]);
  });

  it("an ENOENT out of the lock (its directory went): ERR_RUN_NOT_FOUND; any other error as it is", async () => {
    await recorded(A);
    const enoent = Object.assign(new Error("gone"), { code: "ENOENT" });
    const other = Object.assign(new Error("full"), { code: "ENOSPC" });
    const e1 = (await withRunLock(root, A, () => Promise.reject(enoent)).catch(
      (x: unknown) => x,
    )) as ArielError;
    const e2 = await withRunLock(root, A, () => Promise.reject(other)).catch((x: unknown) => x);
    expect([e1.code, e1.message]).toEqual(["ERR_RUN_NOT_FOUND", `no run "${A}" (removed meanwhile)`]);
    expect(e2).toBe(other);
  });
});

describeBeginKillEnded();
describeBeginKillLive();
describeFinishKill();
describeWaitSettled();
describeWaitMoves();

function describeBeginKillEnded(): void {
  describe("beginKill: a run that ended, or whose process is gone", () => {
    // A final run is left alone (ended); a lost one with nothing of ours left too; a child that
    // is gone while the monitor lives is "requested" (the monitor is writing its end); a lost
    // run whose pid is another process now is ERR_NOT_OURS. Nothing is recorded or signalled.
    it.each([
      ["exited", "exited"],
      ["failed", "failed"],
      ["killed", "killed"],
    ] as const)("%s: ended, as it was", async (_name, state) => {
      await ended(A, state);
      const view = await localBackend(root, hash).get(A);
      const r = await beginKill(root, backend(), A, "SIGTERM", "kill");
      expect(r).toEqual({ kind: "ended", view });
      expect([view.state, onDisk(A).version, calls]).toEqual([state, 1, []]);
    });

    it("crashed (its monitor was of another boot): ended", async () => {
      await recorded(A, { monitor: { ...selfMonitorRef(), bootId: "another-boot" } });
      const r = await beginKill(root, backend(), A, "SIGTERM", "kill");
      expect([r.kind, r.view.state, onDisk(A).kill, calls]).toEqual(["ended", "crashed", null, []]);
    });

    it("lost with no child: ended, nothing recorded", async () => {
      const rec = await recorded(A);
      const r = await beginKill(root, backend(), A, "SIGTERM", "kill");
      expect(r).toEqual({ kind: "ended", view: { record: rec, exit: null, state: "lost" } });
      expect([onDisk(A), calls]).toEqual([rec, []]);
    });

    it("running, its child gone: requested (its end is being written), nothing signalled", async () => {
      const child = { pid: await deadPid(), pgid: 1, startTime: "1" };
      const rec = await recorded(A, { monitor: selfMonitorRef(), child: { ...child, pgid: child.pid } });
      const r = await beginKill(root, backend(), A, "SIGTERM", "kill");
      expect(r).toEqual({ kind: "requested", view: { record: rec, exit: null, state: "running" } });
      expect([onDisk(A), calls]).toEqual([rec, []]);
    });

    it("running, its pid another process now: requested all the same (its monitor tells)", async () => {
      const child = { pid: process.pid, pgid: process.pid, startTime: "1" };
      const rec = await recorded(A, { monitor: selfMonitorRef(), child });
      const r = await beginKill(root, backend(), A, "SIGTERM", "kill");
      expect([r.kind, onDisk(A), calls]).toEqual(["requested", rec, []]);
    });

    it("lost, its pid another process now: ERR_NOT_OURS, nothing signalled", async () => {
      const child = { pid: process.pid, pgid: process.pid, startTime: "1" };
      const rec = await recorded(A, { child });
      const e = (await beginKill(root, backend(), A, "SIGTERM", "kill").catch(
        (x: unknown) => x,
      )) as ArielError;
      expect(e.toRecord()).toEqual({
        v: 1,
        type: "error",
        code: "ERR_NOT_OURS",
        message: `run ${A}: pid ${process.pid} is now another process; nothing was signalled`,
        hint: "the run's process is gone and its pid was reused; ariel never signals a process it did not start",
        exit: 3,
        runId: A,
        pid: process.pid,
      });
      expect([onDisk(A), calls]).toEqual([rec, []]);
    });
  });
}

function describeBeginKillLive(): void {
  describe("beginKill: a live run", () => {
    // Its kill recorded in run.json (unless one is, or its exit), then its group signalled; a
    // run with no child yet only gets the record; a lost run whose group lives is signalled
    // without a record; a k8s run (no local child) is "signalled" through its backend.
    it("running: the kill recorded (time, signal, reason), its group signalled", async () => {
      const { rec, endedBy } = await running(A);
      const r = await beginKill(root, backend(), A, "SIGTERM", "respawn");
      expect(r).toEqual({ kind: "signalled", view: { record: rec, exit: null, state: "running" } });
      expect(calls).toEqual([["signal", A, "SIGTERM"]]);
      expect(await endedBy).toBe("SIGTERM");
      const kill = onDisk(A).kill;
      expect(kill).toEqual({ requestedAt: expect.stringMatching(ISO), signal: "SIGTERM", reason: "respawn" });
      expect(Math.abs(Date.parse(kill?.requestedAt as string) - Date.now())).toBeLessThan(60_000);
    });

    it.each([
      [
        "a kill recorded already",
        { kill: { requestedAt: ENDED_AT, signal: "SIGINT", reason: "timeout" as const } },
      ],
      ["its exit copied into run.json", { exit: { code: 0, signal: null, status: 0, endedAt: ENDED_AT } }],
    ])("running with %s: run.json left as it is, the group signalled", async (_name, more) => {
      const { rec } = await running(A, { more });
      const r = await beginKill(root, backend(), A, "SIGINT", "kill");
      expect([r.kind, calls]).toEqual(["signalled", [["signal", A, "SIGINT"]]]);
      expect(onDisk(A)).toEqual(rec);
    });

    it("starting (no child yet): the kill recorded, requested, nothing signalled", async () => {
      await recorded(A, { monitor: selfMonitorRef() });
      const r = await beginKill(root, backend(), A, "SIGTERM", "kill");
      expect([r.kind, r.view.state, calls]).toEqual(["requested", "starting", []]);
      expect([onDisk(A).version, onDisk(A).kill?.reason, onDisk(A).kill?.signal]).toEqual([
        2,
        "kill",
        "SIGTERM",
      ]);
    });

    it("lost, its group still ours: signalled, nothing recorded", async () => {
      const { rec, endedBy } = await running(A, { more: { monitor: null } });
      const r = await beginKill(root, backend(), A, "SIGKILL", "kill");
      expect(r).toEqual({ kind: "signalled", view: { record: rec, exit: null, state: "lost" } });
      expect([calls, await endedBy]).toEqual([[["signal", A, "SIGKILL"]], "SIGKILL"]);
      expect(onDisk(A).kill).toBe(null);
    });

    it("a k8s run (no local child): the kill recorded, its backend signalled", async () => {
      await recorded(A, { backend: "k8s", monitor: selfMonitorRef() });
      const r = await beginKill(root, backend(), A, "SIGTERM", "kill");
      expect([r.kind, calls, onDisk(A).kill?.reason]).toEqual([
        "signalled",
        [["signal", A, "SIGTERM"]],
        "kill",
      ]);
    });

    it("a lost k8s run: its backend signalled (its Job deleted), nothing recorded", async () => {
      await recorded(A, { backend: "k8s" });
      const r = await beginKill(root, backend(), A, "SIGTERM", "kill");
      expect([r.kind, r.view.state, calls, onDisk(A).version]).toEqual([
        "signalled",
        "lost",
        [["signal", A, "SIGTERM"]],
        1,
      ]);
    });
  });
}

function describeFinishKill(): void {
  describe("finishKill and killRun: waiting for the end, SIGKILL after the grace", () => {
    it("ended: its view as it was, nothing asked", async () => {
      await ended(A);
      const view = await localBackend(root, hash).get(A);
      expect(await finishKill(backend(), { kind: "ended", view }, 0)).toBe(view);
      expect(calls).toEqual([]);
    });

    it("requested, and the run is over by now: its view now", async () => {
      const rec = await recorded(A, { monitor: selfMonitorRef() });
      const start = {
        kind: "requested" as const,
        view: { record: rec, exit: null, state: "starting" as const },
      };
      await writeExitOnce(root, exitOf(A, 143, "SIGTERM", "killed"));
      expect(await finishKill(backend(), start, 5000)).toEqual({
        record: rec,
        exit: exitOf(A, 143, "SIGTERM", "killed"),
        state: "killed",
      });
    });

    it("removed while it waits (rm removes only final runs): null", async () => {
      const rec = await recorded(A, { monitor: selfMonitorRef() });
      const start = {
        kind: "requested" as const,
        view: { record: rec, exit: null, state: "starting" as const },
      };
      setTimeout(() => void removeRunFiles(root, A), 100);
      expect(await finishKill(backend(), start, 5000)).toBe(null);
      expect(calls).toEqual([]);
    });

    it("killRun of a run that ends on TERM: its killed view, not already ended, no SIGKILL", async () => {
      const { rec } = await running(A);
      const r = await killRun(root, backend(), A, { signal: "SIGTERM", graceMs: 5000 });
      expect(r).toEqual({
        view: {
          record: {
            ...rec,
            version: 3,
            endedAt: ENDED_AT,
            kill: expect.objectContaining({ signal: "SIGTERM" }),
          },
          exit: exitOf(A, 143, "SIGTERM", "killed"),
          state: "killed",
        },
        alreadyEnded: false,
      });
      expect(calls).toEqual([["signal", A, "SIGTERM"]]);
    });

    it("killRun of a run that ignores TERM: SIGKILL to its group after the grace", async () => {
      await running(A, { deaf: true });
      const r = await killRun(root, backend(), A, { signal: "SIGTERM", graceMs: 300 });
      expect([r.alreadyEnded, r.view?.state, r.view?.exit]).toEqual([
        false,
        "killed",
        exitOf(A, 137, "SIGKILL", "killed"),
      ]);
      expect(calls).toEqual([
        ["signal", A, "SIGTERM"],
        ["signal", A, "SIGKILL"],
      ]);
    });

    it("killRun of a run that ended: already ended, its view", async () => {
      await ended(A, "failed");
      const r = await killRun(root, backend(), A, { signal: "SIGTERM", graceMs: 0 });
      expect([r.alreadyEnded, r.view?.state, calls]).toEqual([true, "failed", []]);
    });

    it("killRun of a run removed: ERR_RUN_NOT_FOUND", async () => {
      const e = (await killRun(root, backend(), A, { signal: "SIGTERM", graceMs: 0 }).catch(
        (x: unknown) => x,
      )) as ArielError;
      expect([e.code, e.message]).toEqual(["ERR_RUN_NOT_FOUND", `no run "${A}" (removed meanwhile)`]);
    });
  });
}

/** waitRuns of `ids` with no time at all: the views when all are settled now, else null. */
const waitNow = (ids: string[]) => waitRuns(backend(), ids, { timeoutMs: 0 });

function describeWaitSettled(): void {
  describe("waitRuns: when every run counts as settled", () => {
    // Final, and nothing more for its monitor to record (endedAt, an isolated run's worktree
    // outcome), or its monitor gone; a lost or crashed run is final at once.
    const iso = { onExit: "remove" as const, created: true };
    const outcome = { outcome: "removed" as const, reason: null };
    const cases: [string, Partial<RunRecord>, boolean][] = [
      ["ended, endedAt written, its monitor alive", { endedAt: ENDED_AT }, true],
      ["ended, no endedAt yet, its monitor alive", {}, false],
      ["ended, no endedAt, no monitor recorded", { monitor: null }, true],
      ["isolated, its worktree outcome not yet written", { endedAt: ENDED_AT, isolate: iso }, false],
      [
        "isolated, its worktree outcome written",
        { endedAt: ENDED_AT, isolate: iso, worktreeOutcome: outcome },
        true,
      ],
      ["isolated, its worktree never made", { endedAt: ENDED_AT, isolate: { ...iso, created: false } }, true],
    ];
    it.each(cases)("%s", async (_name, more, settled) => {
      await ended(A, "failed", { monitor: selfMonitorRef(), ...more });
      const view = await localBackend(root, hash).get(A);
      expect(await waitNow([A])).toEqual(settled ? [view] : null);
    });

    it("ended, no endedAt, its monitor gone: settled (nobody will write it)", async () => {
      const gone = { pid: await deadPid(), startTime: "1", bootId: selfMonitorRef().bootId };
      await ended(A, "exited", { monitor: gone });
      expect((await waitNow([A]))?.map((v) => v.state)).toEqual(["exited"]);
    });

    it.each([
      ["lost", {}, "lost"],
      ["crashed", { monitor: { ...selfMonitorRef(), bootId: "another-boot" } }, "crashed"],
    ])("%s: final at once", async (_name, more, state) => {
      await recorded(A, more);
      expect((await waitNow([A]))?.map((v) => v.state)).toEqual([state]);
    });

    it("one run still running among settled ones: null at the timeout", async () => {
      await ended(A, "exited", { endedAt: ENDED_AT });
      await recorded(B, { monitor: selfMonitorRef() });
      expect(await waitNow([A, B])).toBe(null);
      expect(await waitRuns(backend(), [A, B], { timeoutMs: 250 })).toBe(null);
    });

    it("every run settled: their views in the order asked", async () => {
      await ended(A, "exited", { endedAt: ENDED_AT });
      await ended(B, "killed", { endedAt: ENDED_AT });
      expect((await waitNow([B, A]))?.map((v) => [v.record.runId, v.state])).toEqual([
        [B, "killed"],
        [A, "exited"],
      ]);
    });
  });
}

function describeWaitMoves(): void {
  describe("waitRuns: waiting for a change", () => {
    it("a run that ends while it waits (no timeout): the views once it is settled", async () => {
      const { endedBy, child } = await running(A);
      setTimeout(() => process.kill(child.pid, "SIGTERM"), 150);
      const views = await waitRuns(backend(), [A], { timeoutMs: null });
      expect([views?.map((v) => v.state), await endedBy]).toEqual([["failed"], "SIGTERM"]);
    });

    it("an aborted wait: null, before or while it waits", async () => {
      await recorded(A, { monitor: selfMonitorRef() });
      const before = new AbortController();
      before.abort();
      const during = new AbortController();
      setTimeout(() => during.abort(), 100);
      expect(await waitRuns(backend(), [A], { timeoutMs: null, signal: before.signal })).toBe(null);
      expect(await waitRuns(backend(), [A], { timeoutMs: null, signal: during.signal })).toBe(null);
    });

    it("a k8s run not settled: the backend's changes asked about it alone, 2 s at most", async () => {
      await ended(A, "exited", { endedAt: ENDED_AT });
      await recorded(B, { backend: "k8s", monitor: selfMonitorRef() });
      const b = backend({
        changes: async () => {
          await writeExitOnce(root, exitOf(B, 0, null, "exited"));
          await updateRun(root, B, () => ({ endedAt: ENDED_AT }));
        },
      });
      const views = await waitRuns(b, [A, B], { timeoutMs: null });
      expect([views?.map((v) => v.state), calls]).toEqual([["exited", "exited"], [["changes", [B], 2000]]]);
    });

    it("a local run not settled: polled, the backend's changes never asked", async () => {
      const { child } = await running(A);
      const b = backend({ changes: () => Promise.resolve() });
      setTimeout(() => process.kill(child.pid, "SIGKILL"), 150);
      const views = await waitRuns(b, [A], { timeoutMs: 5000 });
      expect([views?.map((v) => v.state), calls]).toEqual([["failed"], []]);
    });
  });
}
