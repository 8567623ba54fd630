/**
 * A run as the fleet shows it. A foreground run (an ariel-spawn history) is folded from its
 * normalized events; a detached run takes its state from the runs backend (run.json, exit.json
 * and the live processes). Derived on every read; nothing is guessed or cached.
 *
 * @example
 * ```ts
 * const ws = { root: "/some/repo/root", hash: "ae89cb2b620ea8fc" };
 * const run = foregroundRun(ws, "20261202T110943Z-k3x9a2", events, { alive: () => false });
 * run.state; // "exited" after a run.finished with exit 0, "lost" when it stopped without one
 * ```
 */
import { redactText } from "../fingerprint.ts";
import type { AgentView, AttentionView } from "../runs/attention/record.ts";
import type { RunView } from "../runs/backend.ts";
import type { KeptRunWorktree } from "../runs/kept.ts";
import type { RunLeg } from "../runs/record.ts";
import { FINAL_STATES, RUN_STATES, type RunState } from "../runs/state.ts";
import type { RecordedSandbox } from "../sandbox/settings.ts";
import type { FleetEvent } from "./events.ts";
import { lastLine } from "./last_line.ts";

export interface FleetRun {
  v: 1;
  type: "run";
  runId: string;
  workspace: { root: string; hash: string };
  /** `foreground` (an ariel-spawn history) or `detached` (a supervised background run). */
  kind: "foreground" | "detached";
  name: string | null;
  /** The runs one `ariel-spawn` call started share it (a foreground run's is its own id). */
  group: string | null;
  state: RunState;
  sources: string[];
  /** The task it works in (an isolated run's), else null; a foreground run over several tasks: null. */
  task: string | null;
  /** The branch it works on (an isolated run's leg), else null; several legs: null. */
  branch: string | null;
  /**
   * An isolated run: every leg it works in, with its worktree and branch (each leg of the task
   * for `--span`; a foreground run's as its `worktree.created` events said). Absent otherwise.
   */
  legs?: RunLeg[];
  argv: string[];
  startedAt: string | null;
  endedAt: string | null;
  /** The shell-style exit status when final and known, else null. */
  status: number | null;
  /** The run it was respawned from. */
  respawnOf: string | null;
  /** Lines of its history file (the last event's seq). */
  lastSeq: number;
  /**
   * The last non-blank line of its output (the tail of it), cleaned for a one-line display
   * ({@link lastLine}); null before any, and for a run whose output is not on this machine.
   */
  lastLine: string | null;
  /** The worktree a detached isolated run kept (still on disk), and the command that deals with it. */
  kept: KeptRunWorktree | null;
  /** A live detached run's activity (`busy`, `waiting`, `idle`; docs/runs.md, Attention). */
  activity?: "busy" | "waiting" | "idle";
  /** With `activity`: who said so (`by`: `agent`, `screen`, `timing`), why (`reason`: why it waits), since when. */
  attention?: AttentionView;
  /** A live run whose agent reports (docs/runs.md, "What agents report"): its session, turns, tool calls, last tool. */
  reported?: AgentView;
  /** A tty run's terminal size (`ariel-spawn --detach --tty`). */
  tty?: { cols: number; rows: number };
  /** A sandboxed run's sandbox (`--sandbox`; a foreground run's: its first sandboxed process's). */
  sandbox?: RecordedSandbox;
}

