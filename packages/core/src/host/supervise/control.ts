import { existsSync } from "node:fs";
import { ArielError, isArielError } from "../../errors.ts";
import { portEnv } from "../../lifecycle/ports.ts";
import type { Ports } from "../../ports.ts";
import { presetFor, resumeArgv } from "../../runs/attention/classify.ts";
import type { RunBackend, RunView } from "../../runs/backend.ts";
import { runPaths } from "../../runs/paths.ts";
import { respawnPlan } from "../../runs/plan.ts";
import type { RunRecord } from "../../runs/record.ts";
import { FINAL_STATES, isExitState, runIsLive, runIsOver } from "../../runs/state.ts";
import { shellWords } from "../../shell_words.ts";
import { makeRunId } from "../../spawn/run_id.ts";
import { withLease } from "../lease-store.ts";
import { withLockFile } from "../lock-file.ts";
import { processStartTime, sleep } from "../proc.ts";
import { stillSettling } from "../runs/active.ts";
import { readAgentSummary } from "../runs/agent_history.ts";
import { isSameProcess } from "../runs/identity.ts";
import { updateRun } from "../runs/store.ts";
import { leaseOptions } from "../worktree/fence.ts";
import { ownerOf } from "../worktree/owner.ts";
import { restoreTask } from "../worktree/restore.ts";
import { readTask } from "../worktree/store.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { startPlanned } from "./detach.ts";

/** How often waiting commands look again (state is derived from files and /proc, no daemon to ask). */
export const POLL_MS = 100;
/** At most how long `wait` goes without asking the Kubernetes API about a k8s run (pod events wake it sooner). */
const K8S_POLL_MS = 2_000;
/** After SIGKILL, how long `kill` waits for the group to go before it gives up. */
const KILL_WAIT_MS = 5_000;
/** How long `respawn` waits for the monitor to settle a run it killed (its worktree's fate) before it starts anew. */
const SETTLE_WAIT_MS = 30_000;

/**
 * Hold run `runId`'s lock (the monitor's final write takes it too). A run removed meanwhile (its
 * directory is gone) is ERR_RUN_NOT_FOUND, never a lock file in a re-made directory.
 */
export async function withRunLock<T>(root: string, runId: string, fn: () => Promise<T>): Promise<T> {
  const gone = () =>
    new ArielError("ERR_RUN_NOT_FOUND", `no run ${JSON.stringify(runId)} (removed meanwhile)`);
  if (!existsSync(runPaths(root, runId).dir)) throw gone();
  try {
    return await withLockFile(runPaths(root, runId).lock, { what: "run lock", timeoutMs: 15_000 }, fn);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw gone();
    throw e;
  }
}

/** The run's view, or null once it was removed. */
async function viewOrNull(backend: RunBackend, runId: string): Promise<RunView | null> {
  try {
    return await backend.get(runId);
  } catch (e) {
    if ((e as ArielError).code === "ERR_RUN_NOT_FOUND") return null;
    throw e;
  }
}

export type KillStart =
  | { kind: "ended"; view: RunView }
  | { kind: "signalled"; view: RunView }
  | { kind: "requested"; view: RunView };

/**
 * The first half of `kill`, under the run's lock: a final run is left alone (the first final
 * state wins); a live one gets its kill recorded in `run.json` (so its end reads `killed`) and
 * `signal` sent to its process group, after checking the group is ours. A recorded pid that now
 * belongs to another process is ERR_NOT_OURS (3): nothing is signalled.
 */
