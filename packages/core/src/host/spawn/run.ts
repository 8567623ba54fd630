import { ArielError, isArielError } from "../../errors.ts";
import { redactText } from "../../fingerprint.ts";
import { quoteValue, validateRequestNames } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import { runPaths, runsDir } from "../../runs/paths.ts";
import { type EventName, eventRecord } from "../../spawn/events.ts";
import { summarize, type TargetOutcome } from "../../spawn/exit.ts";
import { planRecord, planSpawn, type SpawnLeg, type SpawnUnit } from "../../spawn/plan.ts";
import { discoverLookup, resolveTargets, type SourceLookup, type SpawnSource } from "../../spawn/resolve.ts";
import { makeRunId } from "../../spawn/run_id.ts";
import type { TargetSpec } from "../../spawn/targets.ts";
import { ensureStateDir, resolveWorkspaceRoot, type Workspace } from "../../workspace.ts";
import type { Reporter } from "../cli/mod.ts";
import type { Output, TextSink } from "../output.ts";
import { renderRows } from "../table.ts";
import { executeUnits } from "./execute.ts";
import { RunHistory } from "./history.ts";
import { Interrupts } from "./interrupts.ts";
import { signalNumber } from "./process.ts";

/** What ariel-spawn was asked to do (flags already checked). */
export interface SpawnRequest {
  workspaceRoot?: string;
  /** Targets in the order given; empty → the workspace root. */
  targets: readonly TargetSpec[];
  argv: readonly string[];
  jobs: number;
  failFast: boolean;
  graceMs: number;
  json: boolean;
  dryRun: boolean;
  detailedExitcode: boolean;
  isolate?: IsolateRequest;
}

export interface IsolateRequest {
  taskId?: string;
  base?: string;
  branch?: string;
  span: boolean;
  /** What happens to a worktree when its process ended: removed if clean (default), snapshotted, or kept. */
  onExit: "remove" | "snapshot" | "keep";
}

/** The task isolation made (or, in a dry run, would make). */
export interface IsolatedTask {
  taskId: string;
  taskDir: string;
  legs: Map<string, SpawnLeg & Record<string, unknown>>;
  /** False when the task existed before this run: it is used, never removed. */
  created: boolean;
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
      dryRun: boolean;
    },
  ): Promise<IsolatedTask>;
  finish(
    ports: Ports,
    options: { root: string; taskId: string; sources: readonly string[]; onExit: IsolateRequest["onExit"] },
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
  tty: boolean;
  /** Source lookup (defaults to discovery). */
  lookup?: (ports: Ports, root: string) => SourceLookup;
  isolation?: IsolationDriver;
}

/**
 * The workspace and the targets of a spawn request (the root when none is named); with
 * --isolate every target must be a checkout. Shared by foreground and detached runs.
 */
export async function resolveSpawnTargets(
  ports: Ports,
  req: Pick<SpawnRequest, "workspaceRoot" | "targets" | "isolate">,
  io: Pick<SpawnIo, "lookup" | "isolation">,
): Promise<{ ws: Workspace; targets: SpawnSource[] }> {
  if (req.isolate) validateRequestNames(req.isolate);
  const ws = await resolveWorkspaceRoot(ports, req.workspaceRoot);
  const lookup = (io.lookup ?? ((p, root) => discoverLookup(p.fs, root)))(ports, ws.root);
  let targets = await resolveTargets(ports.fs, { root: ws.root, cwd: ports.cwd, lookup }, req.targets);
  if (req.targets.length === 0) {
    targets = [(await lookup(".")) ?? { name: ".", path: ws.root, checkout: false }];
  }
  if (req.isolate) {
    for (const t of targets) {
      if (!t.checkout) {
        throw new ArielError(
          "ERR_NOT_A_CHECKOUT",
          `${t.name === "." ? `workspace root ${t.path}` : `source ${quoteValue(t.name)}`} is not a git checkout`,
          {
            context: { source: t.name, path: t.path },
          },
        );
      }
    }
    if (!io.isolation) throw new ArielError("ERR_USAGE", "--isolate is not available in this build");
  }
  return { ws, targets };
}

/**
 * ariel-spawn end to end: resolve the workspace and the targets, plan, and either print the plan
 * (--dry-run) or run it: history file, worktrees, children, cleanup, `run.finished`. Returns the
 * exit status.
 */
