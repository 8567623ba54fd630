/**
 * What a run's agent has reported so far, folded from its `agent.*` events: its session, how
 * many turns and tool calls, the last tool and the last notice. The monitor keeps one live (for
 * `attention.json`: `list`, the fleet, the dashboard); `ariel-runs show` folds the run's history;
 * `respawn --resume` takes the session from it. One fold, so the three cannot disagree.
 *
 * @example
 * ```ts
 * const s = foldAgentEvents(emptyAgentSummary(), [
 *   { event: "agent.tool", name: "Bash", phase: "start", ok: null, ts: "2026-12-02T11:00:00.000Z" },
 * ]);
 * s.lastTool; // { name: "Bash", phase: "start", ok: null, ts: "2026-12-02T11:00:00.000Z" }
 * ```
 */
import type { AgentEvent, ReportReading } from "./events.ts";

export interface AgentSummary {
  session: { id: string; transcript: string | null } | null;
  /** Turns: started or ended, whichever the agent told more of (Codex tells only ends). */
  turns: number;
  turnStarts: number;
  turnEnds: number;
  /** Tool calls started. */
  tools: number;
  /** Calls by tool name. */
  toolCalls: Record<string, number>;
  lastTool: { name: string; phase: "start" | "end"; ok: boolean | null; ts: string } | null;
  lastNotice: { kind: string; message: string; ts: string } | null;
}

/** An agent event as the history holds it: the event and its time. */
export type TimedAgentEvent = AgentEvent & { ts: string };

export function emptyAgentSummary(): AgentSummary {
  return {
    session: null,
    turns: 0,
    turnStarts: 0,
    turnEnds: 0,
    tools: 0,
    toolCalls: {},
    lastTool: null,
    lastNotice: null,
  };
}

/** `s` with one more event (a new summary; `s` is unchanged). */
export function foldAgentEvent(s: AgentSummary, e: TimedAgentEvent): AgentSummary {
  switch (e.event) {
    case "agent.session":
      return { ...s, session: { id: e.id, transcript: e.transcript } };
    case "agent.turn": {
      const turnStarts = s.turnStarts + (e.phase === "start" ? 1 : 0);
      const turnEnds = s.turnEnds + (e.phase === "end" ? 1 : 0);
      return { ...s, turnStarts, turnEnds, turns: Math.max(turnStarts, turnEnds) };
    }
    case "agent.tool": {
      const lastTool = { name: e.name, phase: e.phase, ok: e.ok, ts: e.ts };
      if (e.phase === "end") return { ...s, lastTool };
      const toolCalls = { ...s.toolCalls, [e.name]: (s.toolCalls[e.name] ?? 0) + 1 };
      return { ...s, tools: s.tools + 1, toolCalls, lastTool };
    }
    case "agent.notice":
      return { ...s, lastNotice: { kind: e.kind, message: e.message, ts: e.ts } };
  }
}

export function foldAgentEvents(s: AgentSummary, events: readonly TimedAgentEvent[]): AgentSummary {
  let out = s;
  for (const e of events) out = foldAgentEvent(out, e);
  return out;
}

/**
 * The events one reading adds to the run's history, given what was reported before: its own,
 * preceded by `agent.session` when the session is new (every hook names its session; the
 * history says it once per change).
 */
export function readingEvents(s: AgentSummary, r: ReportReading): AgentEvent[] {
  const fresh = r.session !== null && (s.session === null || s.session.id !== r.session.id);
  return fresh && r.session
    ? [{ event: "agent.session", id: r.session.id, transcript: r.session.transcript }, ...r.events]
    : r.events;
}