export async function beginKill(
  root: string,
  backend: RunBackend,
  runId: string,
  signal: string,
  reason: "kill" | "respawn",
): Promise<KillStart> {
  const view = await backend.get(runId);
  if (FINAL_STATES.has(view.state) && view.state !== "lost") return { kind: "ended", view };
  const child = view.record.child;
  if (child && !(await backend.groupAlive(view))) {
    if (processStartTime(child.pid) !== null && view.state === "lost") {
      throw new ArielError(
        "ERR_NOT_OURS",
        `run ${view.record.runId}: pid ${child.pid} is now another process; nothing was signalled`,
        {
          hint: "the run's process is gone and its pid was reused; ariel never signals a process it did not start",
          context: { runId: view.record.runId, pid: child.pid },
        },
      );
    }
    // Ended this instant: the monitor is writing its exit; wait for it, signal nothing.
    return { kind: "requested", view };
  }
  if (view.state !== "lost") {
    await updateRun(root, runId, (cur) =>
      cur.kill || cur.exit ? null : { kill: { requestedAt: new Date().toISOString(), signal, reason } },
    );
  }
  // A k8s run has no local process: its "signal" deletes its Job (the backend decides).
  if (!child && view.record.backend !== "k8s")
    return { kind: view.state === "lost" ? "ended" : "requested", view };
  await backend.signal(view, signal);
  return { kind: "signalled", view };
}

/**
 * The second half of `kill`, without the lock: wait up to `graceMs` for the run to end and its
 * whole group to go, then SIGKILL the group and wait again. Returns the run's view at the end.
 */
export async function finishKill(
  backend: RunBackend,
  start: KillStart,
  graceMs: number,
): Promise<RunView | null> {
  if (start.kind === "ended") return start.view;
  const runId = start.view.record.runId;
  // null: removed meanwhile (rm removes only final runs, so it ended)
  const gone = async (): Promise<RunView | null | undefined> => {
    const v = await viewOrNull(backend, runId);
    if (v === null) return null;
    return (await runIsOver(v.state, () => backend.groupAlive(v))) ? v : undefined;
  };
  const until = async (ms: number) => {
    for (const deadline = Date.now() + ms; ; ) {
      const v = await gone();
      if (v !== undefined || Date.now() >= deadline) return v;
      await sleep(POLL_MS);
    }
  };
  const soft = await until(graceMs);
  if (soft !== undefined) return soft;
  const cur = await viewOrNull(backend, runId);
  if (cur === null) return null;
  await backend.signal(cur, "SIGKILL");
  const hard = await until(KILL_WAIT_MS);
  return hard !== undefined ? hard : await viewOrNull(backend, runId);
}

/** `kill RUN`: begin under the lock, finish outside it. */
export async function killRun(
  root: string,
  backend: RunBackend,
  runId: string,
  options: { signal: string; graceMs: number },
): Promise<{ view: RunView | null; alreadyEnded: boolean }> {
  const start = await withRunLock(root, runId, () => beginKill(root, backend, runId, options.signal, "kill"));
  const view = await finishKill(backend, start, options.graceMs);
  return { view, alreadyEnded: start.kind === "ended" };
}

/**
 * Wait until every run is final (and an isolated run's worktree is settled, while its monitor
 * lives). Resolves with the views, or null at `timeoutMs`.
 */
export async function waitRuns(
  backend: RunBackend,
  runIds: readonly string[],
  options: { timeoutMs: number | null; signal?: AbortSignal },
): Promise<RunView[] | null> {
  const deadline = options.timeoutMs === null ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  for (;;) {
    const views = await Promise.all(runIds.map((id) => backend.get(id)));
    if (views.every(settled)) return views;
    if (Date.now() >= deadline || options.signal?.aborted) return null;
    // A k8s run's state costs API requests: wait for a pod event (or K8S_POLL_MS at most).
    const k8s = views.filter((v) => v.record.backend === "k8s" && !settled(v));
    const every = k8s.length > 0 ? K8S_POLL_MS : POLL_MS;
    const ms = Math.min(every, Math.max(1, deadline - Date.now()));
    if (k8s.length > 0 && backend.changes) await backend.changes(k8s, ms, options.signal);
    else await sleep(ms, options.signal);
  }
}

/**
 * Final, and nothing more to record: the monitor wrote `endedAt` and an isolated run's worktree
 * outcome, or it is gone (died after `exit.json`): then nobody will, and `exit.json` stands.
 */
