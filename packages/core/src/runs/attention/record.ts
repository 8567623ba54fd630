/**
 * `attention.json`, beside a live run's `run.json`: what its monitor says the run is doing now
 * (its activity, since when, why, and who said so) and what its agent has reported so far. The
 * monitor writes it on each move (and, coalesced, as reports come in); `ariel-runs list`, the
 * fleet and the dashboard read it, one small read per live run. Pure: the shape, a tolerant
 * parser (a torn or older file reads as what it still says) and the view readers print.
 *
 * @example
 * ```ts
 * parseAttentionRecord('{"v":1,"activity":"waiting","since":"2026-12-02T11:00:00.000Z","reason":"Claude needs your permission to use Bash","by":"agent"}')?.by; // "agent"
 * ```
 */

import type { ReportingAgent } from "../agents/events.ts";
import type { AgentSummary } from "../agents/summary.ts";
import { ACTIVITIES, type Activity } from "./classify.ts";
import type { ReportVia } from "./presets.ts";

/** How a run's reports went: accepted, refused (no, another run's or a stale secret), malformed, over the rate. */
export interface ReportCounts {
  accepted: number;
  refused: number;
  malformed: number;
  limited: number;
}

export interface AttentionRecord {
  v: 1;
  activity: Activity;
  since: string;
  reason: string;
  /** Who said so (absent in files written before reports existed: the screen). */
  by?: "agent" | "screen";
  /** A wired run's agent: which, and what it reported so far. */
  agent?: AgentSummary & { name: ReportingAgent; via: ReportVia };
  reports?: ReportCounts;
}

/** A run's attention as `list --json`, the fleet's run view and `show` print it. */
export interface AttentionView {
  /** `agent`: reported by the agent; `screen`: read off its screen; `timing`: a piped run's output timing. */
  by: "agent" | "screen" | "timing";
  /** Why: the agent's own words (`Claude needs your permission to use Bash`), or the screen pattern that matched. */
  reason: string | null;
  since: string | null;
}

/** A wired run's agent as readers print it: its session, turns, tool calls, last tool. */
export interface AgentView {
  name: ReportingAgent;
  via: ReportVia;
  session: string | null;
  transcript: string | null;
  turns: number;
  tools: number;
  toolCalls: Record<string, number>;
  lastTool: AgentSummary["lastTool"];
  lastNotice: AgentSummary["lastNotice"];
  reports?: ReportCounts;
}

/** `text` as an attention record, or null when it is not one (torn, damaged, another version's). */
export function parseAttentionRecord(text: string): AttentionRecord | null {
  let r: unknown;
  try {
    r = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof r !== "object" || r === null) return null;
  const a = r as Partial<AttentionRecord>;
  if (!ACTIVITIES.includes(a.activity as Activity)) return null;
  return {
    v: 1,
    activity: a.activity as Activity,
    since: typeof a.since === "string" ? a.since : "",
    reason: typeof a.reason === "string" ? a.reason : "",
    ...(a.by === "agent" || a.by === "screen" ? { by: a.by } : {}),
    ...(isAgent(a.agent) ? { agent: a.agent } : {}),
    ...(typeof a.reports === "object" && a.reports !== null ? { reports: a.reports } : {}),
  };
}

function isAgent(v: unknown): v is AttentionRecord["agent"] {
  const a = v as AttentionRecord["agent"] | undefined;
  return typeof a === "object" && a !== null && typeof a.name === "string" && typeof a.turns === "number";
}

/** The agent part of a record as readers print it, or null when no report came (none taken, none refused). */
export function agentView(r: AttentionRecord): AgentView | null {
  const a = r.agent;
  const c = r.reports;
  if (!a || (c && c.accepted + c.refused + c.malformed + c.limited === 0)) return null;
  return {
    name: a.name,
    via: a.via,
    session: a.session?.id ?? null,
    transcript: a.session?.transcript ?? null,
    turns: a.turns,
    tools: a.tools,
    toolCalls: { ...a.toolCalls },
    lastTool: a.lastTool,
    lastNotice: a.lastNotice,
    ...(r.reports ? { reports: r.reports } : {}),
  };
}
