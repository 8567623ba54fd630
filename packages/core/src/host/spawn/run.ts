import { CONFIG_FILE, type Config, defaultConfig, loadConfig } from "../../config.ts";
import { ArielError, isArielError } from "../../errors.ts";
import { redactText } from "../../fingerprint.ts";
import { quoteValue, validateRequestNames } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import { eventRecord } from "../../spawn/events.ts";
import { summarize, type TargetOutcome } from "../../spawn/exit.ts";
import { planSpawn, type SpawnLeg, type SpawnPlanInput, type SpawnUnit } from "../../spawn/plan.ts";
import {
  discoverLookup,
  resolveTargets,
  type SourceLookup,
  type SpawnSource,
  sourceAtCwd,
} from "../../spawn/resolve.ts";
import { makeRunId } from "../../spawn/run_id.ts";
import type { RunSummaryInput } from "../../spawn/summary.ts";
import type { TargetSpec } from "../../spawn/targets.ts";
import { userStateDir } from "../../state_home.ts";
import { stateDir } from "../../state_paths.ts";
import {
  mayCreateStateDir,
  requireStateRoot,
  resolveWorkspaceRoot,
  type Workspace,
} from "../../workspace.ts";
import { processTerminal, type Reporter } from "../cli/mod.ts";
import { checkMinFree } from "../free_space.ts";
import { nodeFs } from "../fs.ts";
import type { HeldLease, Lease } from "../lease-store.ts";
import type { LifecyclePlan } from "../lifecycle/plan_hooks.ts";
import type { Output, TextSink } from "../output.ts";
import { type OnProgress, ProgressLine } from "../progress.ts";
import { checkSandbox, type SandboxAsk } from "../sandbox/resolve.ts";
import { syncReadFs } from "../sync_fs.ts";
import { warnWithHint } from "../warn.ts";
import { noteWorkspace } from "../workspace/notice.ts";
import { ensureWorkspaceState } from "../workspace/state_dir.ts";
import { type EmitEvent, executeUnits } from "./execute.ts";
import { type FinisherOptions, WorktreeFinisher } from "./finish.ts";
import { RunHistory } from "./history.ts";
import { Interrupts } from "./interrupts.ts";
import { signalNumber } from "./process.ts";
import { ForegroundSandboxes, withSandboxes } from "./sandbox.ts";
import { existingTaskTargets } from "./task_targets.ts";
import { createTasks, releaseTasks } from "./tasks.ts";

/** What ariel-spawn was asked to do (flags already checked). */
export interface SpawnRequest {
  workspaceRoot?: string;
  /** The workspace and its config when the caller resolved them already (ariel-spawn choosing a backend). */
  resolved?: { ws: Workspace; config: Config };
  /** Targets in the order given; empty → the workspace root. */
  targets: readonly TargetSpec[];
  argv: readonly string[];
  jobs: number;
  failFast: boolean;
  graceMs: number;
  json: boolean;
  dryRun: boolean;
  isolate?: IsolateRequest;
  /** Disk floor in bytes (default: config `minFreeBytes`); checked before anything starts. */
  minFreeBytes?: number;
  /** `--sandbox`, `--no-sandbox`, `--sandbox-write`, `--sandbox-net`, `--agent` (docs/sandbox.md). */
  sandbox?: SandboxAsk;
}

export interface IsolateRequest {
  taskId?: string;
  /** Carry each source's uncommitted changes (staged, unstaged, untracked) into its leg. */
  withChanges?: boolean;
  base?: string;
  branch?: string;
  span: boolean;
  /** What happens to a worktree when its process ended: removed if clean (default), snapshotted, or kept. */
  onExit: "remove" | "snapshot" | "keep";
  /** Cone-mode sparse checkout of these directories in every new worktree (as `add --sparse`). */
  sparse?: readonly string[];
  /** Directories shared from each source into its new worktree, besides config `share` (as `add --share`). */
  share?: readonly string[];
  /** Work in an existing task that other detached runs work in (`--join`). */
  join?: boolean;
  /** --no-hooks: no post-create hook when the task is made, no pre-remove hook when it is removed. */
  noHooks?: boolean;
}