function settled(v: RunView): boolean {
  if (!FINAL_STATES.has(v.state)) return false;
  if (!isExitState(v.state)) return true;
  const recorded =
    v.record.endedAt !== null &&
    (v.record.isolate === null || !v.record.isolate.created || v.record.worktreeOutcome !== null);
  return recorded || v.record.monitor === null || !isSameProcess(v.record.monitor);
}

/**
 * ERR_RUN_LIVE (3) for `rm` of a run not over yet; the hint names it as the user did (`ref`),
 * never a `RUN` placeholder.
 */
function liveError(view: RunView, busy: boolean, ref: string): ArielError {
  const runId = view.record.runId;
  const arg = shellWords([ref]);
  const named = runLabel(view.record);
  return new ArielError(
    "ERR_RUN_LIVE",
    busy
      ? `run ${named} is ${view.state} but its monitor is still settling it; nothing was removed`
      : `run ${named} is ${view.state}; nothing was removed`,
    {
      hint: busy
        ? `wait for it (ariel-runs wait ${arg}), then rm again, or pass --force to wait here (ariel-runs rm --force ${arg})`
        : `stop it first (ariel-runs kill ${arg}), or kill and remove it at once: ariel-runs rm --force ${arg}`,
      context: { runId, state: view.state },
    },
  );
}

/**
 * `rm --force RUN` of a run whose record cannot be read (RUN its exact id): its directory and
 * history go, under the run lock. Nothing is signalled: a record that cannot be read names no
 * process to signal (docs/runs.md). "readable" when the record reads again by the time the lock
 * is held (the caller then removes it as any other run), "removed" (or, with `dryRun`, would be).
 */
export async function removeCorruptRun(
  root: string,
  backend: RunBackend,
  runId: string,
  dryRun: boolean,
): Promise<"readable" | "removed"> {
  return withRunLock(root, runId, async () => {
    try {
      await backend.get(runId);
      return "readable";
    } catch (e) {
      if (!isArielError(e) || e.code !== "ERR_RECORD_CORRUPT") throw e;
    }
    if (!dryRun) await backend.remove(runId);
    return "removed";
  });
}

/**
 * `rm RUN`: a final run is removed; a live one is refused (ERR_RUN_LIVE, 3; its hint names the run
 * as `ref`, the RUN the user gave) unless `force` kills it first. A run whose monitor is still settling it (see {@link stillSettling}) counts as live: refused,
 * or with `force` waited for (up to SETTLE_WAIT_MS), then removed under the run lock.
 */
export async function removeRun(
  root: string,
  backend: RunBackend,
  runId: string,
  options: { force: boolean; graceMs: number; dryRun: boolean; ref?: string },
): Promise<RunView> {
  const ref = options.ref ?? runId;
  const first = await withRunLock(root, runId, async () => {
    const view = await backend.get(runId);
    const busy = stillSettling(root, view);
    const live = busy || (await runIsLive(view.state, () => backend.groupAlive(view)));
    if (live && !options.force) throw liveError(view, busy, ref);
    if (options.dryRun) return { view, start: null, done: true };
    if (!live) {
      await backend.remove(runId);
      return { view, start: null, done: true };
    }
    const start = busy ? null : await beginKill(root, backend, runId, "SIGTERM", "kill");
    return { view, start, done: false };
  });
  if (first.done) return first.view;
  let view =
    first.start === null
      ? first.view
      : ((await finishKill(backend, first.start, options.graceMs)) ?? first.view);
  // After the end the monitor still settles the run (worktree, hook, run.finished): wait for it.
  for (const deadline = Date.now() + SETTLE_WAIT_MS; ; await sleep(POLL_MS)) {
    const cur = await viewOrNull(backend, runId);
    if (cur === null || !stillSettling(root, cur) || Date.now() >= deadline) break;
  }
  try {
    await withRunLock(root, runId, async () => {
      const cur = await viewOrNull(backend, runId);
      if (cur === null) return;
      view = cur;
      if (stillSettling(root, cur)) throw liveError(cur, true, ref);
      await backend.remove(runId);
    });
  } catch (e) {
    // Another `rm` removed it while this one waited: what was asked is done.
    if ((e as ArielError).code !== "ERR_RUN_NOT_FOUND") throw e;
  }
  return view;
}

