import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";
import type { RecordedSandbox } from "../sandbox/settings.ts";
import type { SpawnUnit } from "../spawn/plan.ts";
import { runReports } from "./agents/wiring.ts";
import { presetFor } from "./attention/classify.ts";
import { ON_EXIT_TIMEOUT_MS, type RunRecord } from "./record.ts";
import type { RestartPolicy } from "./restart.ts";

/** A run name: like a task id (letters, digits, `.`, `_`, `-`), at most 128 characters. */
export const RUN_NAME_PATTERN: RegExp = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** `name` if it is a valid run name, else ERR_INVALID_NAME (65). */
export function validateRunName(name: string): string {
  if (!RUN_NAME_PATTERN.test(name)) {
    throw new ArielError("ERR_INVALID_NAME", `invalid run name ${quoteValue(name)}`, { context: { name } });
  }
  return name;
}

/**
 * A run's name: `--name` as given for one target; `<name>@<source>` for each of several.
 *
 * @example
 * ```ts
 * runName("agent", true, "api"); // "agent@api"
 * ```
 */
export function runName(name: string | null, several: boolean, source: string): string | null {
  return name === null ? null : several ? `${name}@${source}` : name;
}

/** What the user asked of a detached run, beyond the spawn unit. */
export interface DetachOptions {
  name: string | null;
  restart: RestartPolicy;
  timeoutMs: number | null;
  graceMs: number;
  onExit: string[] | null;
  /** `--on-exit-timeout` in ms (default {@link ON_EXIT_TIMEOUT_MS}; recorded only with `onExit`). */
  onExitTimeoutMs?: number;
  interactive: boolean;
  isolate: RunRecord["isolate"];
  task: string | null;
  /** The group of every run this `ariel-spawn` call starts. */
  group: string | null;
  /** `--tty`: the terminal's size; absent for a piped run. */
  tty?: { cols: number; rows: number } | null;
  agent?: string | null;
  notify?: string[] | null;
  /** `--sandbox`: the run's sandbox as its record keeps it. */
  sandbox?: RecordedSandbox | null;
  /** Wire the agent's own reports when its preset knows how (default true; `--no-agent-reports`: false). */
  agentReports?: boolean;
}

/** A new run record, not yet written: no version, no monitor, no child. */
export type PlannedRun = Omit<RunRecord, "version" | "fencingToken">;

/**
 * Plan one detached run from one spawn unit: the `run.json` it starts with (state `starting`).
 * With several units, a name is suffixed `@<source>` so each run keeps its own.
 *
 * @example
 * ```ts
 * planRun(unit, opts, { runId: "20261202T110943Z-abc123", root: "/w", hash: "0123456789abcdef",
 *   createdAt: "2026-12-02T11:09:43.000Z", several: false, respawnOf: null }).cwd; // unit.cwd
 * ```
 */
export function planRun(
  unit: SpawnUnit,
  options: DetachOptions,
  at: {
    runId: string;
    root: string;
    hash: string;
    createdAt: string;
    several: boolean;
    respawnOf: string | null;
  },
): PlannedRun {
  const name = runName(options.name, at.several, unit.source ?? unit.sources.join(","));
  return {
    v: 1,
    type: "run",
    runId: at.runId,
    name,
    group: options.group,
    backend: "local",
    workspace: { root: at.root, hash: at.hash },
    source: unit.source,
    cwd: unit.cwd,
    task: options.task,
    worktree: unit.worktree,
    branch: unit.branch,
    ...(unit.legs.length > 0 ? { legs: unit.legs.map((l) => ({ ...l })) } : {}),
    argv: [...unit.argv],
    createdAt: at.createdAt,
    startedAt: null,
    endedAt: null,
    monitor: null,
    child: null,
    restart: { ...options.restart, count: 0 },
    respawnOf: at.respawnOf,
    exit: null,
    timeoutMs: options.timeoutMs,
    graceMs: options.graceMs,
    onExit: options.onExit,
    ...(options.onExit !== null ? { onExitTimeoutMs: options.onExitTimeoutMs ?? ON_EXIT_TIMEOUT_MS } : {}),
    interactive: options.interactive,
    isolate: options.isolate,
    kill: null,
    worktreeOutcome: null,
    ...(options.tty ? { tty: options.tty, agent: options.agent ?? null } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...reportsOf(options, unit.argv),
  };
}

/** The run's `reports` (docs/runs.md, "What agents report"): by its preset, unless turned off. */
function reportsOf(options: DetachOptions, argv: readonly string[]): Pick<PlannedRun, "reports"> {
  if (options.agentReports === false) return {};
  const reports = runReports(presetFor(options.agent ?? null, argv), argv);
  return reports ? { reports } : {};
}

/**
 * The spec of a respawn: the same run planned again under a new id, linked to the old one.
 *
 * @example
 * ```ts
 * respawnPlan(old, { runId: "20261203T000000Z-zzzzzz", createdAt: "2026-12-03T00:00:00.000Z" }).respawnOf;
 * // old.runId
 * ```
 */
export function respawnPlan(old: RunRecord, at: { runId: string; createdAt: string }): PlannedRun {
  const { version: _v, fencingToken: _t, ...spec } = old;
  return {
    ...spec,
    runId: at.runId,
    createdAt: at.createdAt,
    startedAt: null,
    endedAt: null,
    monitor: null,
    child: null,
    restart: { ...old.restart, count: 0 },
    respawnOf: old.runId,
    exit: null,
    kill: null,
    worktreeOutcome: null,
  };
}