/** The task isolation made (or, in a dry run, would make). */
export interface IsolatedTask {
  taskId: string;
  taskDir: string;
  legs: Map<string, SpawnLeg & Record<string, unknown>>;
  /** False when the task existed before this run: it is used, never removed. */
  created: boolean;
  /** With --join: the runs at work in the existing task this run joined. */
  joined?: readonly string[];
  /** Coded warnings about the legs (e.g. a source's uncommitted changes left out). */
  warnings?: readonly IsolationWarning[];
  /**
   * The task's lease, held (and renewed) from before the worktrees were made until the caller
   * releases it once they are settled; absent in a dry run.
   */
  lease?: HeldLease;
  /** The task's leased ports by name (given to its commands as ARIEL_PORT_<NAME> and PORT). */
  ports?: Record<string, number>;
  /** --no-hooks was given: the finish runs no pre-remove hook either. */
  noHooks?: boolean;
  /** A dry run's new task: the ports it would lease and the hooks it would run (docs/lifecycle.md). */
  lifecycle?: LifecyclePlan;
}

/** A warning the worktree manager raised while making a task. */
export interface IsolationWarning {
  code: string;
  message: string;
  hint: string;
  context: Record<string, unknown>;
}

/** How one worktree ended up after its process: removed, kept (with why) or snapshotted. */
export interface WorktreeOutcome {
  source: string;
  outcome: "removed" | "kept" | "snapshotted";
  reason?: string;
  fields?: Record<string, unknown>;
}

/** The seam to the worktree manager (addTask/removeTask). */
export interface IsolationDriver {
  create(
    ports: Ports,
    options: {
      root: string;
      sources: readonly SpawnSource[];
      taskId?: string;
      base?: string;
      branch?: string;
      withChanges?: boolean;
      sparse?: readonly string[];
      share?: readonly string[];
      /** Enter an existing task other (detached) runs work in (else ERR_TASK_IN_USE). */
      join?: boolean;
      noHooks?: boolean;
      /** --keep: the run's end removes no worktree (so runs no pre-remove hook). */
      keep?: boolean;
      dryRun: boolean;
      onProgress?: OnProgress;
    },
  ): Promise<IsolatedTask>;
  finish(
    ports: Ports,
    options: {
      root: string;
      taskId: string;
      sources: readonly string[];
      onExit: IsolateRequest["onExit"];
      /** Called before each leg is removed or snapshotted. */
      onLeg?: (source: string, action: string) => void;
      /** The run's lease on the task: once lost (ERR_FENCED), every leg is kept, untouched. */
      lease?: Lease;
      /** The detached run whose worktree its monitor settles (not counted as using the task). */
      runId?: string;
      /** --no-hooks: no pre-remove hook. */
      noHooks?: boolean;
    },
  ): Promise<WorktreeOutcome[]>;
}

export interface SpawnIo {
  out: Output;
  stderr: TextSink;
  log: Reporter;
  /** Aborted when stdout closes. */
  abort: AbortSignal;
  /** True when stdin was not read for targets. */
  stdinFree: boolean;
  /** stderr is a terminal (progress, notes); default: asked of the process (`processTerminal`). */
  stderrTerminal?: boolean;
  /** Source lookup (defaults to discovery). */
  lookup?: (ports: Ports, root: string) => SourceLookup;
  isolation?: IsolationDriver;
}

/**
 * The disk floor of a spawn, checked before anything is written: on the worktree root's
 * filesystem for --isolate, on the workspace root's for a shared run (where a build writes). A
 * shared run does not fail over a broken config file: it only reads minFreeBytes from it.
 */
