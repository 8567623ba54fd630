/**
 * What agents report, normalized (docs/runs.md, "What agents report"): one set of events for
 * every agent that reports, whatever its own wire format: `agent.session {id, transcript}`,
 * `agent.turn {phase}`, `agent.tool {name, phase, ok}`, `agent.notice {kind, message}`. Each
 * agent's reader (`claude.ts`, `codex.ts`, `gemini.ts`) turns one of its payloads into a
 * {@link ReportReading}; the monitor writes the events to the run's history and moves its
 * activity. Pure.
 */
import type { Activity } from "../attention/classify.ts";

/** The events of agents' reports, in the run's history and the fleet stream. */
export const AGENT_EVENT_NAMES = ["agent.session", "agent.turn", "agent.tool", "agent.notice"] as const;

export type AgentEventName = (typeof AGENT_EVENT_NAMES)[number];

/** The agents whose reports ariel reads (the `agent` field of every agent event). */
export const REPORTING_AGENTS = ["claude", "codex", "gemini"] as const;

export type ReportingAgent = (typeof REPORTING_AGENTS)[number];

/**
 * A session id an agent reported, as ariel accepts it: it goes into a resumed run's argv, so it
 * never starts with `-` and holds no space or shell character.
 */
export const SESSION_ID_PATTERN: RegExp = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A tool name as ariel keeps it (`Bash`, `mcp__github__search`, `run_shell_command`). */
export const TOOL_NAME_PATTERN: RegExp = /^[A-Za-z0-9_][A-Za-z0-9_.:/@-]{0,127}$/;

/** The longest notice message and activity reason kept (longer ones are cut, with `…`). */
export const MAX_MESSAGE = 300;

export type AgentEvent =
  | { event: "agent.session"; id: string; transcript: string | null }
  | { event: "agent.turn"; phase: "start" | "end" }
  | { event: "agent.tool"; name: string; phase: "start" | "end"; ok: boolean | null }
  | { event: "agent.notice"; kind: string; message: string };

/** The session a payload names (every Claude Code and Gemini CLI hook carries one, Codex its thread). */
export interface ReportedSession {
  id: string;
  transcript: string | null;
}

/**
 * What one payload says: its session, its events, and the activity it moves the run to (if any),
 * why, and whether those words name what the agent asks about (`precise`: a permission request's
 * "… to use Bash"; they beat a notification's "Claude needs your permission" in the same move).
 */
export interface ReportReading {
  session: ReportedSession | null;
  events: AgentEvent[];
  activity: { to: Activity; reason: string; precise?: boolean } | null;
}

/** A payload that is not one the agent documents: why, for monitor.log. Never trusted further. */
export interface ReportProblem {
  problem: string;
}

export type ReportReader = (payload: unknown) => ReportReading | ReportProblem;

/** `text` on one line, without control characters, at most {@link MAX_MESSAGE} characters. */
export function cleanText(text: string, max = MAX_MESSAGE): string {
  const one = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** Builders of the readings and events the readers return (one home for their shapes). */
export const reading = (
  session: ReportedSession | null,
  events: AgentEvent[],
  activity: ReportReading["activity"] = null,
): ReportReading => ({ session, events, activity });
export const turn = (phase: "start" | "end"): AgentEvent => ({ event: "agent.turn", phase });
export const tool = (name: string, phase: "start" | "end", ok: boolean | null): AgentEvent => ({
  event: "agent.tool",
  name,
  phase,
  ok,
});
export const notice = (kind: string, message: string): AgentEvent => ({
  event: "agent.notice",
  kind: cleanText(kind, 64),
  message: cleanText(message),
});
export const to = (activity: Activity, reason: string, precise = false): ReportReading["activity"] => ({
  to: activity,
  reason: cleanText(reason),
  ...(precise ? { precise } : {}),
});
