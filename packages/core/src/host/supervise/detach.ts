import { existsSync, mkdirSync, rmdirSync, rmSync } from "node:fs";
import { type Config, defaultConfig } from "../../config.ts";
import { ArielError } from "../../errors.ts";
import { redactText } from "../../fingerprint.ts";
import type { Ports } from "../../ports.ts";
import { wiringConflict } from "../../runs/agents/wiring.ts";
import { presetFor } from "../../runs/attention/classify.ts";
import type { RunBackend, RunView, StartResult } from "../../runs/backend.ts";
import { runPaths, runsDir } from "../../runs/paths.ts";
import { type DetachOptions, type PlannedRun, planRun } from "../../runs/plan.ts";
import { eventRecord } from "../../spawn/events.ts";
import { childEnv, type SpawnUnit } from "../../spawn/plan.ts";
import type { SpawnSource } from "../../spawn/resolve.ts";
import { makeRunId } from "../../spawn/run_id.ts";
import { stateDir } from "../../state_paths.ts";
import type { Workspace } from "../../workspace.ts";
import { requireStateRoot } from "../../workspace.ts";
import { enterCheckout } from "../runs/in_use.ts";
import { appendHistory } from "../runs/store.ts";
import { viewRun } from "../runs/view.ts";
import { checkSandbox } from "../sandbox/resolve.ts";
import {
  checkSpawnFloor,
  type IsolatedTask,
  type IsolateRequest,
  planUnits,
  resolveSpawnTargets,
  type SpawnIo,
  type SpawnRequest,
  spawnConfig,
} from "../spawn/run.ts";
import { withSandboxes } from "../spawn/sandbox.ts";
import { createTasks, releaseTasks } from "../spawn/tasks.ts";
import { warnWithHint } from "../warn.ts";
import { ensureWorkspaceState } from "../workspace/state_dir.ts";
import { localBackend } from "./backends/local/backend.ts";
import { neverAsked } from "./client.ts";
import { waitRuns } from "./control.ts";

/** `ariel-spawn --detach`: the spawn request plus the detached run's own options. */
export interface DetachRequest extends Omit<SpawnRequest, "jobs" | "failFast" | "json"> {
  detach: Omit<DetachOptions, "isolate" | "task" | "group">;
  /** Without --isolate: start even while another detached run works in the same checkout. */
  shared?: boolean;
}

/** What {@link startDetached} needs of its caller: where to warn, and how to make worktrees. */
export type DetachIo = Pick<SpawnIo, "log" | "isolation" | "lookup" | "stderrTerminal">;

/**
 * Whether this platform can run a detached monitor: it needs a new session (setsid) and a unix
 * socket, which Node and Deno have on Linux and macOS, not on Windows (docs/runs.md).
 */
export function canDetach(): boolean {
  return process.platform !== "win32";
}

/** A detached run planned from one unit: its record-to-be and the unit its child runs. */
export interface PlannedDetach {
  run: PlannedRun;
  unit: SpawnUnit;
}

/**
 * What {@link startDetached} did: the runs it planned (a dry run stops there), or the runs it
 * asked the backend to start, how each start went, and the views of those that have a record
 * (every started run, and one that could not start once its monitor recorded it).
 */
export type DetachResult =
  | { kind: "plan"; planned: PlannedDetach[]; tasks: readonly IsolatedTask[] }
  | { kind: "started"; planned: PlannedDetach[]; results: StartResult[]; views: RunView[] };

/**
 * The exit status of a detached start: 0 when all started; a single target that could not
 * start gives its 125/126/127, several give 1.
 *
 * @example
 * ```ts
 * startExit([{ ok: true, runId: "a" }]); // 0
 * startExit([{ ok: false, runId: "a", status: 127, code: "ERR_SPAWN", message: "not found" }]); // 127
 * ```
 */
export function startExit(results: readonly StartResult[]): number {
  const first = results.find((r) => !r.ok);
  if (first === undefined || first.ok) return 0;
  return results.length === 1 ? first.status : 1;
}

/**
 * ariel-spawn --detach end to end: resolve the targets, make the worktrees (--isolate), write one
 * `run.json` per process, have the workspace's monitor start them, and return them once every
 * child has started (or could not start). With --dry-run: the runs it would start. The caller
 * prints them ({@link writeRuns}) and exits with {@link startExit}.
 */