/** What the host knows about a foreground run beyond its events. */
export interface ForegroundFacts {
  /** Whether the ariel-spawn that writes the history still runs (asked only for a run not final). */
  alive: () => boolean;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/**
 * A run's history folded so far: its view before the liveness check, the exit status seen, and
 * the pid of the ariel-spawn that writes it. Folding is incremental, so a reader that keeps a
 * fold only reads what was appended since.
 */
export interface RunFold {
  run: FleetRun;
  status: number | null;
  ownerPid: number | null;
  /** `worktree.created` events seen. */
  legs: number;
}

/** The fold of a history with no events yet. */
export function newRunFold(workspace: { root: string; hash: string }, runId: string): RunFold {
  return {
    run: {
      v: 1,
      type: "run",
      runId,
      workspace: { root: workspace.root, hash: workspace.hash },
      kind: "foreground",
      name: null,
      group: null,
      state: "starting",
      sources: [],
      task: null,
      branch: null,
      argv: [],
      startedAt: null,
      endedAt: null,
      status: null,
      respawnOf: null,
      lastSeq: 0,
      lastLine: null,
      kept: null,
    },
    status: null,
    ownerPid: null,
    legs: 0,
  };
}

/** One leg's task or branch joined to what the run had: the same value, or null once two differ. */
function joinLeg(had: string | null, first: boolean, value: unknown): string | null {
  const v = typeof value === "string" ? value : null;
  return first || had === v ? v : null;
}

/**
 * `fold` with more events (a new fold; the given one is unchanged). The state follows
 * `run.started` (starting), `run.state` (its `to`), `run.lost`; the first final state wins.
 * `worktree.created` gives its task and branch, `output` its last line.
 */
export function foldRunEvents(fold: RunFold, events: readonly FleetEvent[]): RunFold {
  const run: FleetRun = { ...fold.run };
  let { status, ownerPid, legs } = fold;
  for (const e of events) {
    run.lastSeq = Math.max(run.lastSeq, e.seq);
    const final = FINAL_STATES.has(run.state);
    if (e.event === "run.started") {
      run.startedAt = e.ts;
      run.argv = strings(e.argv);
      run.sources = strings(e.targets);
      if (typeof e.group === "string") run.group = e.group;
      if (typeof e.pid === "number") ownerPid = e.pid;
      // A detached run's first event (written before its run.json): its kind and name.
      if (e.mode === "detached") run.kind = "detached";
      if (typeof e.name === "string") run.name = e.name;
    } else if (e.event === "run.state" && !final && typeof e.to === "string") {
      run.state = (RUN_STATES as readonly string[]).includes(e.to) ? (e.to as RunState) : run.state;
      if (FINAL_STATES.has(run.state)) run.endedAt = e.ts;
      const exit = (e.summary as { exit?: unknown } | undefined)?.exit;
      if (typeof exit === "number") status = exit;
    } else if (e.event === "run.exited" && typeof e.status === "number") {
      status = Math.max(status ?? 0, e.status);
    } else if (e.event === "run.lost" && !final) {
      run.state = "lost";
      run.endedAt = e.ts;
    } else if (e.event === "worktree.created") {
      const first = legs++ === 0;
      run.task = joinLeg(run.task, first, e.task);
      run.branch = joinLeg(run.branch, first, e.branch);
      if (typeof e.source === "string" && typeof e.worktree === "string" && typeof e.branch === "string")
        run.legs = [...(run.legs ?? []), { source: e.source, worktree: e.worktree, branch: e.branch }];
    } else if (e.event === "output" && typeof e.data === "string") {
      run.lastLine = lastLine(e.data) ?? run.lastLine;
    }
    // A sandboxed foreground process's start (process.started, as run.state) carries its sandbox.
    if (e.event === "run.state" && run.sandbox === undefined && isSandbox(e.sandbox)) run.sandbox = e.sandbox;
  }
  return { run, status, ownerPid, legs };
}

/** A sandbox as an event carries it (`process.started` of a sandboxed foreground process). */
function isSandbox(v: unknown): v is RecordedSandbox {
  const x = v as RecordedSandbox | null;
  return (
    typeof x === "object" &&
    x !== null &&
    Array.isArray(x.write) &&
    Array.isArray(x.hide) &&
    (x.net === "on" || x.net === "none")
  );
}

/** A foreground run's view from its fold: a run not final whose ariel-spawn is gone is `lost`. */
export function finishRunFold(fold: RunFold, facts: ForegroundFacts): FleetRun {
  const run = { ...fold.run };
  if (FINAL_STATES.has(run.state)) run.status = run.state === "lost" ? null : fold.status;
  else if (!facts.alive()) run.state = "lost";
  return run;
}

/** Fold a foreground run's events into its view ({@link newRunFold} … {@link finishRunFold}). */
export function foregroundRun(
  workspace: { root: string; hash: string },
  runId: string,
  events: readonly FleetEvent[],
  facts: ForegroundFacts,
): FleetRun {
  return finishRunFold(foldRunEvents(newRunFold(workspace, runId), events), facts);
}

/**
 * A detached run's view from the runs backend's (its state is the backend's, derived now);
 * `kept`: the worktree it kept, when the host found it still on disk; `last`: the last line of
 * its output, as the host read it.
 */
export function detachedRun(
  workspace: { root: string; hash: string },
  view: RunView,
  lastSeq: number,
  kept: KeptRunWorktree | null = null,
  last: string | null = null,
): FleetRun {
  const r = view.record;
  return {
    v: 1,
    type: "run",
    runId: r.runId,
    workspace: { root: workspace.root, hash: workspace.hash },
    kind: "detached",
    name: r.name,
    group: r.group ?? null,
    state: view.state,
    sources: r.source !== null ? [r.source] : (r.legs ?? []).map((l) => l.source),
    task: r.task,
    branch: r.branch,
    ...(r.legs ? { legs: r.legs.map((l) => ({ ...l })) } : {}),
    argv: r.argv.map(redactText),
    startedAt: r.startedAt ?? r.createdAt,
    endedAt: r.endedAt ?? view.exit?.endedAt ?? null,
    status: view.exit?.status ?? null,
    respawnOf: r.respawnOf,
    lastSeq,
    lastLine: last,
    kept,
    ...(r.tty ? { tty: r.tty } : {}),
    ...(r.sandbox ? { sandbox: r.sandbox } : {}),
  };
}

/** Runs counted by state, every state present (0 when none). */
export function countRuns(runs: readonly Pick<FleetRun, "state">[]): Record<RunState, number> {
  const out = Object.fromEntries(RUN_STATES.map((s) => [s, 0])) as Record<RunState, number>;
  for (const r of runs) out[r.state]++;
  return out;
}