export async function runSpawn(ports: Ports, req: SpawnRequest, io: SpawnIo): Promise<number> {
  const { ws, targets } = await resolveSpawnTargets(ports, req, io);
  const iso = req.isolate;
  const runId = makeRunId(ports.clock, ports.random);
  const createOptions = {
    root: ws.root,
    sources: targets,
    ...(iso?.taskId !== undefined ? { taskId: iso.taskId } : {}),
    ...(iso?.base !== undefined ? { base: iso.base } : {}),
    ...(iso?.branch !== undefined ? { branch: iso.branch } : {}),
  };

  if (req.dryRun) {
    const task =
      iso && io.isolation ? await io.isolation.create(ports, { ...createOptions, dryRun: true }) : null;
    const units = planSpawn({
      root: ws.root,
      hash: ws.hash,
      runId,
      argv: req.argv,
      targets,
      ...(task && iso ? { isolation: { ...task, span: iso.span } } : {}),
    });
    printPlan(io, req.json, units);
    return req.detailedExitcode && units.length > 0 ? 2 : 0;
  }

  // From here on things happen: record them, and let a signal interrupt but not abort the cleanup.
  const history = await openHistory(ports, ws.root, runId);
  const interrupts = new Interrupts();
  interrupts.install();
  const emit = (event: EventName, source: string | null, fields: Record<string, unknown> = {}) => {
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
  let outcomes: TargetOutcome[] = targets.map((t) => ({ source: t.name, status: null }));
  let failure: unknown = null;
  try {
    emit("run.started", null, {
      argv: req.argv,
      workspace: { root: ws.root, hash: ws.hash },
      targets: targets.map((t) => t.name),
      mode: iso ? (iso.span ? "span" : "isolate") : "shared",
      jobs: req.jobs,
      failFast: req.failFast,
      pid: process.pid,
      history: history.path,
    });
    let task: IsolatedTask | null = null;
    if (iso && io.isolation) {
      task = await io.isolation.create(ports, { ...createOptions, dryRun: false });
      if (task.created) {
        for (const [source, leg] of task.legs)
          emit("worktree.created", source, { task: task.taskId, ...leg });
      }
    }
    const units = planSpawn({
      root: ws.root,
      hash: ws.hash,
      runId,
      argv: req.argv,
      targets,
      ...(task && iso ? { isolation: { ...task, span: iso.span } } : {}),
    });
    outcomes = units.map((u) => ({ source: u.source, status: null }));
    const finish = async (unit: SpawnUnit) => {
      if (!task || !iso || !io.isolation) return;
      if (!task.created) {
        for (const source of unit.sources) {
          const leg = task.legs.get(source);
          emit("worktree.kept", source, {
            task: task.taskId,
            worktree: leg?.worktree ?? null,
            branch: leg?.branch ?? null,
            reason: "existing-task",
          });
        }
        return;
      }
      let results: WorktreeOutcome[];
      try {
        results = await io.isolation.finish(ports, {
          root: ws.root,
          taskId: task.taskId,
          sources: unit.sources,
          onExit: iso.onExit,
        });
      } catch (e) {
        const err = e as ArielError;
        results = unit.sources.map((source) => ({
          source,
          outcome: "kept" as const,
          reason: err.code ?? "ERR_INTERNAL",
          fields: { message: err.message },
        }));
      }
      for (const r of results) {
        const leg = task.legs.get(r.source);
        emit(`worktree.${r.outcome}`, r.source, {
          task: task.taskId,
          worktree: leg?.worktree ?? null,
          branch: leg?.branch ?? null,
          ...(r.reason !== undefined ? { reason: r.reason } : {}),
          ...r.fields,
        });
        if (r.outcome === "kept" && r.reason !== "keep") {
          const why = typeof r.fields?.message === "string" ? r.fields.message : r.reason;
          io.log.warn(
            "WARN_WORKTREE_KEPT",
            `kept worktree ${leg?.worktree ?? r.source} (${r.reason}): ${why}`,
            {
              source: r.source,
              worktree: leg?.worktree ?? null,
              reason: r.reason,
            },
          );
        }
      }
    };
    outcomes = await executeUnits({
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
      interrupts,
      abort: io.abort,
      now: () => ports.clock.now(),
      after: (unit) => finish(unit),
    });
  } catch (e) {
    failure = e;
  }
  {
    const interruptedBy = signalNumber(interrupts.received);
    const summary = summarize(outcomes, { interruptedBy });
    if (failure !== null) summary.exit = (failure as ArielError).exit ?? 70;
    emit("run.finished", null, {
      summary,
      ...(interrupts.received ? { interrupted: interrupts.received } : {}),
      ...(failure !== null ? { error: { code: (failure as ArielError).code ?? "ERR_INTERNAL" } } : {}),
    });
    history.close();
    interrupts.uninstall();
    if (failure !== null) throw failure;
    return io.out.closed ? 0 : summary.exit;
  }
}

/** The run's history file; a state directory that cannot be made is ERR_CANTCREAT (73). */
async function openHistory(ports: Ports, root: string, runId: string): Promise<RunHistory> {
  try {
    await ensureStateDir(ports, root);
    return RunHistory.open(runPaths(root, runId).history);
  } catch (e) {
    if (isArielError(e)) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? "error";
    throw new ArielError("ERR_CANTCREAT", `cannot write the run history under ${runsDir(root)}: ${code}`, {
      context: { root, errno: code },
      cause: e,
    });
  }
}

export function printPlan(io: SpawnIo, json: boolean, units: readonly SpawnUnit[]): void {
  if (json) {
    for (const u of units) io.out.record(planRecord(u));
    return;
  }
  const rows = units.map((u) => [
    u.source ?? u.sources.join(","),
    u.cwd,
    u.branch ?? "-",
    u.argv.map(redactText).join(" "),
  ]);
  io.out.write(renderRows(["SOURCE", "CWD", "BRANCH", "COMMAND"], rows, io.tty));
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
