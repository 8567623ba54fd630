import { readFileSync, statSync } from "node:fs";
import { type Activity, agentPreset } from "../../runs/attention/classify.ts";
import {
  type AgentView,
  type AttentionRecord,
  type AttentionView,
  agentView,
  parseAttentionRecord,
} from "../../runs/attention/record.ts";
import type { RunView } from "../../runs/backend.ts";
import { runPaths } from "../../runs/paths.ts";

/**
 * A live run's attention now, as `ariel-runs list`, `show`, the fleet, the dashboard and the
 * terminal UI read it: its activity, who said so and why, and what its agent reported so far.
 * Plain fields (docs/runs.md, "What agents report"): `activity`; `attention.by`
 * (`agent | screen | timing`), `attention.reason` (why it waits, in the agent's own words when
 * it reported), `attention.since`; `reported` (a wired run's agent: `session`, `turns`, `tools`,
 * `toolCalls`, `lastTool {name, phase, ok, ts}`, `lastNotice`), else null.
 */
export interface RunAttentionNow {
  activity: Activity;
  attention: AttentionView;
  reported: AgentView | null;
}

/**
 * A live local run's attention (null for a run that is not live): what its monitor last wrote
 * (`attention.json`: a tty run's screen and a wired run's reports); a piped run its agent has
 * not reported on (or that is not wired) by timing alone: busy while its output grew within
 * the generic idle time, else idle.
 */
export function runAttention(root: string, view: RunView, nowMs: number): RunAttentionNow | null {
  if (view.state !== "running" && view.state !== "starting") return null;
  if (view.record.backend !== "local") return null;
  const paths = runPaths(root, view.record.runId);
  if (view.record.tty || view.record.reports) {
    const rec = readAttention(paths.attention);
    if (rec !== null) return fromRecord(rec);
    // A tty run not looked at yet: it has just started.
    if (view.record.tty)
      return { activity: "busy", attention: { by: "screen", reason: "start", since: null }, reported: null };
  }
  let last = 0;
  for (const f of [paths.stdout, paths.stderr]) {
    try {
      last = Math.max(last, statSync(f).mtimeMs);
    } catch {}
  }
  const started = Date.parse(view.record.startedAt ?? view.record.createdAt);
  const busy = nowMs - Math.max(last, started) < agentPreset("generic").idleMs;
  const since = last > 0 ? new Date(last).toISOString() : null;
  return {
    activity: busy ? "busy" : "idle",
    attention: { by: "timing", reason: busy ? "output" : "quiet", since },
    reported: null,
  };
}

/** A live local run's activity now ({@link runAttention}'s), or null for a run that is not live. */
export function runActivity(root: string, view: RunView, nowMs: number): Activity | null {
  return runAttention(root, view, nowMs)?.activity ?? null;
}

function readAttention(path: string): AttentionRecord | null {
  try {
    return parseAttentionRecord(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

function fromRecord(r: AttentionRecord): RunAttentionNow {
  return {
    activity: r.activity,
    attention: { by: r.by ?? "screen", reason: r.reason || null, since: r.since || null },
    reported: agentView(r),
  };
}
