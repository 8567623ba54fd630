import { readFileSync } from "node:fs";
import { AGENT_EVENT_NAMES } from "../../runs/agents/events.ts";
import {
  type AgentSummary,
  emptyAgentSummary,
  foldAgentEvent,
  type TimedAgentEvent,
} from "../../runs/agents/summary.ts";
import { runPaths } from "../../runs/paths.ts";

const NAMES: ReadonlySet<string> = new Set(AGENT_EVENT_NAMES);

/**
 * What a run's agent reported, folded from its history (the `agent.*` events its monitor wrote):
 * its session, turns, tool calls, last tool. Read on a live, ended or lost run alike
 * (`ariel-runs show`, `respawn --resume`); a history that is gone or torn reads as what it holds.
 *
 * @example
 * ```ts
 * readAgentSummary("/w", "20261202T110943Z-k3x9a2").session?.id; // "abc123"
 * ```
 */
export function readAgentSummary(root: string, runId: string): AgentSummary {
  let text = "";
  try {
    text = readFileSync(runPaths(root, runId).history, "utf8");
  } catch {
    return emptyAgentSummary();
  }
  let s = emptyAgentSummary();
  for (const line of text.split("\n")) {
    if (!line.includes('"agent.')) continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a torn last line
    }
    const event = agentEventOf(e);
    if (event) s = foldAgentEvent(s, event);
  }
  return s;
}

/** A history record as an agent event, or null (another event, or fields of the wrong type). */
function agentEventOf(e: Record<string, unknown>): TimedAgentEvent | null {
  if (e.type !== "event" || typeof e.event !== "string" || !NAMES.has(e.event) || typeof e.ts !== "string") {
    return null;
  }
  const str = (k: string) => (typeof e[k] === "string" ? (e[k] as string) : null);
  const phase = e.phase === "start" || e.phase === "end" ? e.phase : null;
  switch (e.event) {
    case "agent.session":
      return str("id") === null
        ? null
        : { event: "agent.session", id: str("id")!, transcript: str("transcript"), ts: e.ts };
    case "agent.turn":
      return phase === null ? null : { event: "agent.turn", phase, ts: e.ts };
    case "agent.tool": {
      const ok = typeof e.ok === "boolean" ? e.ok : null;
      return phase === null || str("name") === null
        ? null
        : { event: "agent.tool", name: str("name")!, phase, ok, ts: e.ts };
    }
    default:
      return { event: "agent.notice", kind: str("kind") ?? "", message: str("message") ?? "", ts: e.ts };
  }
}
