import { closeSync, openSync } from "node:fs";
import type { StartResult } from "../../../runs/backend.ts";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import type { ChildRef } from "../../../runs/record.ts";
import { decideRestart } from "../../../runs/restart.ts";
import { childStatus } from "../../../spawn/exit.ts";
import { blockingFs } from "../../fs.ts";
import { processStartTime } from "../../proc.ts";
import { signalGroup } from "../../runs/identity.ts";
import { createRun, readRunSync } from "../../runs/store.ts";
import { signalNumber } from "../../spawn/process.ts";
import { spawnChild, startFailed } from "./child.ts";
import { type Active, emit, failed, type Monitor, underRunLock, updateOwned } from "./context.ts";
import { sandboxStarted } from "./sandbox.ts";
import { afterEnd, finish, recordEnd } from "./settle.ts";
import { settleOutput } from "./watch.ts";

/** While backing off before a restart, how often the monitor looks for a kill request. */
const BACKOFF_POLL_MS = 200;

/**
 * Start (or restart) the child of run `a.runId`; a command that cannot start ends the run.
 * `planned`: a new run, whose `run.json` this writes (once, with the child's identity: there
 * is no moment at which the record exists without the monitor that owns it); otherwise the
 * record is read from disk and updated.
 */
export async function launch(
  m: Monitor,
  a: Active,
  first: boolean,
  planned?: PlannedRun,
): Promise<StartResult> {
  const rec: PlannedRun = planned ?? readRunSync(m.root, a.runId);
  if (!first && rec.kill) {
    await finish(m, a, { code: null, signal: null, status: a.lastStatus }, null);
    return { runId: a.runId, ok: false, status: a.lastStatus, code: "ERR_REFUSED", message: "killed" };
  }
  const paths = runPaths(m.root, a.runId);
  const out = openSync(paths.stdout, "a", 0o600);
  const err = openSync(paths.stderr, "a", 0o600);
  const { child, startErr } = await spawnChild(m, a, rec, out, err);
  if (startErr || !child || child.pid === undefined) {
    const e = startErr ?? Object.assign(new Error("no pid"), { code: "ESPAWN" });
    return startFailed(m, a, rec, e, { out, err }, planned);
  }
  closeSync(out);
  closeSync(err);
  const pid = child.pid;
  const ref = { pid, pgid: pid, startTime: processStartTime(pid) };
  a.child = child;
  a.startedMs = Date.now();
  child.stdin?.on("error", () => {});
  // The child is recorded, and `process.started` written, before anything of its end is: a
  // child that exits at once is only handled once this settled (then `process.exited`).
  const recorded = record(m, a.runId, rec, ref, planned !== undefined).then(() =>
    sandboxStarted(m, a, rec, pid),
  );
  child.on("exit", (code, signal) => {
    a.child = null;
    // Its activity moves no more; a report its hooks made as it ended is still taken until the
    // run is settled (afterEnd), its events before run.finished.
    a.attention?.close();
    void recorded
      .then(
        () => ended(m, a, code, signal),
        () => {}, // never recorded: launch below reports it and the run is not ours to end
      )
      .catch((e) => {
        m.active.delete(a.runId); // its record is gone or damaged: nothing more to supervise
        failed(a.runId, "end", e);
      });
  });
  try {
    await recorded;
  } catch (e) {
    if (!planned) throw e;
    // No run.json to supervise it by: it must not run on unseen.
    signalGroup(ref, m.me.bootId, "SIGKILL");
    throw e;
  }
  if (first && rec.timeoutMs !== null) {
    const t = setTimeout(() => void timeout(m, a, rec.graceMs), rec.timeoutMs);
    a.timers.add(t);
  }
  return { runId: a.runId, ok: true, child: ref };
}

