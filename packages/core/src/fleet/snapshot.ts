/**
 * The FleetSnapshot: every known workspace with its health, sources, tasks and runs by state.
 * Built from facts the host gathered; pure, so the same facts always give the same snapshot.
 *
 * @example
 * ```ts
 * workspaceView({ root: "/w", hash: "ae89cb2b620ea8fc", exists: false, origin: "registry" });
 * // { root: "/w", hash: "ae89cb2b620ea8fc", health: "gone", sources: 0, ... }
 * ```
 */
import { compareBytewise } from "../discovery/compare.ts";
import { FINAL_STATES, type RunState } from "../runs/state.ts";
import type { TaskState } from "../schema/task.ts";
import { countRuns, type FleetRun } from "./run_view.ts";

/**
 * `ok`: readable, nothing wrong; `degraded`: readable, but some record could not be read or a
 * run was lost; `gone`: the root no longer exists (kept in the registry, never deleted);
 * `unreadable`: the root exists but cannot be read.
 */
export type WorkspaceHealth = "ok" | "degraded" | "gone" | "unreadable";

/** What the host found out about one workspace. */
export interface WorkspaceFacts {
  root: string;
  hash: string;
  /** `registry` (the user state dir) or `flag` (--workspace). */
  origin: "registry" | "flag";
  exists: boolean;
  readable?: boolean;
  sources?: number;
  taskStates?: readonly string[];
  runs?: readonly Pick<FleetRun, "state" | "kept" | "sandbox">[];
  /** Records that could not be read (corrupt or foreign task records). */
  problems?: number;
  /** History lines that were not fleet events (torn, not JSON, unknown kinds): skipped. */
  skipped?: number;
}

export interface WorkspaceView {
  v: 1;
  type: "workspace";
  root: string;
  hash: string;
  origin: WorkspaceFacts["origin"];
  health: WorkspaceHealth;
  sources: number;
  tasks: Record<TaskState, number>;
  runs: Record<RunState, number>;
  /** Ended runs whose kept worktree is still on disk. */
  kept: number;
  /** Live runs in a sandbox (`ariel-spawn --sandbox`, docs/sandbox.md). */
  sandboxed: number;
  problems: number;
  skipped: number;
}

export interface FleetSnapshot {
  v: 1;
  type: "fleet";
  host: string;
  generatedAt: string;
  workspaces: WorkspaceView[];
}

function countTasks(states: readonly string[]): Record<TaskState, number> {
  const out = { active: 0, cleaning: 0, closed: 0, unknown: 0 };
  for (const s of states) out[s in out ? (s as TaskState) : "unknown"]++;
  return out;
}

/** The view of one workspace. */
export function workspaceView(f: WorkspaceFacts): WorkspaceView {
  const runs = countRuns(f.runs ?? []);
  const problems = f.problems ?? 0;
  const health: WorkspaceHealth = !f.exists
    ? "gone"
    : f.readable === false
      ? "unreadable"
      : problems > 0 || runs.lost > 0 || runs.crashed > 0
        ? "degraded"
        : "ok";
  return {
    v: 1,
    type: "workspace",
    root: f.root,
    hash: f.hash,
    origin: f.origin,
    health,
    sources: f.sources ?? 0,
    tasks: countTasks(f.taskStates ?? []),
    runs,
    kept: (f.runs ?? []).filter((r) => r.kept !== null).length,
    sandboxed: (f.runs ?? []).filter((r) => r.sandbox !== undefined && !FINAL_STATES.has(r.state)).length,
    problems,
    skipped: f.skipped ?? 0,
  };
}

/** The snapshot of every workspace, sorted by root (bytewise), one entry per hash. */
export function fleetSnapshot(host: string, nowMs: number, facts: readonly WorkspaceFacts[]): FleetSnapshot {
  const seen = new Set<string>();
  const workspaces: WorkspaceView[] = [];
  for (const f of [...facts].sort((a, b) => compareBytewise(a.root, b.root))) {
    if (seen.has(f.hash)) continue;
    seen.add(f.hash);
    workspaces.push(workspaceView(f));
  }
  return { v: 1, type: "fleet", host, generatedAt: new Date(nowMs).toISOString(), workspaces };
}