export async function checkSpawnFloor(
  ports: Ports,
  root: string,
  isolate: boolean,
  minFreeBytes: number | undefined,
  action = isolate ? "spawn --isolate" : "spawn",
  loaded?: Config | null,
): Promise<void> {
  const config = loaded !== undefined ? loaded : await spawnConfig(ports, root, isolate);
  await checkMinFree(
    config && isolate ? config.worktreeRoot : root,
    minFreeBytes ?? config?.minFreeBytes ?? 0,
    action,
  );
}

/**
 * The config a spawn reads: an isolated run fails over a broken file (ERR_CONFIG, 78); a shared
 * run goes on without one (it reads only minFreeBytes and sandbox), unless the broken file
 * mentions the sandbox: whether the run must be sandboxed cannot be told then, and a run is
 * never silently unsandboxed.
 */
export async function spawnConfig(ports: Ports, root: string, isolate: boolean): Promise<Config | null> {
  if (isolate) return loadConfig(ports.fs, root);
  try {
    return await loadConfig(ports.fs, root);
  } catch (e) {
    const text = await ports.fs.readText(`${root}/${CONFIG_FILE}`).catch(() => "");
    if (text.includes('"sandbox"')) throw e;
    return null;
  }
}

/**
 * The workspace and the targets of a spawn request (the root when none is named); with
 * --isolate every target must be a checkout. Shared by foreground and detached runs.
 * `--isolate --task T` without --source, T an existing task: its legs are the targets, and a
 * task of several legs is run as one process in its directory (`isolate` comes back with `span`).
 */
export async function resolveSpawnTargets(
  ports: Ports,
  req: Pick<SpawnRequest, "workspaceRoot" | "targets" | "isolate" | "resolved">,
  io: Pick<SpawnIo, "lookup" | "isolation" | "log" | "stderrTerminal">,
): Promise<{ ws: Workspace; targets: SpawnSource[]; isolate?: IsolateRequest }> {
  if (req.isolate) validateRequestNames(req.isolate);
  const ws = req.resolved?.ws ?? (await resolveWorkspaceRoot(ports, req.workspaceRoot));
  noteWorkspace(io.log, ws, io.stderrTerminal ?? processTerminal(ports.env).stderr);
  // Over node's own filesystem, discovery reads synchronously (~1 ms for 100 sources, against
  // ~10 ms through promises: docs/benchmarks.md, fan-out).
  const defaultLookup = (p: Ports, root: string) =>
    discoverLookup(p.fs, root, p.fs === nodeFs ? syncReadFs : undefined);
  const lookup = (io.lookup ?? defaultLookup)(ports, ws.root);
  const where = { root: ws.root, cwd: ports.cwd, lookup };
  let targets = await resolveTargets(ports.fs, where, req.targets);
  let isolate = req.isolate;
  if (req.targets.length === 0 && isolate?.taskId === undefined)
    isolate = inNamedTask(ws, isolate) ?? isolate;
  if (req.targets.length === 0) {
    const ofTask = isolate ? await existingTaskTargets(ports, ws, isolate) : null;
    if (ofTask) {
      targets = await resolveTargets(ports.fs, where, ofTask.targets);
      isolate = ofTask.isolate;
    } else {
      // None named: the source the user stands in (as git finds its checkout), else the root.
      const here = await sourceAtCwd(ports.fs, where);
      targets = [here ?? (await lookup(".")) ?? { name: ".", path: ws.root, checkout: false }];
    }
  }
  if (isolate) checkIsolatable(targets, io);
  return { ws, targets, ...(isolate ? { isolate } : {}) };
}

/**
 * `-C` (or ARIEL_WORKSPACE_ROOT) named a directory in task T, and no --source nor --task says
 * otherwise: the run works in T, as `--isolate --task T` asks (decision 0106); it never falls back
 * to the workspace root, whose checkout is the user's own.
 */
