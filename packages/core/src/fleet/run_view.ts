/**
 * A run as the fleet shows it, derived from its normalized events (and, for a detached run, its
 * run.json and exit.json) on every read; nothing is guessed or cached.
 *
 * @example
 * ```ts
 * const view = deriveRun("ae89cb2b620ea8fc", "20261202T110943Z-k3x9a2", events, { alive: false });
 * view.state; // "exited" after a run.finished with exit 0, "lost" when it stopped without one
 * ```
 */
import { FINAL_RUN_STATES, type FleetEvent, type RunState } from "./events.ts";

export interface RunView {
  v: 1;
  type: "run";
  runId: string;
  /** The workspace's hash. */
  workspace: string;
  /** `foreground` (an ariel-spawn history) or `detached` (a supervised background run). */
  kind: "foreground" | "detached";
  name: string | null;
  state: RunState;
  sources: string[];
  argv: string[];
  startedAt: string | null;
  endedAt: string | null;
  /** Exit status when final (a shell-style status), else null. */
  exit: number | null;
  /** The last seq of its history: `events?from=` this seq returns nothing new. */
  lastSeq: number;
}

/** What the host knows beyond the events: whether the process that owns the run still runs. */
export interface RunFacts {
  alive: boolean;
  kind?: RunView["kind"];
  name?: string | null;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/**
 * Fold a run's events into its view. The state follows `run.started` (starting), `run.state`
 * (its `to`), `run.exited`, `run.lost`; a run that is not final and whose owner is no longer
 * alive is `lost`.
 */
export function deriveRun(
  workspace: string,
  runId: string,
  events: readonly FleetEvent[],
  facts: RunFacts,
): RunView {
  const view: RunView = {
    v: 1,
    type: "run",
    runId,
    workspace,
    kind: facts.kind ?? "foreground",
    name: facts.name ?? null,
    state: "starting",
    sources: [],
    argv: [],
    startedAt: null,
    endedAt: null,
    exit: null,
    lastSeq: 0,
  };
  let worst: number | null = null;
  for (const e of events) {
    view.lastSeq = Math.max(view.lastSeq, e.seq);
    switch (e.event) {
      case "run.started":
        view.startedAt = e.ts;
        view.argv = strings(e.argv);
        view.sources = strings(e.targets);
        if (typeof e.name === "string") view.name = e.name;
        break;
      case "run.state":
        if (typeof e.to === "string" && !FINAL_RUN_STATES.has(view.state)) view.state = e.to as RunState;
        if (FINAL_RUN_STATES.has(view.state)) view.endedAt ??= e.ts;
        if (e.summary && typeof (e.summary as { exit?: unknown }).exit === "number") {
          worst = (e.summary as { exit: number }).exit;
        }
        break;
      case "run.exited":
        if (typeof e.status === "number") worst = Math.max(worst ?? 0, e.status);
        break;
      case "run.lost":
        if (!FINAL_RUN_STATES.has(view.state)) {
          view.state = "lost";
          view.endedAt = e.ts;
        }
        break;
      default:
        break;
    }
  }
  if (FINAL_RUN_STATES.has(view.state)) view.exit = worst;
  else if (!facts.alive) view.state = "lost";
  return view;
}

/** Runs counted by state, every state present (0 when none). */
export function countRuns(runs: readonly Pick<RunView, "state">[]): Record<RunState, number> {
  const out = { starting: 0, running: 0, exited: 0, failed: 0, killed: 0, lost: 0, crashed: 0 };
  for (const r of runs) out[r.state]++;
  return out;
}