export async function startDetached(ports: Ports, asked: DetachRequest, io: DetachIo): Promise<DetachResult> {
  const resolved = await resolveSpawnTargets(ports, asked, io);
  const { ws, targets } = resolved;
  // An existing task named with --task may have made it a --span run (resolveSpawnTargets).
  const req: DetachRequest = resolved.isolate ? { ...asked, isolate: resolved.isolate } : asked;
  // .ariel/ changes how every later command finds its root: never made by accident.
  if (!req.dryRun) requireStateRoot(ws);
  if (!req.dryRun && !canDetach()) {
    throw new ArielError(
      "ERR_DETACH_UNAVAILABLE",
      `--detach is not available on ${process.platform}: it needs process sessions and unix sockets`,
    );
  }
  const iso: IsolateRequest | undefined = req.isolate;
  const config = req.resolved?.config ?? (await spawnConfig(ports, ws.root, iso !== undefined));
  // Never silently unsandboxed: no sandbox, nothing made (ERR_SANDBOX_UNAVAILABLE, 69).
  const sandboxed = await checkSandbox(req.sandbox, config ?? defaultConfig(ws.root), targets, {
    env: ports.env,
    cwd: ports.cwd,
    dryRun: req.dryRun,
  });
  if (!iso) inTheCheckouts(ws.root, targets, req, io);
  await checkSpawnFloor(ports, ws.root, iso !== undefined, req.minFreeBytes, "spawn --detach", config);
  const tasks =
    iso && io.isolation
      ? await createTasks(io.isolation, ports, ws.root, targets, iso, { dryRun: req.dryRun })
      : [];
  // The tasks' leases, taken before their worktrees were made, are held until the runs are
  // recorded: from then on gc and remove find them at work in them (host/runs/active.ts).
  try {
    return await startInTasks(
      ports,
      req,
      io,
      ws,
      targets,
      tasks,
      sandboxed ? (config ?? defaultConfig(ws.root)) : null,
    );
  } finally {
    await releaseTasks(tasks);
  }
}

/** A run's own options: the request's, with its task (--isolate) and how it was entered. */
function detachOptions(req: DetachRequest, task: IsolatedTask | undefined, group: string): DetachOptions {
  const iso = req.isolate;
  return {
    ...req.detach,
    group,
    task: task?.taskId ?? null,
    isolate:
      task && iso
        ? { onExit: iso.onExit, created: task.created, ...(task.joined ? { joined: [...task.joined] } : {}) }
        : null,
  };
}

/**
 * Detached runs without --isolate work in the user's own checkouts: refused where another one
 * works (ERR_CHECKOUT_IN_USE, unless `shared`), else said once on stderr.
 */
function inTheCheckouts(
  root: string,
  targets: readonly SpawnSource[],
  req: Pick<DetachRequest, "shared" | "dryRun">,
  io: DetachIo,
): void {
  for (const t of targets) enterCheckout(root, t, req.shared === true);
  if (req.dryRun) return;
  const where =
    targets.length === 1
      ? `in the checkout ${targets[0]?.path}`
      : `in the checkouts of ${targets.length} sources`;
  io.log.info(`the run works ${where} itself, not in a worktree of its own (--isolate gives it one)`);
}

/** The rest of {@link startDetached}, once the tasks (--isolate) are made, holding their leases. */
async function startInTasks(
  ports: Ports,
  req: DetachRequest,
  io: DetachIo,
  ws: Workspace,
  targets: SpawnSource[],
  tasks: readonly IsolatedTask[],
  sandboxConfig: Config | null,
): Promise<DetachResult> {
  for (const w of tasks.flatMap((t) => t.warnings ?? [])) warnWithHint(io.log, w);
  const planned = planDetached(ports, req, ws, targets, tasks, sandboxConfig);
  if (req.detach.agentReports !== false) warnUnwired(io, planned);
  if (req.dryRun) return { kind: "plan", planned, tasks };
  const backend = localBackend(ws.root, ws.hash);
  const results = await startPlanned(ports, backend, ws, planned).catch(async (e: unknown) => {
    if (neverAsked(e)) await undoUnstarted(ports, io, ws.root, planned, tasks);
    throw e;
  });
  await releaseTasks(tasks);
  await settledFailures(backend, ws.root, results);
  // A run the monitor refused before it started anything has no record: the caller says why.
  const views = results.flatMap((r) =>
    r.ok || existsSync(runPaths(ws.root, r.runId).record) ? [viewRun(ws.root, r.runId)] : [],
  );
  return { kind: "started", planned, results, views };
}

/**
 * No monitor could be reached or started, so none was asked to start anything: take back what
 * this command made for the runs, as a run that could not start would have it. Their
 * directories and first events go (no run is listed that never was), and the tasks made for
 * them (--isolate, not one that existed) are settled by their exit policy while their leases are
 * still held: a clean new worktree removed, one with anything in it kept.
 */
async function undoUnstarted(
  ports: Ports,
  io: DetachIo,
  root: string,
  planned: readonly PlannedDetach[],
  tasks: readonly IsolatedTask[],
): Promise<void> {
  for (const { run } of planned) {
    const paths = runPaths(root, run.runId);
    rmSync(paths.history, { force: true });
    try {
      rmdirSync(paths.dir); // made empty by startPlanned: never anything else's
    } catch {}
  }
  for (const task of tasks) {
    const run = planned.find((p) => p.run.task === task.taskId)?.run;
    if (!task.created || !io.isolation || !run?.isolate) continue;
    await io.isolation
      .finish(ports, {
        root,
        taskId: task.taskId,
        sources: [...task.legs.keys()],
        onExit: run.isolate.onExit,
        ...(task.lease ? { lease: task.lease } : {}),
      })
      .catch(() => []); // kept as it is: the monitor's error is what the user hears
  }
}

