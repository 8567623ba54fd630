import type { ChildProcess } from "node:child_process";
import { isArielError } from "../../../errors.ts";
import { runPaths } from "../../../runs/paths.ts";
import type { MonitorRef, RunRecord } from "../../../runs/record.ts";
import { type EventName, eventRecord } from "../../../spawn/events.ts";
import { withLockFile } from "../../lock-file.ts";
import { selfMonitorRef } from "../../runs/identity.ts";
import { outputCap } from "../../runs/output.ts";
import { type HolePuncher, holePuncher } from "../../runs/punch.ts";
import { appendHistory, updateRun } from "../../runs/store.ts";
import type { RunAttention } from "../run_attention.ts";
import { ttyMonitor } from "../tty_monitor.ts";
import type { ReportState } from "./report.ts";

/** A run the monitor supervises now: its child (between restarts, none) and what it keeps for it. */
export interface Active {
  runId: string;
  env: Record<string, string>;
  child: ChildProcess | null;
  startedMs: number;
  lastStatus: number;
  timers: Set<ReturnType<typeof setTimeout> | ReturnType<typeof setInterval>>;
  /** The cap being enforced on its streams now, if it is. */
  capping: Promise<void> | null;
  /** Streams whose head could not be dropped (no `fallocate`, or a filesystem without holes): kept whole. */
  uncapped: Set<"stdout" | "stderr">;
  /** A sandboxed run's own monitor socket (docs/sandbox.md), open while it runs. */
  sandboxSocket?: { server: import("node:net").Server; path: string } | null;
  /** This start of the child's attention (a tty run, a wired run), else null. */
  attention: RunAttention | null;
  /** This start of a wired run's child: the secret its reports must carry (report.ts), else null. */
  report: ReportState | null;
  /** The `run.attention` events of its moves, being written (awaited before `run.finished`). */
  moves: Promise<void>;
}

/** A run the monitor was just asked to start, before its first child. */
export function newActive(runId: string, env: Record<string, string>): Active {
  return {
    runId,
    env,
    child: null,
    startedMs: Date.now(),
    lastStatus: 1,
    timers: new Set(),
    capping: null,
    uncapped: new Set(),
    attention: null,
    report: null,
    moves: Promise.resolve(),
  };
}

/**
 * What the parts of one monitor process share: the workspace, the runs it supervises, and the
 * counters that say whether it is idle (its runs, hooks and finalizations in flight, clients).
 */
export interface Monitor {
  root: string;
  /** The socket it listens on (wired runs' reporters connect to it). */
  socket: string;
  /** This process, as run records name their monitor. */
  me: MonitorRef;
  /** The output cap of each stream, bytes. */
  cap: number;
  puncher: HolePuncher;
  active: Map<string, Active>;
  ttys: ReturnType<typeof ttyMonitor>;
  /** Hooks and finalizations in flight. */
  busy: number;
  connections: number;
  lastActivity: number;
}

/** One line in monitor.log (the monitor's stderr). */
export function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} monitor ${process.pid}: ${message}\n`);
}

/** The monitor of the workspace at `root`, listening on `socket`, nothing supervised yet. */
export function createMonitor(root: string, socket: string): Monitor {
  const m = {
    root,
    socket,
    active: new Map<string, Active>(),
    busy: 0,
    connections: 0,
    lastActivity: Date.now(),
    me: selfMonitorRef(),
    cap: outputCap(process.env),
    puncher: holePuncher({ log: (msg) => log(`output cap: ${msg}`) }),
  } as Monitor;
  m.ttys = ttyMonitor({
    root,
    saveSize: (runId, tty) =>
      withLockFile(runPaths(root, runId).lock, { what: "run lock" }, () =>
        updateOwned(m, runId, (cur) => (cur.exit ? null : { tty })),
      ).then(() => {}),
    log,
  });
  return m;
}

/**
 * A write about run `runId` that failed: said once in monitor.log, as
 * `run RUN: STEP failed [CODE] (MESSAGE)`. The monitor goes on with the run's next step (`end`
 * and `restart`: what is left of a run it could not end or restart is no longer supervised).
 */
export function failed(runId: string, step: string, e: unknown): void {
  const code = errorCode(e);
  // A bug (no ariel or system error code) gets its stack too.
  const why = code === "ERR_INTERNAL" ? ((e as Error)?.stack ?? e) : ((e as Error)?.message ?? e);
  log(`run ${runId}: ${step} failed [${code}] (${why})`);
}

/** `fn`, or its failure logged ({@link failed}) and `undefined`: never thrown on. */
export async function attempt<T>(
  runId: string,
  step: string,
  fn: () => T | Promise<T>,
): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    failed(runId, step, e);
    return undefined;
  }
}

/** One event in the run's history; not for a run removed meanwhile (its history is not recreated). */
export async function emit(
  m: Monitor,
  runId: string,
  event: EventName,
  source: string | null,
  fields: Record<string, unknown>,
): Promise<void> {
  await attempt(runId, `history ${event}`, () =>
    appendHistory(m.root, runId, eventRecord(runId, Date.now(), event, source, fields), true),
  );
}

/**
 * Update a run's `run.json`; only under the run's lock. Every write of the record by the monitor
 * and by the CLIs (`kill`) is made under that lock, so the record's own lock file would exclude
 * nothing more: it is skipped (decision 0047). The write is still compare-and-swap and fsynced.
 */
export function updateOwned(
  m: Monitor,
  runId: string,
  change: (cur: RunRecord) => Partial<RunRecord> | null,
): Promise<RunRecord> {
  return updateRun(m.root, runId, change, true);
}

/** `fn` under run `runId`'s lock. */
export function underRunLock<T>(m: Monitor, runId: string, fn: () => Promise<T>): Promise<T> {
  return withLockFile(runPaths(m.root, runId).lock, { what: "run lock" }, fn);
}

/** The code of a failed write: an ariel error code, a system error code (ENOENT, ENOSPC), or ERR_INTERNAL. */
function errorCode(e: unknown): string {
  if (isArielError(e)) return e.code;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" ? code : "ERR_INTERNAL";
}
