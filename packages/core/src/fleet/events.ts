/**
 * Normalized fleet events: one shape for every workspace's history, whatever wrote it (a
 * foreground `ariel-spawn`, a detached run's monitor). Each event names its workspace (hash),
 * its run and its `seq`, the 1-based line of the history file it came from, so a reader can
 * resume after any event with no gap and no duplicate.
 *
 * @example
 * ```ts
 * const line = '{"v":1,"type":"event","event":"process.exited","runId":"r","ts":"2026-12-02T11:09:44.120Z","source":"api","code":0,"signal":null,"status":0}';
 * normalizeEvent(JSON.parse(line), { workspace: "ae89cb2b620ea8fc", runId: "r", seq: 3 });
 * // {v:1,type:"event",event:"run.exited",ts:"2026-12-02T11:09:44.120Z",workspace:"ae89cb2b620ea8fc",
 * //  runId:"r",seq:3,source:"api",code:0,signal:null,status:0}
 * ```
 */
import { ArielError } from "../errors.ts";
import { redactText } from "../fingerprint.ts";
import { quoteValue } from "../names.ts";
import type { RunState } from "../runs/state.ts";

/** The events of the fleet stream. */
export const FLEET_EVENT_NAMES = [
  "run.started",
  "run.state",
  "output",
  "run.exited",
  "run.lost",
  "worktree.created",
  "worktree.removed",
  "worktree.kept",
  "worktree.snapshotted",
  "task.state",
  "run.attention",
  "agent.session",
  "agent.turn",
  "agent.tool",
  "agent.notice",
] as const;

export type FleetEventName = (typeof FLEET_EVENT_NAMES)[number];

/**
 * The fleet events some names and globs select (`ariel-fleet events --type`, the event stream's
 * `?event=`): an event's name, or a glob with `*` (`agent.*`: every agent event). A pattern that
 * selects no event is ERR_USAGE (64), naming them.
 *
 * @example
 * ```ts
 * [...selectEventNames(["agent.*", "run.attention"])]; // ["run.attention", "agent.session", "agent.turn", "agent.tool", "agent.notice"]
 * ```
 */
export function selectEventNames(patterns: readonly string[]): Set<FleetEventName> {
  const out = new Set<FleetEventName>();
  for (const p of patterns) {
    const re = new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
    const hits = FLEET_EVENT_NAMES.filter((n) => re.test(n));
    if (hits.length === 0) {
      throw new ArielError("ERR_USAGE", `no event ${quoteValue(p)}`, {
        hint: `events: ${FLEET_EVENT_NAMES.join(", ")} (a * matches any characters: agent.*)`,
      });
    }
    for (const n of hits) out.add(n);
  }
  return new Set(FLEET_EVENT_NAMES.filter((n) => out.has(n)));
}

export interface FleetEvent {
  v: 1;
  type: "event";
  event: FleetEventName;
  ts: string;
  /** The workspace's hash. */
  workspace: string;
  runId: string;
  /** 1-based line of the run's history file. */
  seq: number;
  [key: string]: unknown;
}

/** Where a history line came from. */
export interface EventOrigin {
  workspace: string;
  runId: string;
  seq: number;
}

const FIXED = new Set(["v", "type", "event", "ts", "workspace", "runId", "seq"]);
const KNOWN: ReadonlySet<string> = new Set(FLEET_EVENT_NAMES);

/**
 * The state a run ends in, from its `run.finished`: the `state` a detached run's monitor writes,
 * else (a foreground spawn) `killed` when interrupted, `exited` on exit 0, `failed` otherwise.
 */
export function finishedState(record: Record<string, unknown>): RunState {
  const state = record.state;
  if (state === "exited" || state === "failed" || state === "killed") return state;
  if (typeof record.interrupted === "string") return "killed";
  const summary = record.summary as { exit?: unknown } | undefined;
  return summary?.exit === 0 ? "exited" : "failed";
}

/** Every string in a JSON value passed through {@link redactText} (no credential leaves). */
function redactDeep(value: unknown): unknown {
  // Only a string with an `@` (userinfo) or a `=` (a query parameter) can hold a credential.
  if (typeof value === "string") return /[@=]/.test(value) ? redactText(value) : value;
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v);
    return out;
  }
  return value;
}

function build(
  event: FleetEventName,
  ts: string,
  origin: EventOrigin,
  fields: Record<string, unknown>,
): FleetEvent {
  const out: FleetEvent = { v: 1, type: "event", event, ts, ...origin };
  for (const [k, v] of Object.entries(fields)) if (!FIXED.has(k)) out[k] = redactDeep(v);
  return out;
}

/**
 * One history record as a fleet event, or null when it is not one the fleet knows (the caller
 * counts those). Spawn's events map as: `process.started` → `run.state` starting→running,
 * `process.exited` → `run.exited`, `run.finished` → `run.state` running→exited|failed|killed;
 * an output line becomes `output` with `data` (the line and its newline). Events already in
 * fleet form (a detached run's monitor writes them) pass through.
 */
export function normalizeEvent(record: Record<string, unknown>, origin: EventOrigin): FleetEvent | null {
  if (record.v !== 1) return null;
  const ts = typeof record.ts === "string" ? record.ts : null;
  if (ts === null) return null;
  if (record.type === "output") {
    // A detached run's output chunk: {"type":"output","seq","stream","data"}.
    if (typeof record.data !== "string") return null;
    const { seq: _seq, ...rest } = record;
    return build("output", ts, origin, rest);
  }
  if (record.type !== "event" || typeof record.event !== "string") return null;
  const { event, ...rest } = record;
  switch (event) {
    case "process.started":
      return build("run.state", ts, origin, { ...rest, from: "starting", to: "running" });
    case "process.exited":
      return build("run.exited", ts, origin, rest);
    case "run.finished":
      return build("run.state", ts, origin, { ...rest, from: "running", to: finishedState(record) });
    case "output": {
      if (typeof record.line !== "string") return null;
      const { line, ...more } = rest;
      const data = `${record.line}${record.partial === true ? "" : "\n"}`;
      return build("output", ts, origin, { ...more, data });
    }
    default:
      return KNOWN.has(event) ? build(event as FleetEventName, ts, origin, rest) : null;
  }
}

/**
 * A detached run's output line as a fleet event: its `seq` is the line's byte offset in its
 * stream's file (the runs' own sequence), `ts` when it was written as far as the host can tell
 * (raw output files hold no times: the file's last write when read, host/fleet/_output_time.ts).
 */
export function outputEvent(
  workspace: string,
  runId: string,
  stream: "stdout" | "stderr",
  line: { seq: number; data: string },
  ts: string,
): FleetEvent {
  return {
    v: 1,
    type: "event",
    event: "output",
    ts,
    workspace,
    runId,
    seq: line.seq,
    stream,
    data: redactText(line.data),
  };
}

/** Whether an event closes its run's history: nothing but other closing events follows it. */
export function closesRun(e: FleetEvent): boolean {
  return (
    e.event === "run.exited" || e.event === "run.lost" || (e.event === "run.state" && e.to !== "running")
  );
}