/** Write the child's identity into run.json (creating it for a new run), then `process.started`. */
async function record(
  m: Monitor,
  runId: string,
  rec: PlannedRun,
  child: ChildRef,
  create: boolean,
): Promise<void> {
  const now = new Date().toISOString();
  if (create) await createRun(m.root, { ...rec, monitor: m.me, child, startedAt: now }, blockingFs, true);
  else
    await underRunLock(m, runId, () =>
      updateOwned(m, runId, (cur) => ({ monitor: m.me, child, startedAt: cur.startedAt ?? now })),
    );
  await emit(m, runId, "process.started", rec.source, {
    pid: child.pid,
    pgid: child.pgid,
    attempt: rec.restart.count + 1,
  });
}

/** `--timeout`: the kill recorded (reason `timeout`), SIGTERM to the group, SIGKILL after the grace. */
async function timeout(m: Monitor, a: Active, graceMs: number): Promise<void> {
  await underRunLock(m, a.runId, async () => {
    // A child that already exited is not killed by its timeout: its end is being recorded.
    const cur = await updateOwned(m, a.runId, (c) =>
      c.kill || c.exit || !a.child
        ? null
        : { kill: { requestedAt: new Date().toISOString(), signal: "SIGTERM", reason: "timeout" } },
    );
    if (cur.kill?.reason !== "timeout" || !cur.child || !a.child) return;
    signalGroup(cur.child, m.me.bootId, "SIGTERM");
    const child = cur.child;
    const t = setTimeout(() => signalGroup(child, m.me.bootId, "SIGKILL"), graceMs);
    a.timers.add(t);
  });
}

/**
 * A child exited: `process.exited`, then, under one hold of the run's lock, either its end
 * recorded (then settled) or its restart decided (then, after the back-off, launched again).
 */
async function ended(
  m: Monitor,
  a: Active,
  code: number | null,
  signal: NodeJS.Signals | null,
): Promise<void> {
  m.busy++;
  let finalized = false;
  try {
    const status = childStatus(code, signalNumber(signal));
    const how = { code, signal, status };
    a.lastStatus = status;
    // The output as it stays if the run ends here (a pass for nothing before a restart, which
    // costs a stat per stream): capped before the run lock, so that one hold of the lock
    // decides the restart and, when there is none, records the end (decision 0047).
    await settleOutput(m, a);
    const next = await underRunLock(m, a.runId, async () => {
      const rec = readRunSync(m.root, a.runId);
      const decision = decideRestart(rec.restart, {
        status,
        killed: rec.kill !== null,
        ranMs: Date.now() - a.startedMs,
      });
      await emit(m, a.runId, "process.exited", rec.source, { code, signal, status });
      if (!decision.restart) return { end: await recordEnd(m, a, rec, how, null), restartIn: 0 };
      await updateOwned(m, a.runId, (cur) => ({
        child: null,
        restart: { ...cur.restart, count: decision.count },
      }));
      return { end: null, restartIn: decision.delayMs };
    });
    if (next.end) {
      finalized = true;
      await afterEnd(m, a, next.end);
      return;
    }
    restartAfter(m, a, next.restartIn);
  } finally {
    if (finalized) m.active.delete(a.runId);
    m.busy--;
    m.lastActivity = Date.now();
  }
}

/** Back off, looking every BACKOFF_POLL_MS for a kill request: a killed run never restarts. */
function restartAfter(m: Monitor, a: Active, restartIn: number): void {
  const due = Date.now() + restartIn;
  const t = setInterval(
    () => {
      let killed = false;
      try {
        killed = readRunSync(m.root, a.runId).kill !== null;
      } catch {
        killed = true; // removed meanwhile: nothing to restart
      }
      if (!killed && Date.now() < due) return;
      clearInterval(t);
      a.timers.delete(t);
      void launch(m, a, false).catch((e) => {
        m.active.delete(a.runId);
        failed(a.runId, "restart", e);
      });
    },
    Math.min(BACKOFF_POLL_MS, restartIn),
  );
  a.timers.add(t);
}
