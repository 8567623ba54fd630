import { redactText } from "../fingerprint.ts";
import { portEnv, type TaskPorts } from "../lifecycle/ports.ts";
import type { RecordedSandbox } from "../sandbox/settings.ts";
import type { SpawnSource } from "./resolve.ts";

/** Every variable ariel-spawn manages in a child's environment (inherited values are dropped). */
export const SPAWN_ENV_NAMES = [
  "ARIEL_WORKSPACE_ROOT",
  "ARIEL_WORKSPACE_HASH",
  "ARIEL_SOURCE",
  "ARIEL_TASK",
  "ARIEL_WORKTREE",
  "ARIEL_BRANCH",
  "ARIEL_RUN_ID",
] as const;

/** A task's leg as isolation made (or would make) it. */
export interface SpawnLeg {
  worktree: string;
  branch: string;
  /** Overlay files copied into the worktree (worktree-relative paths). */
  overlay: string[];
}

export interface SpawnPlanInput {
  root: string;
  hash: string;
  runId: string;
  argv: readonly string[];
  targets: readonly SpawnSource[];
  /** Present with --isolate: the task and its legs by source name. */
  isolation?: {
    taskId: string;
    /** The task directory holding every leg (cwd with --span). */
    taskDir: string;
    legs: ReadonlyMap<string, SpawnLeg>;
    span: boolean;
    /** The task's leased ports: ARIEL_PORT_<NAME> and PORT in every child's environment. */
    ports?: TaskPorts;
  };
}

/** One process to start. */
export interface SpawnUnit {
  /** The source it runs for; null for a --span process (see `sources`). */
  source: string | null;
  sources: string[];
  cwd: string;
  worktree: string | null;
  branch: string | null;
  overlay: string[];
  /**
   * With --isolate: the legs the process works in, each with its worktree and branch (one, or
   * every leg of the task with --span); empty for a process in a checkout.
   */
  legs: { source: string; worktree: string; branch: string }[];
  argv: string[];
  /** ariel's variables for this child; the others of SPAWN_ENV_NAMES are removed. */
  env: Record<string, string>;
  /** With --sandbox: what the process may write and may not read (docs/sandbox.md). */
  sandbox?: RecordedSandbox;
}

/**
 * Plan the processes of a run: one per target (cwd = the source, or its worktree with
 * isolation), or one for the whole task with --span (cwd = the task directory).
 *
 * @example
 * ```ts
 * planSpawn({ root: "/w", hash: "h", runId: "r", argv: ["make"],
 *   targets: [{ name: "api", path: "/w/api", checkout: true }] })[0]?.cwd; // "/w/api"
 * ```
 */
export function planSpawn(input: SpawnPlanInput): SpawnUnit[] {
  const base = {
    ARIEL_WORKSPACE_ROOT: input.root,
    ARIEL_WORKSPACE_HASH: input.hash,
    ARIEL_RUN_ID: input.runId,
  };
  const iso = input.isolation;
  const portVars = portEnv(Object.keys(iso?.ports ?? {}), iso?.ports);
  if (iso?.span) {
    const branches = [...new Set([...iso.legs.values()].map((l) => l.branch))];
    const branch = branches.length === 1 ? (branches[0] ?? null) : null;
    const legs = input.targets.map((t) => {
      const leg = iso.legs.get(t.name);
      if (!leg) throw new RangeError(`no leg planned for source ${t.name}`);
      return { source: t.name, worktree: leg.worktree, branch: leg.branch };
    });
    return [
      {
        source: null,
        sources: input.targets.map((t) => t.name),
        cwd: iso.taskDir,
        worktree: iso.taskDir,
        branch,
        overlay: [],
        legs,
        argv: [...input.argv],
        env: {
          ...base,
          ARIEL_TASK: iso.taskId,
          ARIEL_WORKTREE: iso.taskDir,
          ...(branch ? { ARIEL_BRANCH: branch } : {}),
          ...portVars,
        },
      },
    ];
  }
  return input.targets.map((t): SpawnUnit => {
    const leg = iso?.legs.get(t.name);
    if (iso && !leg) throw new RangeError(`no leg planned for source ${t.name}`);
    return {
      source: t.name,
      sources: [t.name],
      cwd: leg ? leg.worktree : t.path,
      worktree: leg?.worktree ?? null,
      branch: leg?.branch ?? null,
      overlay: leg ? [...leg.overlay] : [],
      legs: leg ? [{ source: t.name, worktree: leg.worktree, branch: leg.branch }] : [],
      argv: [...input.argv],
      env: {
        ...base,
        ARIEL_SOURCE: t.name,
        ...(iso && leg
          ? { ARIEL_TASK: iso.taskId, ARIEL_WORKTREE: leg.worktree, ARIEL_BRANCH: leg.branch, ...portVars }
          : {}),
      },
    };
  });
}

/** The `plan` record --dry-run prints for one unit (`task`: the isolated run's task id). */
export function planRecord(unit: SpawnUnit, task: string | null = null): Record<string, unknown> {
  return {
    v: 1,
    type: "plan",
    action: "spawn.run",
    ...(task !== null ? { task } : {}),
    source: unit.source,
    ...(unit.source === null ? { sources: unit.sources, legs: unit.legs } : {}),
    cwd: unit.cwd,
    worktree: unit.worktree,
    branch: unit.branch,
    overlay: unit.overlay,
    argv: unit.argv.map(redactText),
    env: SPAWN_ENV_NAMES.filter((n) => n in unit.env),
    ...(unit.sandbox ? { sandbox: unit.sandbox } : {}),
  };
}

/** A child's full environment: the inherited one without ariel's stale variables, plus the unit's. */
export function childEnv(
  inherited: Readonly<Record<string, string | undefined>>,
  unit: SpawnUnit,
): Record<string, string> {
  const env: Record<string, string> = {};
  const managed = new Set<string>(SPAWN_ENV_NAMES);
  for (const [k, v] of Object.entries(inherited)) if (v !== undefined && !managed.has(k)) env[k] = v;
  return { ...env, ...unit.env };
}