function inNamedTask(ws: Workspace, asked: IsolateRequest | undefined): IsolateRequest | null {
  const task = ws.inTask?.task;
  if (task === undefined || task === null || (ws.via !== "flag" && ws.via !== "env")) return null;
  return { ...(asked ?? { span: false, onExit: "remove" }), taskId: task };
}

/**
 * What {@link runSpawn} did: the plan of a dry run (its units, and the tasks it would make), or
 * how the run ended: its exit status and what its closing line says (`runSummaryLine`).
 */
export type SpawnResult =
  | { kind: "plan"; units: SpawnUnit[]; tasks: IsolatedTask[] }
  | { kind: "ran"; exit: number; summary: RunSummaryInput };

/**
 * ariel-spawn end to end: resolve the workspace and the targets, plan, and either return the plan
 * (--dry-run) or run it: history file, worktrees, children, cleanup, `run.finished`. The
 * children's output and (with --json) the run's events stream to `io` as they come; the caller
 * prints the plan or the closing line and exits with the status.
 */
export async function runSpawn(ports: Ports, asked: SpawnRequest, io: SpawnIo): Promise<SpawnResult> {
  const terminal = io.stderrTerminal ?? processTerminal(ports.env).stderr;
  const resolved = await resolveSpawnTargets(ports, asked, { ...io, stderrTerminal: terminal });
  const { ws, targets } = resolved;
  // An existing task named with --task may have made it a --span run (resolveSpawnTargets).
  const req: SpawnRequest = resolved.isolate ? { ...asked, isolate: resolved.isolate } : asked;
  const iso = req.isolate;
  const config = req.resolved?.config ?? (await spawnConfig(ports, ws.root, iso !== undefined));
  const sandboxed = await checkSandbox(req.sandbox, config ?? defaultConfig(ws.root), targets, {
    env: ports.env,
    cwd: ports.cwd,
    dryRun: req.dryRun,
  });
  // Tasks, worktrees and sandboxes live in <root>/.ariel/: only where that may be made (dry run too).
  if (iso || sandboxed) requireStateRoot(ws);
  await checkSpawnFloor(ports, ws.root, iso !== undefined, req.minFreeBytes, undefined, config);
  const runId = makeRunId(ports.clock, ports.random);
  const plan = (tasks: readonly IsolatedTask[]) => {
    const units = planUnits({ root: ws.root, hash: ws.hash, runId, argv: req.argv, targets }, tasks, iso);
    if (!sandboxed) return units;
    return withSandboxes(units, req.sandbox, config ?? defaultConfig(ws.root), {
      root: ws.root,
      targets,
      env: ports.env,
      cwd: ports.cwd,
    });
  };
  if (req.dryRun) {
    const tasks =
      iso && io.isolation
        ? await createTasks(io.isolation, ports, ws.root, targets, iso, { dryRun: true })
        : [];
    for (const w of tasks.flatMap((t) => t.warnings ?? [])) warnWithHint(io.log, w);
    return { kind: "plan", units: plan(tasks), tasks };
  }
  // From here on things happen: record them, and let a signal interrupt but not abort the cleanup.
  const opened = {
    ports,
    req,
    io,
    runId,
    history: await openHistory(ports, ws, runId),
    interrupts: new Interrupts(),
  };
  opened.interrupts.install();
  const fg: ForegroundRun = {
    ...opened,
    ws,
    targets,
    plan,
    sandboxed,
    progress: new ProgressLine(io.stderr, terminal && !req.json),
    emit: eventEmitter(opened),
    // The next command names the root when the cwd would not find it again.
    rootArg: (ws.via === "flag" || ws.via === "env") && ws.root !== ports.cwd ? { root: ws.root } : {},
  };
  const state: RunState = {
    outcomes: targets.map((t) => ({ source: t.name, status: null })),
    tasks: [],
    finishers: new Map(),
  };
  let failure: unknown = null;
  try {
    await executeRun(fg, state);
  } catch (e) {
    failure = e;
  }
  return closeRun(fg, state, failure);
}

