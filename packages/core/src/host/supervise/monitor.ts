import type { ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { loadConfig } from "../../config.ts";
import { isArielError } from "../../errors.ts";
import { serializeRecord } from "../../ndjson.ts";
import type { StartResult } from "../../runs/backend.ts";
import { monitorPaths, runPaths } from "../../runs/paths.ts";
import type { PlannedRun } from "../../runs/plan.ts";
import {
  type ChildRef,
  type ExitRecord,
  ON_EXIT_TIMEOUT_MS,
  type RunRecord,
  runRecordProblem,
} from "../../runs/record.ts";
import { decideRestart } from "../../runs/restart.ts";
import { exitState } from "../../runs/state.ts";
import { type EventName, eventRecord } from "../../spawn/events.ts";
import { childStatus } from "../../spawn/exit.ts";
import { nodeChildProcess } from "../builtins.ts";
import { freeSpace } from "../free_space.ts";
import { blockingFs, nodeFs, writeAtomic } from "../fs.ts";
import { withLockFile } from "../lock-file.ts";
import { hostPorts } from "../ports.ts";
import { processStartTime } from "../proc.ts";
import { selfMonitorRef, signalGroup } from "../runs/identity.ts";
import { capStream, outputCap } from "../runs/output.ts";
import { holePuncher } from "../runs/punch.ts";
import { appendHistory, createRun, readRunSync, updateRun, writeExitOnce } from "../runs/store.ts";
import { worktreeIsolation } from "../spawn/isolation.ts";
import { signalNumber, startError } from "../spawn/process.ts";
import { testPause } from "../test-hooks.ts";
import { MONITOR_ARG, type MonitorReply, type MonitorRequest } from "./protocol.ts";
import { ttyMonitor } from "./tty_monitor.ts";

/** Seconds without a child, a hook or a client before the monitor exits (env overrides, for tests). */
const DEFAULT_IDLE_MS = 10_000;
/** While backing off before a restart, how often the monitor looks for a kill request. */
const BACKOFF_POLL_MS = 200;
/** How often the monitor compares each live stream with the output cap (env overrides, for tests). */
const DEFAULT_OUTPUT_POLL_MS = 1000;

interface Active {
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
}

/**
 * The workspace's run monitor: started on demand by `ariel-spawn --detach` (new session, stdio
 * on /dev/null and a log file, SIGHUP ignored), it is the parent of every detached child of
 * the workspace, so it reaps them and records how they ended. The children write their output
 * files themselves, so the monitor's death costs a run its supervision (it reads `lost`),
 * never its output; the monitor only drops the head of a stream past the output cap (a hole
 * punched in the file, docs/runs.md). It exits when it has had nothing to do for a while.
 */
export async function runMonitor(root: string, socketPath: string): Promise<number> {
  const net = process.getBuiltinModule?.("node:net") ?? (require("node:net") as typeof import("node:net"));
  process.on("SIGHUP", () => {});
  process.on("SIGINT", () => {});
  process.on("uncaughtException", (e) => log(`uncaught: ${e.stack ?? e}`));
  process.on("unhandledRejection", (e) => log(`unhandled: ${(e as Error)?.stack ?? e}`));
  const idleMs = Number(process.env.ARIEL_MONITOR_IDLE_MS ?? DEFAULT_IDLE_MS);
  const active = new Map<string, Active>();
  let busy = 0; // hooks and finalizations in flight
  let connections = 0;
  let lastActivity = Date.now();
  const me = selfMonitorRef();
  const cap = outputCap(process.env);
  const puncher = holePuncher({ log: (m) => log(`output cap: ${m}`) });

  function log(message: string): void {
    process.stderr.write(`${new Date().toISOString()} monitor ${process.pid}: ${message}\n`);
  }
  const ttys = ttyMonitor({
    root,
    emit: (runId, event, source, fields) => emit(runId, event, source, fields),
    saveSize: (runId, tty) =>
      withLockFile(runPaths(root, runId).lock, { what: "run lock" }, () =>
        updateOwned(runId, (cur) => (cur.exit ? null : { tty })),
      ).then(() => {}),
    log,
  });

  /**
   * A write about run `runId` that failed: said once in monitor.log, as
   * `run RUN: STEP failed [CODE] (MESSAGE)`. The monitor goes on with the run's next step (`end`
   * and `restart`: what is left of a run it could not end or restart is no longer supervised).
   */
  function failed(runId: string, step: string, e: unknown): void {
    const code = errorCode(e);
    // A bug (no ariel or system error code) gets its stack too.
    const why = code === "ERR_INTERNAL" ? ((e as Error)?.stack ?? e) : ((e as Error)?.message ?? e);
    log(`run ${runId}: ${step} failed [${code}] (${why})`);
  }

  /** `fn`, or its failure logged ({@link failed}) and `undefined`: never thrown on. */
  async function attempt<T>(runId: string, step: string, fn: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      failed(runId, step, e);
      return undefined;
    }
  }

  /** One event in the run's history; not for a run removed meanwhile (its history is not recreated). */
  async function emit(
    runId: string,
    event: EventName,
    source: string | null,
    fields: Record<string, unknown>,
  ) {
    await attempt(runId, `history ${event}`, () =>
      appendHistory(root, runId, eventRecord(runId, Date.now(), event, source, fields), true),
    );
  }

  /**
   * Update a run's `run.json`; only under the run's lock. Every write of the record by the monitor
   * and by the CLIs (`kill`) is made under that lock, so the record's own lock file would exclude
   * nothing more: it is skipped (decision 0047). The write is still compare-and-swap and fsynced.
   */
  function updateOwned(runId: string, change: (cur: RunRecord) => Partial<RunRecord> | null) {
    return updateRun(root, runId, change, true);
  }

  /**
   * Start (or restart) the child of run `a.runId`; a command that cannot start ends the run.
   * `planned`: a new run, whose `run.json` this writes (once, with the child's identity: there
   * is no moment at which the record exists without the monitor that owns it); otherwise the
   * record is read from disk and updated.
   */
  async function launch(a: Active, first: boolean, planned?: PlannedRun): Promise<StartResult> {
    const rec: PlannedRun = planned ?? readRunSync(root, a.runId);
    if (!first && rec.kill) {
      await finish(a, { code: null, signal: null, status: a.lastStatus }, null);
      return { runId: a.runId, ok: false, status: a.lastStatus, code: "ERR_REFUSED", message: "killed" };
    }
    const paths = runPaths(root, a.runId);
    const out = openSync(paths.stdout, "a", 0o600);
    const err = openSync(paths.stderr, "a", 0o600);
    let child: ChildProcess | null = null;
    let startErr: NodeJS.ErrnoException | null = null;
    try {
      child = rec.tty
        ? await ttys.spawn(a.runId, rec, a.env)
        : nodeChildProcess().spawn(rec.argv[0]!, rec.argv.slice(1), {
            cwd: rec.cwd,
            env: a.env,
            stdio: [rec.interactive ? "pipe" : "ignore", out, err],
            detached: true,
            shell: false,
          });
      if (child.pid === undefined) {
        startErr = await new Promise<NodeJS.ErrnoException>((resolve) =>
          child?.once("error", (e) => resolve(e as NodeJS.ErrnoException)),
        );
      }
    } catch (e) {
      startErr = e as NodeJS.ErrnoException;
    }
    if (startErr || !child || child.pid === undefined) {
      const e = startErr ?? Object.assign(new Error("no pid"), { code: "ESPAWN" });
      const cwdGone = (() => {
        try {
          return !statSync(rec.cwd).isDirectory();
        } catch {
          return true;
        }
      })();
      const error = cwdGone
        ? { code: "ERR_SPAWN", message: `working directory missing: ${rec.cwd}`, exit: 125 }
        : startError(e, rec.argv[0]!);
      writeSync(err, `ariel: ${error.message}\n`);
      closeSync(out);
      closeSync(err);
      if (planned) await createRun(root, { ...planned, monitor: me }, blockingFs, true);
      const ending = finish(a, { code: null, signal: null, status: error.exit }, "spawn");
      // A new run is answered first: its worktree is settled under the task's lease, which the
      // CLI that asked holds until it has this reply (it then waits for the settled run).
      if (!planned) await ending;
      return { runId: a.runId, ok: false, status: error.exit, code: error.code, message: error.message };
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
    const recorded = record(a.runId, rec, ref, planned !== undefined);
    child.on("exit", (code, signal) => {
      a.child = null;
      void recorded
        .then(
          () => ended(a, code, signal),
          () => {}, // never recorded: launch below reports it and the run is not ours to end
        )
        .catch((e) => {
          active.delete(a.runId); // its record is gone or damaged: nothing more to supervise
          failed(a.runId, "end", e);
        });
    });
    try {
      await recorded;
    } catch (e) {
      if (!planned) throw e;
      // No run.json to supervise it by: it must not run on unseen.
      signalGroup(ref, me.bootId, "SIGKILL");
      throw e;
    }
    if (first && rec.timeoutMs !== null) {
      const t = setTimeout(() => void timeout(a, rec.graceMs), rec.timeoutMs);
      a.timers.add(t);
    }
    return { runId: a.runId, ok: true, child: ref };
  }

  /** Write the child's identity into run.json (creating it for a new run), then `process.started`. */
  async function record(runId: string, rec: PlannedRun, child: ChildRef, create: boolean): Promise<void> {
    const now = new Date().toISOString();
    if (create) await createRun(root, { ...rec, monitor: me, child, startedAt: now }, blockingFs, true);
    else
      await withLockFile(runPaths(root, runId).lock, { what: "run lock" }, () =>
        updateOwned(runId, (cur) => ({ monitor: me, child, startedAt: cur.startedAt ?? now })),
      );
    await emit(runId, "process.started", rec.source, {
      pid: child.pid,
      pgid: child.pgid,
      attempt: rec.restart.count + 1,
    });
  }

  /**
   * Drop what is over the output cap from the head of the run's streams (one pass at a time per
   * run). A stream that cannot be capped is said once (monitor log, `output.uncapped` event) and
   * then kept whole.
   */
  function capRun(a: Active): Promise<void> {
    a.capping ??= (async () => {
      try {
        for (const stream of ["stdout", "stderr"] as const) {
          if (a.uncapped.has(stream)) continue;
          const r = await capStream(runPaths(root, a.runId), stream, cap, puncher.punch);
          if (r === null || !("error" in r)) continue;
          a.uncapped.add(stream);
          log(`output cap of ${a.runId} ${stream}: ${r.error}; kept whole`);
          await emit(a.runId, "output.uncapped", null, { stream, cap, reason: r.error });
        }
      } catch (e) {
        log(`output cap of ${a.runId}: ${(e as Error).message}`);
      } finally {
        await testPause("monitor:output-checked"); // a test counts the passes made (one line each)
        a.capping = null;
      }
    })();
    return a.capping;
  }

  async function timeout(a: Active, graceMs: number): Promise<void> {
    const paths = runPaths(root, a.runId);
    await withLockFile(paths.lock, { what: "run lock" }, async () => {
      // A child that already exited is not killed by its timeout: its end is being recorded.
      const cur = await updateOwned(a.runId, (c) =>
        c.kill || c.exit || !a.child
          ? null
          : { kill: { requestedAt: new Date().toISOString(), signal: "SIGTERM", reason: "timeout" } },
      );
      if (cur.kill?.reason !== "timeout" || !cur.child || !a.child) return;
      signalGroup(cur.child, me.bootId, "SIGTERM");
      const child = cur.child;
      const t = setTimeout(() => signalGroup(child, me.bootId, "SIGKILL"), graceMs);
      a.timers.add(t);
    });
  }

  async function ended(a: Active, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    busy++;
    let finalized = false;
    try {
      const status = childStatus(code, signalNumber(signal));
      const how = { code, signal, status };
      a.lastStatus = status;
      const paths = runPaths(root, a.runId);
      // The output as it stays if the run ends here (a pass for nothing before a restart, which
      // costs a stat per stream): capped before the run lock, so that one hold of the lock
      // decides the restart and, when there is none, records the end (decision 0047).
      await settleOutput(a);
      const next = await withLockFile(paths.lock, { what: "run lock" }, async () => {
        const rec = readRunSync(root, a.runId);
        const decision = decideRestart(rec.restart, {
          status,
          killed: rec.kill !== null,
          ranMs: Date.now() - a.startedMs,
        });
        await emit(a.runId, "process.exited", rec.source, { code, signal, status });
        if (!decision.restart) return { end: await recordEnd(a, rec, how, null), restartIn: 0 };
        await updateOwned(a.runId, (cur) => ({
          child: null,
          restart: { ...cur.restart, count: decision.count },
        }));
        return { end: null, restartIn: decision.delayMs };
      });
      if (next.end) {
        finalized = true;
        await afterEnd(a, next.end);
        return;
      }
      const restartIn = next.restartIn;
      // Back off, looking every BACKOFF_POLL_MS for a kill request: a killed run never restarts.
      const due = Date.now() + restartIn;
      const t = setInterval(
        () => {
          let killed = false;
          try {
            killed = readRunSync(root, a.runId).kill !== null;
          } catch {
            killed = true; // removed meanwhile: nothing to restart
          }
          if (!killed && Date.now() < due) return;
          clearInterval(t);
          a.timers.delete(t);
          void launch(a, false).catch((e) => {
            active.delete(a.runId);
            failed(a.runId, "restart", e);
          });
        },
        Math.min(BACKOFF_POLL_MS, restartIn),
      );
      a.timers.add(t);
    } finally {
      if (finalized) active.delete(a.runId);
      busy--;
      lastActivity = Date.now();
    }
  }

  /** Wait for a cap pass that may have looked before the child's last writes, then cap once more. */
  async function settleOutput(a: Active): Promise<void> {
    await a.capping;
    await capRun(a);
  }

  /**
   * Under the run's lock: `exit.json` (the first final state wins) and the end in `run.json`.
   * The run's timers go first: nothing of this child may signal or restart after its end.
   */
  async function recordEnd(
    a: Active,
    rec: RunRecord,
    how: { code: number | null; signal: string | null; status: number },
    reason: string | null,
  ): Promise<{ rec: RunRecord; exit: ExitRecord }> {
    for (const t of a.timers) clearTimeout(t as ReturnType<typeof setTimeout>);
    a.timers.clear();
    const endedAt = new Date().toISOString();
    const ours: ExitRecord = {
      v: 1,
      type: "exit",
      runId: a.runId,
      code: how.code,
      signal: how.signal,
      status: how.status,
      endedAt,
      state: exitState(how.status, rec.kill !== null),
      reason: rec.kill?.reason ?? reason,
    };
    // A write that fails is logged and the end goes on (worktree, hook, run.finished) with ours.
    const exit = (await attempt(a.runId, "exit.json", () => writeExitOnce(root, ours))) ?? ours;
    await testPause("monitor:after-exit-json"); // a test kills the monitor here
    const { v: _v, type: _t, runId: _r, ...info } = exit;
    await attempt(a.runId, "run.json end", () =>
      updateOwned(a.runId, () => ({ exit: info, endedAt: exit.endedAt })),
    );
    return { rec, exit };
  }

  /** After the end is recorded: the worktree (isolated runs), the --on-exit hook, `run.finished`. */
  async function afterEnd(a: Active, { rec, exit }: { rec: RunRecord; exit: ExitRecord }): Promise<void> {
    await testPause("monitor:before-settle"); // a test holds the monitor here (exit.json, endedAt written)
    if (rec.isolate?.created && rec.task) {
      await finishWorktree(rec);
    }
    const hook = rec.onExit ? await runHook(rec, a.env, exit) : null;
    await emit(a.runId, "run.finished", null, {
      state: exit.state,
      status: exit.status,
      code: exit.code,
      signal: exit.signal,
      ...(hook ? { onExit: hook } : {}),
    });
    if (rec.notify) await ttys.notifyExit(rec, a.env, exit.status, exit.state);
  }

  /**
   * exit.json, then the final events; then the worktree (isolated runs) and the --on-exit hook.
   * Never throws: a run it cannot end (its lock or `run.json` unreadable) is said once as step
   * `end`, as when its child exits ({@link ended}), and is no longer supervised.
   */
  async function finish(
    a: Active,
    how: { code: number | null; signal: string | null; status: number },
    reason: string | null,
  ): Promise<void> {
    busy++;
    try {
      for (const t of a.timers) clearTimeout(t as ReturnType<typeof setTimeout>);
      a.timers.clear();
      await settleOutput(a);
      await testPause("monitor:before-end"); // a test breaks the run's lock here
      const paths = runPaths(root, a.runId);
      const end = await withLockFile(paths.lock, { what: "run lock" }, async () =>
        recordEnd(a, readRunSync(root, a.runId), how, reason),
      );
      await afterEnd(a, end);
    } catch (e) {
      failed(a.runId, "end", e);
    } finally {
      active.delete(a.runId);
      busy--;
      lastActivity = Date.now();
    }
  }

  async function finishWorktree(rec: RunRecord): Promise<void> {
    let outcome: {
      outcome: "removed" | "kept" | "snapshotted";
      reason: string | null;
      fields: Record<string, unknown>;
    };
    try {
      const [r] = await worktreeIsolation.finish(hostPorts(), {
        root,
        taskId: rec.task!,
        sources: [rec.source ?? "."],
        onExit: rec.isolate!.onExit,
        runId: rec.runId,
      });
      outcome = { outcome: r?.outcome ?? "kept", reason: r?.reason ?? null, fields: r?.fields ?? {} };
    } catch (e) {
      failed(rec.runId, "worktree settle", e);
      outcome = {
        outcome: "kept",
        reason: isArielError(e) ? e.code : "ERR_INTERNAL",
        fields: { message: (e as Error).message },
      };
    }
    // The event first: whoever reads worktreeOutcome in run.json finds the event in the history.
    await emit(rec.runId, `worktree.${outcome.outcome}`, rec.source, {
      task: rec.task,
      worktree: rec.worktree,
      branch: rec.branch,
      ...(outcome.reason !== null ? { reason: outcome.reason } : {}),
      ...outcome.fields,
    });
    await attempt(rec.runId, "run.json worktreeOutcome", () =>
      withLockFile(runPaths(root, rec.runId).lock, { what: "run lock" }, () =>
        updateOwned(rec.runId, () => ({
          worktreeOutcome: { outcome: outcome.outcome, reason: outcome.reason },
        })),
      ),
    );
  }

  /**
   * `--on-exit CMD`: argv, no shell, with the run's ARIEL_* env and ARIEL_EXIT_CODE; output to
   * on-exit.log. When that log cannot be opened (the run was removed) the failure is logged and
   * the hook still runs, its output discarded. Bounded: after `onExitTimeoutMs` (default
   * {@link ON_EXIT_TIMEOUT_MS}) its process group gets SIGTERM, and SIGKILL once the hook has
   * exited or `graceMs` has passed, whichever is first. What became of it goes into `run.finished`.
   */
  async function runHook(rec: RunRecord, env: Record<string, string>, exit: ExitRecord): Promise<HookEnd> {
    const argv = rec.onExit!;
    const path = runPaths(root, rec.runId).onExit;
    const fd = (await attempt(rec.runId, "on-exit.log", () => openSync(path, "a", 0o600))) ?? null;
    const say = (why: string) => {
      if (fd === null) log(`run ${rec.runId}: ${why}`);
      else writeSync(fd, `ariel: ${why}\n`);
    };
    try {
      const hook = nodeChildProcess().spawn(argv[0]!, argv.slice(1), {
        cwd: root,
        env: {
          ...env,
          ARIEL_EXIT_CODE: String(exit.status),
          ARIEL_RUN_STATE: exit.state,
          ...(rec.name ? { ARIEL_RUN_NAME: rec.name } : {}),
        },
        stdio: ["ignore", fd ?? "ignore", fd ?? "ignore"],
        detached: true,
      });
      return await boundHook(hook, rec.onExitTimeoutMs ?? ON_EXIT_TIMEOUT_MS, rec.graceMs, say, argv[0]!);
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }

  async function handle(req: MonitorRequest): Promise<MonitorReply> {
    if (req.v !== 1)
      return { v: 1, ok: false, code: "ERR_MONITOR", message: `protocol v${req.v} not spoken` };
    if (req.op === "ping") return { v: 1, ok: true, pid: process.pid };
    if (req.op === "start" || req.op === "create") {
      const results: StartResult[] = [];
      for (const r of req.runs) {
        const planned = "record" in r ? r.record : undefined;
        if (req.op === "create") {
          const why = plannedProblem(planned, r.runId, root);
          if (why !== null) {
            results.push({ runId: r.runId, ok: false, status: 125, code: "ERR_MONITOR", message: why });
            continue;
          }
        }
        const a: Active = {
          runId: r.runId,
          env: r.env,
          child: null,
          startedMs: Date.now(),
          lastStatus: 1,
          timers: new Set(),
          capping: null,
          uncapped: new Set(),
        };
        active.set(r.runId, a);
        try {
          results.push(await launch(a, true, planned));
        } catch (e) {
          active.delete(r.runId);
          results.push({
            runId: r.runId,
            ok: false,
            status: 125,
            code: isArielError(e) ? e.code : "ERR_SPAWN",
            message: (e as Error).message,
          });
        }
      }
      return { v: 1, ok: true, pid: process.pid, results };
    }
    if (req.op === "input") {
      const a = active.get(req.runId);
      const stdin = a?.child?.stdin;
      if (!stdin)
        return { v: 1, ok: false, code: "ERR_RUN_NOT_FOUND", message: "no interactive child for this run" };
      if (req.data === "") stdin.end();
      else stdin.write(Buffer.from(req.data, "base64"));
      return { v: 1, ok: true, pid: process.pid };
    }
    return { v: 1, ok: false, code: "ERR_MONITOR", message: "unknown op" };
  }

  function serve(sock: Socket): void {
    connections++;
    lastActivity = Date.now();
    let buf = "";
    let chain = Promise.resolve();
    sock.setEncoding("utf8");
    sock.on("error", () => {});
    sock.on("close", () => {
      connections--;
      lastActivity = Date.now();
    });
    sock.on("data", (text: string) => {
      buf += text;
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (ttys.takeLine(sock, line)) continue; // attach to a tty run, and its clients' keys
        chain = chain.then(async () => {
          let reply: MonitorReply;
          try {
            reply = await handle(JSON.parse(line) as MonitorRequest);
          } catch (e) {
            reply = { v: 1, ok: false, code: "ERR_MONITOR", message: (e as Error).message };
          }
          if (!sock.destroyed)
            sock.write(`${serializeRecord(reply as unknown as Record<string, unknown>)}\n`);
          lastActivity = Date.now();
        });
      }
    });
  }

  const server: Server = net.createServer(serve);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  const socketIno = statSync(socketPath).ino;
  const info = monitorPaths(root).info;
  await writeAtomic(info, `${JSON.stringify({ v: 1, type: "monitor", ...me, socket: socketPath })}\n`);
  log(`listening on ${socketPath} for ${root}`);
  const diskTick = watchDisk(root, () => [...active.keys()], emit);
  const capTick = setInterval(
    () => {
      for (const a of active.values()) if (a.capping === null) void capRun(a);
    },
    Number(process.env.ARIEL_RUN_OUTPUT_POLL_MS ?? DEFAULT_OUTPUT_POLL_MS),
  );

  await new Promise<void>((resolve) => {
    const idle = () =>
      active.size === 0 && busy === 0 && connections === 0 && Date.now() - lastActivity >= idleMs;
    let unlinked = false;
    const exit = () => {
      clearInterval(tick);
      clearInterval(diskTick);
      clearInterval(capTick);
      puncher.close();
      // Not close(): libuv unlinks the bound path when it closes a listener, and by now that
      // path may be a new monitor's socket. Unreferenced, the listener goes with the process.
      server.unref();
      try {
        const cur = JSON.parse(readFileSync(info, "utf8")) as { pid?: number };
        if (cur.pid === process.pid) rmSync(info, { force: true });
      } catch {}
      log("idle: exiting");
      resolve();
    };
    const tick = setInterval(
      () => {
        if (!idle()) return;
        if (unlinked) return exit();
        // Unlink first: a CLI that finds no socket starts a new monitor (under the monitor lock).
        unlinked = true;
        try {
          if (statSync(socketPath).ino === socketIno) rmSync(socketPath, { force: true });
        } catch {}
        // A CLI that connected an instant before still waits in the listen backlog (exiting now
        // would leave its request unanswered): this turn's poll accepts it before the immediate
        // runs, which then finds a client and stays to serve it.
        setImmediate(() => {
          if (idle()) exit();
        });
      },
      Math.min(1000, Math.max(50, idleMs / 4)),
    );
  });
  return 0;
}

/** The code of a failed write: an ariel error code, a system error code (ENOENT, ENOSPC), or ERR_INTERNAL. */
function errorCode(e: unknown): string {
  if (isArielError(e)) return e.code;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" ? code : "ERR_INTERNAL";
}

/**
 * A CLI's entry point: `--ariel-run-monitor ROOT SOCKET` (hidden, how `ariel-spawn --detach`
 * starts the workspace's monitor from the CLI's own bundle) runs the monitor, anything else the
 * CLI. Resolves with the exit status.
 */
export function runCliOrMonitor(argv: readonly string[], cli: () => Promise<number>): Promise<number> {
  const [first, root, socket] = argv;
  return first === MONITOR_ARG && root !== undefined && socket !== undefined
    ? runMonitor(root, socket)
    : cli();
}

/**
 * Why a run record a client asks the monitor to create cannot be written, or null: it must be
 * a whole new record of this workspace (checked like any run.json read from disk).
 */
function plannedProblem(planned: PlannedRun | undefined, runId: string, root: string): string | null {
  if (planned === undefined || planned.runId !== runId) return "no record for this run";
  const why = runRecordProblem({ ...planned, version: 1, fencingToken: 0 });
  if (why !== null) return `the run record is not valid (${why})`;
  if (planned.backend !== "local" || planned.workspace.root !== root)
    return "not a local run of this workspace";
  const { monitor, child, exit, kill, endedAt } = planned;
  if ([monitor, child, exit, kill, endedAt].some((v) => v !== null)) return "not a new run";
  return null;
}

/** How often the monitor compares the free space with config minFreeBytes (env overrides, for tests). */
const DEFAULT_DISK_POLL_MS = 5000;

/**
 * While runs are active, compare the free space of the worktree root's filesystem with the
 * config's `minFreeBytes` (read again each time) and write one `disk.low` event to every active
 * run when it falls under it; once it is back above, the next fall is reported again.
 */
function watchDisk(
  root: string,
  runs: () => string[],
  emit: (
    runId: string,
    event: EventName,
    source: string | null,
    fields: Record<string, unknown>,
  ) => Promise<void>,
): ReturnType<typeof setInterval> {
  let low = false;
  let checking = false;
  const check = async () => {
    const ids = runs();
    if (ids.length === 0 || checking) return;
    checking = true;
    try {
      const config = await loadConfig(nodeFs, root).catch(() => null);
      const min = config?.minFreeBytes ?? 0;
      const space = min > 0 ? await freeSpace(config?.worktreeRoot ?? root) : null;
      if (space === null || space.free >= min) {
        low = false;
        return;
      }
      if (low) return;
      low = true;
      for (const id of ids) {
        await emit(id, "disk.low", null, { free: space.free, minFreeBytes: min, path: space.path });
      }
    } finally {
      await testPause("monitor:disk-checked"); // a test counts the checks made (one line each)
      checking = false;
    }
  };
  const t = setInterval(
    () => void check().catch(() => {}),
    Number(process.env.ARIEL_DISK_POLL_MS ?? DEFAULT_DISK_POLL_MS),
  );
  t.unref?.();
  return t;
}

/** What became of an `--on-exit` hook: its end (null when it could not start) and whether it was stopped. */
interface HookEnd {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
}

/** SIGTERM/SIGKILL to process group `pgid`; one that is gone already is fine. */
function signalHookGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, signal);
  } catch {} // the group is gone
}

