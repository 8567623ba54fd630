/**
 * What control.ts's tests share: a temp workspace with `.ariel/runs`, runs written with the runs
 * store, and "live" runs: this process their monitor, their child a real `sleep 30` in a group of
 * its own, whose end the test records as a monitor would (exit.json, endedAt, run.finished).
 * After each test every child is killed and every end recorded (or given up: a run removed
 * meanwhile has nothing left to record), then the workspace is removed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { workspaceHash } from "../../hash.ts";
import type { ExitRecord, RunRecord } from "../../runs/record.ts";
import { exitState } from "../../runs/state.ts";
import { processGone, removeDir, tempDir } from "../_fixture.ts";
import { processStartTime } from "../proc.ts";
import { runFields } from "../runs/_fixture.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { appendHistory, createRun, readRunSync, updateRun, writeExitOnce } from "../runs/store.ts";

/** When every run here ended. */
export const ENDED_AT = "2026-12-02T11:10:00.000Z";

/** A test file's workspace: set before each test, its children and their recorded ends. */
export interface RunsWorkspace {
  root: string;
  hash: string;
  children: ChildProcess[];
  ends: Promise<unknown>[];
}

/** A new workspace (`prefix` names its temp directory) before each test of the file, cleaned after. */
export function useRunsWorkspace(prefix: string): RunsWorkspace {
  const w: RunsWorkspace = { root: "", hash: "", children: [], ends: [] };
  beforeEach(async () => {
    w.root = tempDir(prefix);
    w.hash = await workspaceHash(w.root);
    mkdirSync(join(w.root, ".ariel/runs"), { recursive: true });
    w.children = [];
    w.ends = [];
  });
  afterEach(async () => {
    for (const c of w.children) {
      try {
        process.kill(-(c.pid as number), "SIGKILL");
      } catch {}
      await processGone(c.pid as number);
    }
    await Promise.all(w.ends);
    removeDir(w.root);
  });
  return w;
}

/** Record run `runId` (runFields with `more`). */
export function recorded(w: RunsWorkspace, runId: string, more: Partial<RunRecord> = {}): Promise<RunRecord> {
  return createRun(w.root, runFields(w, runId, more));
}

/** The exit.json of a run that ended at ENDED_AT with `status` (by `signal`, when not null). */
export const exitOf = (runId: string, status: number, signal: string | null, state: ExitRecord["state"]) => ({
  v: 1 as const,
  type: "exit" as const,
  runId,
  code: signal === null ? status : null,
  signal,
  status,
  endedAt: ENDED_AT,
  state,
  reason: null,
});

/** Append run.finished to the run's history, as its monitor does last. */
export const finished = (w: RunsWorkspace, runId: string) =>
  appendHistory(w.root, runId, { v: 1, type: "event", event: "run.finished", runId });

/**
 * A running run: this process its monitor, its child `sleep 30` (ignoring TERM with `deaf`) in
 * a group of its own. Its end is recorded as the monitor would, `onEnd` between exit.json and
 * endedAt; `endedBy` resolves the signal that ended the child once all of that is written.
 */
export async function running(
  w: RunsWorkspace,
  runId: string,
  o: { deaf?: boolean; more?: Partial<RunRecord>; onEnd?: () => unknown } = {},
) {
  const c = o.deaf
    ? spawn("sh", ["-c", "trap '' TERM; exec sleep 30"], { detached: true, stdio: "ignore" })
    : spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  w.children.push(c);
  const pid = c.pid as number;
  const recordEnd = async (code: number | null, signal: NodeJS.Signals | null) => {
    const status = code ?? 128 + constants.signals[signal as NodeJS.Signals];
    const kill = readRunSync(w.root, runId).kill;
    await writeExitOnce(w.root, exitOf(runId, status, signal, exitState(status, kill !== null)));
    await o.onEnd?.();
    await updateRun(w.root, runId, () => ({ endedAt: ENDED_AT }));
    await finished(w, runId);
  };
  const endedBy = new Promise<string | null>((resolve) =>
    c.once("exit", (code, signal) => {
      // A run removed meanwhile (or the test over) has nothing left to record.
      void recordEnd(code, signal)
        .catch(() => {})
        .then(() => resolve(signal));
    }),
  );
  w.ends.push(endedBy);
  for (
    let i = 0;
    i < 200 && o.deaf && !readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep");
    i++
  ) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const child = { pid, pgid: pid, startTime: processStartTime(pid) };
  const rec = await recorded(w, runId, { monitor: selfMonitorRef(), child, ...o.more });
  return { rec, child, pid, endedBy };
}