/** A foreground run once it records what happens: what its steps share. */
interface ForegroundRun {
  ports: Ports;
  req: SpawnRequest;
  io: SpawnIo;
  ws: Workspace;
  targets: SpawnSource[];
  runId: string;
  plan: (tasks: readonly IsolatedTask[]) => SpawnUnit[];
  /** The run's children run in sandboxes (docs/sandbox.md). */
  sandboxed: boolean;
  history: RunHistory;
  interrupts: Interrupts;
  progress: ProgressLine;
  emit: EmitEvent;
  /** `{ root }` when the next command must name the root with -C. */
  rootArg: { root?: string };
}

/** What a foreground run has made so far: its tasks are released and its outcomes summed up however it ends. */
interface RunState {
  outcomes: TargetOutcome[];
  tasks: IsolatedTask[];
  finishers: Map<string, WorktreeFinisher>;
}

/** Each event goes to the history file, and with --json to stdout as it happens. */
function eventEmitter(fg: Pick<ForegroundRun, "ports" | "req" | "io" | "history" | "runId">): EmitEvent {
  const { ports, req, io, history, runId } = fg;
  return (event, source, fields = {}) => {
    const rec = eventRecord(runId, ports.clock.now(), event, source, redactFields(fields));
    history.append(rec, event !== "output");
    if (req.json && !io.out.closed) {
      try {
        io.out.record(rec);
      } catch {
        // stdout closed: io.abort fires and the run winds down
      }
    }
  };
}

/** `run.started`, the worktrees (--isolate), then the children; what is made lands in `state`. */
async function executeRun(fg: ForegroundRun, state: RunState): Promise<void> {
  const { ports, req, io, ws, targets, emit } = fg;
  const iso = req.isolate;
  emit("run.started", null, {
    argv: req.argv,
    group: fg.runId,
    workspace: { root: ws.root, hash: ws.hash },
    targets: targets.map((t) => t.name),
    mode: iso ? (iso.span ? "span" : "isolate") : "shared",
    jobs: req.jobs,
    failFast: req.failFast,
    pid: process.pid,
    history: fg.history.path,
  });
  if (iso && io.isolation) state.tasks = await makeTasks(fg, iso, io.isolation);
  const units = fg.plan(state.tasks);
  state.outcomes = units.map((u) => ({ source: u.source, status: null }));
  if (iso && io.isolation) {
    const common = { ports, root: ws.root, onExit: iso.onExit, driver: io.isolation, emit, log: io.log };
    const options = { ...common, progress: fg.progress, rootArg: fg.rootArg };
    for (const [id, f] of finishersOf(state.tasks, options)) state.finishers.set(id, f);
  }
  state.outcomes = await executeUnits({
    units,
    jobs: req.jobs,
    failFast: req.failFast,
    graceMs: req.graceMs,
    json: req.json,
    stdout: io.out,
    stderr: io.stderr,
    log: io.log,
    emit,
    inheritedEnv: ports.env,
    stdinFree: io.stdinFree,
    interrupts: fg.interrupts,
    abort: io.abort,
    now: () => ports.clock.now(),
    beforeOutput: fg.progress.clear,
    after: async (unit) => state.finishers.get(unit.env.ARIEL_TASK ?? "")?.finish(unit),
    ...(fg.sandboxed
      ? {
          sandboxes: new ForegroundSandboxes({
            root: ws.root,
            clock: ports.clock,
            random: ports.random,
            emit,
            log: io.log,
          }),
        }
      : {}),
  });
}