/**
 * `respawn RUN`: the same spec under a new run id, linked by `respawnOf`. Checked first (a local
 * run's directory must still be there, or for an isolated run its removed worktree is restored
 * on the same task and branch; a k8s run's Job plan and kubeconfig must be readable), so a
 * respawn that cannot start leaves the original alone; a live original is killed (TERM, then
 * KILL after `graceMs`; a k8s run's Job deleted) before the new one starts.
 */
export async function respawnRun(
  ports: Ports,
  root: string,
  backend: RunBackend,
  runId: string,
  options: { graceMs: number; dryRun: boolean; resume?: boolean },
): Promise<{
  old: RunView | null;
  planned: ReturnType<typeof respawnPlan>;
  started: RunView | null;
  status: number;
  /** With `resume`: the session it resumes (the one its agent reported last), or null (the latest conversation). */
  session?: string | null;
}> {
  const old = await backend.get(runId);
  const rec = old.record;
  // A k8s run starts again as a new Job from its recorded plan; checked now, before any kill.
  const startOther = backend.prepareRespawn ? await backend.prepareRespawn(rec) : null;
  if (startOther === null) await checkLocalRespawn(ports, root, rec, options.dryRun);
  const planned = respawnPlan(rec, {
    runId: makeRunId(ports.clock, ports.random),
    createdAt: new Date(ports.clock.now()).toISOString(),
  });
  const session = options.resume ? (readAgentSummary(root, rec.runId).session?.id ?? null) : undefined;
  if (options.resume) planned.argv = resumedArgv(rec, session ?? null);
  const resumed = session === undefined ? {} : { session };
  if (options.dryRun) return { old, planned, started: null, status: 0, ...resumed };
  const start = await withRunLock(root, runId, () => beginKill(root, backend, runId, "SIGTERM", "respawn"));
  const ended = await finishKill(backend, start, options.graceMs);
  if (startOther === null && ended !== null && start.kind !== "ended") {
    // Final is not settled: after the exit the monitor still settles the old run, and an
    // isolated run's clean worktree (--on-exit remove) is removed only then. Starting in it
    // before would race that removal; wait for the worktree's fate (restored below if it went).
    await waitRuns(backend, [runId], { timeoutMs: SETTLE_WAIT_MS });
  }
  if (startOther !== null) {
    // A refused create throws here: the new run is recorded failed (job-not-created); the old
    // one stays as it ended.
    await startOther(planned);
    return { old: ended, planned, started: await backend.get(planned.runId), status: 0, ...resumed };
  }
  const env: Record<string, string> = {
    ARIEL_WORKSPACE_ROOT: rec.workspace.root,
    ARIEL_WORKSPACE_HASH: rec.workspace.hash,
    ARIEL_RUN_ID: planned.runId,
    ...(rec.source !== null ? { ARIEL_SOURCE: rec.source } : {}),
    ...(rec.task !== null ? { ARIEL_TASK: rec.task } : {}),
    ...(rec.worktree !== null ? { ARIEL_WORKTREE: rec.worktree } : {}),
    ...(rec.branch !== null ? { ARIEL_BRANCH: rec.branch } : {}),
  };
  // An isolated run's worktree is checked (restored if it went) and the run started under the
  // task's lease, as ariel-spawn --detach does: gc and remove never take it in between.
  const [result] = await withRunTaskLease(ports, root, rec, async () => {
    await checkLocalRespawn(ports, root, rec, false, start.kind !== "ended");
    // The task's ports as they are now (a restore above may have leased them again).
    const task =
      rec.task !== null && rec.worktree !== null
        ? await readTask(root, rec.workspace.hash, rec.task).catch(() => null)
        : null;
    const portVars = portEnv(Object.keys(task?.ports ?? {}), task?.ports);
    return startPlanned(ports, backend, { root, hash: rec.workspace.hash }, [
      { run: planned, unit: { env: { ...env, ...portVars } } },
    ]);
  });
  const started = await backend.get(planned.runId);
  return { old: ended, planned, started, status: result && !result.ok ? result.status : 0, ...resumed };
}

