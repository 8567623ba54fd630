/**
 * Which reader reads which agent's payloads: a map, one entry per agent that reports.
 *
 * @example
 * ```ts
 * readReport("claude", { hook_event_name: "Stop", session_id: "abc" }).activity; // {to: "idle", reason: "turn ended"}
 * ```
 */
import { readClaude } from "./claude.ts";
import { readCodex } from "./codex.ts";
import type { ReportingAgent, ReportProblem, ReportReader, ReportReading } from "./events.ts";
import { readGemini } from "./gemini.ts";

export const AGENT_READERS: Record<ReportingAgent, ReportReader> = {
  claude: readClaude,
  codex: readCodex,
  gemini: readGemini,
};

/** One payload of `agent`: what it says, or why it is not a payload of that agent. */
export function readReport(agent: ReportingAgent, payload: unknown): ReportReading | ReportProblem {
  return AGENT_READERS[agent](payload);
}