/** The run's tasks (--isolate) with the progress line, their warnings and `worktree.created` events. */
async function makeTasks(fg: ForegroundRun, iso: IsolateRequest, driver: IsolationDriver) {
  const { ports, io, ws, targets, progress, emit } = fg;
  await io.log.flush(); // messages queued so far come before the progress line
  let tasks: IsolatedTask[];
  try {
    tasks = await createTasks(driver, ports, ws.root, targets, iso, {
      dryRun: false,
      onProgress: progress.report,
    });
  } finally {
    progress.clear();
  }
  for (const task of tasks) {
    for (const w of task.warnings ?? []) warnWithHint(io.log, w);
    if (!task.created) continue;
    for (const [source, leg] of task.legs) emit("worktree.created", source, { task: task.taskId, ...leg });
  }
  return tasks;
}

/**
 * The end of a run, however it went: the tasks let go (a lease lost while the commands ran is
 * the run's failure, ERR_FENCED, exit 75: its worktrees were left to whoever holds it now),
 * `run.finished`, the history closed; then the failure thrown, or the result returned.
 */
async function closeRun(fg: ForegroundRun, state: RunState, failed: unknown): Promise<SpawnResult> {
  const { tasks, outcomes } = state;
  let failure = failed;
  for (const task of tasks) {
    const lost = task.lease?.signal.aborted ? task.lease.signal.reason : null;
    if (lost !== null && failure === null) failure = fencedRun(lost, task.taskId);
  }
  await releaseTasks(tasks);
  const joined = tasks.flatMap((t) => (t.joined ? [{ task: t.taskId, runs: t.joined }] : []));
  const { interrupts, history } = fg;
  const summary = summarize(outcomes, { interruptedBy: signalNumber(interrupts.received) });
  if (failure !== null) summary.exit = (failure as ArielError).exit ?? 70;
  fg.emit("run.finished", null, {
    summary,
    ...(interrupts.received ? { interrupted: interrupts.received } : {}),
    ...(joined.length > 0 ? { joined } : {}),
    ...(failure !== null ? { error: { code: (failure as ArielError).code ?? "ERR_INTERNAL" } } : {}),
  });
  history.close();
  interrupts.uninstall();
  if (failure !== null) {
    // The run was recorded up to its failure: the error says where.
    if (isArielError(failure)) failure.context.history ??= history.path;
    throw failure;
  }
  return {
    kind: "ran",
    exit: summary.exit,
    summary: {
      outcomes,
      interrupted: interrupts.received,
      failFast: fg.req.failFast,
      task: tasks.length === 1 ? (tasks[0]?.taskId ?? null) : null,
      kept: [...state.finishers.values()].flatMap((f) => f.kept),
      history: displayPath(history.path, fg.ports.cwd),
      ...fg.rootArg,
    },
  };
}

/** A finisher per task, by task id; they count the run's legs together (the progress line). */
function finishersOf(
  tasks: readonly IsolatedTask[],
  options: Omit<FinisherOptions, "task" | "legs">,
): Map<string, WorktreeFinisher> {
  const legs = { settled: 0, total: tasks.reduce((n, t) => n + t.legs.size, 0) };
  return new Map(tasks.map((task) => [task.taskId, new WorktreeFinisher({ ...options, task, legs })]));
}

/**
 * The processes of a run: each task's share of the targets planned in it (one task per source,
 * or one over all of them), in the targets' order; without isolation, one per target.
 */
export function planUnits(
  input: Omit<SpawnPlanInput, "isolation">,
  tasks: readonly IsolatedTask[],
  iso: IsolateRequest | undefined,
): SpawnUnit[] {
  if (!iso || tasks.length === 0) return planSpawn(input);
  return tasks.flatMap((task) =>
    planSpawn({
      ...input,
      targets: input.targets.filter((t) => task.legs.has(t.name)),
      isolation: { ...task, span: iso.span },
    }),
  );
}

/**
 * What {@link IsolationDriver.create} is asked to make for an isolate request (foreground and
 * detached runs alike).
 */