/**
 * Wait for a hook (its own process group, `detached`) to exit, at most `limitMs`: then SIGTERM
 * to the group, and SIGKILL to it as soon as the leader has exited (what it left behind) or after
 * `graceMs`. Each step is said in the hook's log by `say`.
 */
function boundHook(
  hook: ChildProcess,
  limitMs: number,
  graceMs: number,
  say: (why: string) => void,
  name: string,
): Promise<HookEnd> {
  return new Promise<HookEnd>((resolve) => {
    let timedOut = false;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const limit = setTimeout(() => {
      timedOut = true;
      say(`on-exit hook still running after ${limitMs} ms: SIGTERM to its process group`);
      signalHookGroup(hook.pid, "SIGTERM");
      grace = setTimeout(() => {
        say(`on-exit hook still running ${graceMs} ms after SIGTERM: SIGKILL to its process group`);
        signalHookGroup(hook.pid, "SIGKILL");
      }, graceMs);
    }, limitMs);
    const done = (end: HookEnd) => {
      clearTimeout(limit);
      clearTimeout(grace);
      if (timedOut) signalHookGroup(hook.pid, "SIGKILL");
      resolve(end);
    };
    hook.once("error", (e) => {
      say(`on-exit hook: ${(e as NodeJS.ErrnoException).code ?? e.message}: ${name}`);
      done({ code: null, signal: null, timedOut: false });
    });
    hook.once("exit", (code, signal) => done({ code, signal, timedOut }));
  });
}