/**
 * An agent that could report, but whose command line ariel would have to override to wire it
 * (its own `--settings`, its own `notify`): said once per run, with what reads it instead.
 */
function warnUnwired(io: DetachIo, planned: readonly PlannedDetach[]): void {
  for (const { run } of planned) {
    const via = presetFor(run.agent ?? null, run.argv).reports?.via;
    const conflict = via === undefined ? null : wiringConflict(via, run.argv);
    if (conflict === null) continue;
    io.log.warn(
      "WARN_AGENT_REPORTS_OFF",
      `${run.name ?? run.runId}: ${conflict}, so ariel does not wire its reports: its screen tells what it does`,
      {
        runId: run.runId,
      },
    );
  }
}

/** One run per unit, each with its own run id, all in one group (ariel-runs wait --group). */
function planDetached(
  ports: Ports,
  req: DetachRequest,
  ws: Workspace,
  targets: SpawnSource[],
  tasks: readonly IsolatedTask[],
  sandboxConfig: Config | null,
): PlannedDetach[] {
  const planned = planUnits(
    { root: ws.root, hash: ws.hash, runId: "", argv: req.argv, targets },
    tasks,
    req.isolate,
  );
  const units =
    sandboxConfig === null
      ? planned
      : withSandboxes(planned, req.sandbox, sandboxConfig, {
          root: ws.root,
          targets,
          env: ports.env,
          cwd: ports.cwd,
        });
  const createdAt = new Date(ports.clock.now()).toISOString();
  const group = makeRunId(ports.clock, ports.random);
  return units.map((unit) => {
    const runId = makeRunId(ports.clock, ports.random);
    const task = tasks.find((t) => t.taskId === unit.env.ARIEL_TASK);
    const options = detachOptions(req, task, group);
    const run = planRun(unit, unit.sandbox ? { ...options, sandbox: unit.sandbox } : options, {
      runId,
      root: ws.root,
      hash: ws.hash,
      createdAt,
      several: units.length > 1,
      respawnOf: null,
    });
    return { run, unit: { ...unit, env: { ...unit.env, ARIEL_RUN_ID: runId } } };
  });
}

/** How long the CLI waits for the monitor to settle runs that could not start (their worktrees). */
const SETTLE_FAILED_MS = 15_000;

/**
 * Wait until the runs that could not start are settled by their monitor (a clean worktree
 * removed, `run.finished`): it does so once the task's lease is free, right after its reply.
 */
async function settledFailures(backend: RunBackend, root: string, results: readonly StartResult[]) {
  const ids = results.filter((r) => !r.ok && existsSync(runPaths(root, r.runId).record)).map((r) => r.runId);
  if (ids.length > 0) await waitRuns(backend, ids, { timeoutMs: SETTLE_FAILED_MS });
}

/**
 * Make each planned run's directory and write its first event, then have the backend start
 * them all and write their `run.json` (the monitor does, once the child exists: a run is never
 * on disk without the process that owns it, so it never reads `lost` while being taken over).
 * Makes `<root>/.ariel/` like any other first write (registered in the user state dir's
 * registry); callers have checked `requireStateRoot` already.
 */
export async function startPlanned(
  ports: Ports,
  backend: RunBackend,
  ws: { root: string; hash: string },
  planned: readonly { run: PlannedRun; unit: Pick<SpawnUnit, "env"> }[],
): Promise<StartResult[]> {
  const { root } = ws;
  await ensureWorkspaceState(ports, ws);
  let newRunsDir = false;
  for (const { run } of planned) {
    const dir = runPaths(root, run.runId).dir;
    const made = mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (made !== undefined && made !== dir) newRunsDir = true;
    await appendHistory(root, run.runId, runStartedEvent(run, ports.clock.now()));
  }
  // The backend fsyncs run.json and the run's own directory, not the run's entry in
  // .ariel/runs/: one fsync of that for the whole batch (and of .ariel/ when runs/ is new), so a
  // crash after a run is reported started cannot lose its directory (decision 0047).
  if (newRunsDir) await ports.fs.syncDir(stateDir(root));
  if (planned.length > 0) await ports.fs.syncDir(runsDir(root));
  return backend.start(
    planned.map((p) => ({
      runId: p.run.runId,
      env: childEnv(ports.env, { env: p.unit.env } as SpawnUnit),
      record: p.run,
    })),
  );
}

/** The first event of a detached run (its argv redacted); `extra`: what its backend adds (a k8s Job). */
export function runStartedEvent(run: PlannedRun, atMs: number, extra: Record<string, unknown> = {}) {
  const sources = run.source === null && run.legs ? run.legs.map((l) => l.source) : [run.source];
  return eventRecord(run.runId, atMs, "run.started", run.source, {
    argv: run.argv.map(redactText),
    workspace: run.workspace,
    targets: sources,
    mode: "detached",
    ...(run.task !== null ? { task: run.task } : {}),
    ...(run.legs ? { legs: run.legs } : {}),
    name: run.name,
    group: run.group ?? null,
    ...(run.respawnOf ? { respawnOf: run.respawnOf } : {}),
    ...extra,
  });
}