export function isolationOptions(
  root: string,
  sources: readonly SpawnSource[],
  iso: IsolateRequest | undefined,
) {
  return {
    root,
    sources,
    ...(iso?.taskId !== undefined ? { taskId: iso.taskId } : {}),
    ...(iso?.base !== undefined ? { base: iso.base } : {}),
    ...(iso?.branch !== undefined ? { branch: iso.branch } : {}),
    ...(iso?.withChanges ? { withChanges: true } : {}),
    ...(iso?.sparse && iso.sparse.length > 0 ? { sparse: iso.sparse } : {}),
    ...(iso?.share && iso.share.length > 0 ? { share: iso.share } : {}),
    ...(iso?.join ? { join: true } : {}),
    ...(iso?.noHooks ? { noHooks: true } : {}),
    ...(iso?.onExit === "keep" ? { keep: true } : {}),
  };
}

/** The ERR_FENCED a run ends with when its task's lease was taken from it while its commands ran. */
function fencedRun(lost: unknown, taskId: string): ArielError {
  const cause = isArielError(lost) ? lost : null;
  return new ArielError(
    "ERR_FENCED",
    `lost the lease of task ${quoteValue(taskId)} while the command ran (${cause?.message ?? String(lost)}); its worktrees were left as they are`,
    {
      hint: `another process took the task over (the run was stopped past the lease's time to live); see ariel-worktree list, then remove or restore --task ${taskId}`,
      context: { task: taskId, ...(cause?.context ?? {}) },
      ...(cause ? { cause } : {}),
    },
  );
}

/** --isolate needs git checkouts and the driver. */
function checkIsolatable(targets: readonly SpawnSource[], io: Pick<SpawnIo, "isolation">): void {
  for (const t of targets) {
    if (!t.checkout) {
      throw new ArielError(
        "ERR_NOT_A_CHECKOUT",
        `${t.name === "." ? `workspace root ${t.path}` : `source ${quoteValue(t.name)}`} is not a git checkout`,
        { context: { source: t.name, path: t.path } },
      );
    }
  }
  if (!io.isolation) throw new ArielError("ERR_USAGE", "--isolate is not available in this build");
}

/** `path` relative to `cwd` when it lies below it (as a user would type it), else as it is. */
function displayPath(path: string, cwd: string): string {
  const base = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

/**
 * The run's history file: `<root>/.ariel/runs/` where `.ariel/` may be made (see
 * `mayCreateStateDir`), else `<user state dir>/runs/`, so a run from a directory that is no
 * workspace leaves no `.ariel/` behind. A directory that cannot be made is ERR_CANTCREAT (73).
 */
async function openHistory(ports: Ports, ws: Workspace, runId: string): Promise<RunHistory> {
  const home = mayCreateStateDir(ws.via) ? null : userStateDir(ports.env, ports.cwd);
  const where = home ?? stateDir(ws.root);
  try {
    if (home === null && !mayCreateStateDir(ws.via)) {
      throw new ArielError("ERR_CANTCREAT", "cannot record the run: no user state dir (HOME is not set)", {
        hint: "set ARIEL_STATE_HOME, or name the workspace root with -C",
        context: { root: ws.root },
      });
    }
    return RunHistory.open(home ?? (await ensureWorkspaceState(ports, ws)), runId);
  } catch (e) {
    if (isArielError(e)) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? "error";
    throw new ArielError("ERR_CANTCREAT", `cannot write the run history under ${where}/runs: ${code}`, {
      context: { root: ws.root, errno: code },
      cause: e,
    });
  }
}

/**
 * Records are ours, so credentials in URLs never reach them (docs/discover.md, credential redaction: not in output, logs or
 * records): a child's argv and output lines are redacted in events and in the history file.
 * What the child itself prints to a terminal or pipe without --json passes through untouched.
 */
function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out = { ...fields };
  if (Array.isArray(out.argv)) out.argv = out.argv.map((a) => (typeof a === "string" ? redactText(a) : a));
  if (typeof out.line === "string") out.line = redactText(out.line);
  return out;
}