/**
 * `respawn --resume`: the run's argv with its agent preset's resume form: the session its agent
 * reported (Claude Code's `--resume ID`, Codex's `resume ID`), so two agents in one directory
 * each get their own conversation back; without one, the latest conversation (`--continue`,
 * `resume --last`). ERR_USAGE when its preset has none.
 */
function resumedArgv(rec: RunRecord, session: string | null): string[] {
  const preset = presetFor(rec.agent, rec.argv);
  const argv = resumeArgv(preset, rec.argv, session);
  if (argv !== null) return argv;
  throw new ArielError(
    "ERR_USAGE",
    `run ${runLabel(rec)}: its agent preset (${preset.name}) has no resume form`,
    {
      hint: "respawn without --resume starts it afresh; presets with one: claude, codex, aider",
      context: { runId: rec.runId, agent: preset.name },
    },
  );
}

/** `fn` holding the lease of the isolated run's task (a run of no task: `fn` alone). */
async function withRunTaskLease<T>(
  ports: Ports,
  root: string,
  rec: RunRecord,
  fn: () => Promise<T>,
): Promise<T> {
  if (rec.task === null || rec.worktree === null) return fn();
  const ws = await openWorkspace(ports, root);
  return withLease(root, rec.task, leaseOptions(ports, ownerOf(ports), ws.leaseTtlMs), fn);
}

/**
 * The legs of an isolated run whose worktrees are gone (removed at its end, or since): each leg of
 * a `--span` run on its own; a record without `legs` (written before them) by its cwd.
 */
function goneLegs(rec: RunRecord): string[] {
  if (rec.task === null || rec.worktree === null) return [];
  if (rec.legs) return rec.legs.filter((l) => !existsSync(l.worktree)).map((l) => l.source);
  return existsSync(rec.cwd) ? [] : [rec.source ?? "."];
}

/**
 * A local run can start again only in its directory: an isolated run's removed worktrees (every
 * leg of a `--span` run) are restored on the same task and branch first (restore refuses, changing nothing, when it
 * cannot); a directory still missing is ERR_SOURCE_NOT_FOUND and the run is left as it is.
 */
async function checkLocalRespawn(
  ports: Ports,
  root: string,
  rec: RunRecord,
  dryRun: boolean,
  killed = false,
): Promise<void> {
  const runId = rec.runId;
  const gone = goneLegs(rec);
  if (gone.length > 0 && rec.task !== null) {
    await restoreTask(ports, { root, taskId: rec.task, sources: gone, dryRun });
  }
  if (!existsSync(rec.cwd) && !(dryRun && rec.worktree !== null)) {
    throw new ArielError(
      "ERR_SOURCE_NOT_FOUND",
      `cannot respawn ${runId}: its directory ${JSON.stringify(rec.cwd)} is gone; ${killed ? "the run was killed and nothing new started" : "the run was left as it is"}`,
      {
        hint: rec.worktree
          ? "the worktree was removed; start a new run with ariel-spawn --detach --isolate"
          : "check the source, or start a new run with ariel-spawn --detach",
        context: { runId, cwd: rec.cwd },
      },
    );
  }
}

/** A run as messages name it: `name (id)` when it has a name, else its id. */
export function runLabel(rec: Pick<RunRecord, "runId" | "name">): string {
  return rec.name ? `${rec.name} (${rec.runId})` : rec.runId;
}
