/**
 * Who says what a run is doing: its agent's reports or its screen (docs/runs.md, "What agents
 * report"). What the agent reports wins; the screen decides while the agent has reported nothing,
 * and, for an agent whose reports cover only the end of a turn (Codex), again once the screen
 * has changed since its last report. Pure: the monitor feeds it reports and screen verdicts.
 *
 * @example
 * ```ts
 * let s = initialAttention(0);
 * s = onReport(s, { activity: "busy", reason: "prompt submitted", atMs: 10 }, null, 10);
 * s = onScreen(s, { activity: "waiting", reason: "pattern: \\(y/n\\)" }, "Proceed? (y/n)", "all", 20);
 * s.activity; // "busy": the agent said so, and its reports cover every move
 * ```
 */
import type { Activity, Verdict } from "./classify.ts";
import type { ReportWiring } from "./presets.ts";

/** Where a run's activity came from: its agent's report, its screen, or (a piped run) output timing. */
export type AttentionSource = "agent" | "screen" | "timing";

export interface AttentionState {
  activity: Activity;
  reason: string;
  by: AttentionSource;
  /** When the activity last changed (ms). */
  sinceMs: number;
  /**
   * The agent's last report: what it said, when (the reporter's clock, so a late report of an
   * earlier event never undoes a newer one), and the screen's text then (null: no screen).
   */
  reported: { activity: Activity; reason: string; atMs: number; screen: string | null } | null;
}

/** A run that has just started: busy, from its screen, nothing reported. */
export function initialAttention(nowMs: number): AttentionState {
  return { activity: "busy", reason: "start", by: "screen", sinceMs: nowMs, reported: null };
}

/** The state once the agent reported `report` (`screen`: the screen's text now, or null). */
export function onReport(
  s: AttentionState,
  report: { activity: Activity; reason: string; atMs: number },
  screen: string | null,
  nowMs: number,
): AttentionState {
  if (s.reported !== null && report.atMs < s.reported.atMs) return s;
  const reported = { activity: report.activity, reason: report.reason, atMs: report.atMs, screen };
  // The reason of the move stands (a permission request's words, then its notification's).
  if (report.activity === s.activity && s.by === "agent") return { ...s, reported };
  return {
    activity: report.activity,
    reason: report.reason,
    by: "agent",
    sinceMs: report.activity === s.activity ? s.sinceMs : nowMs,
    reported,
  };
}

/** The state once the screen was looked at: its verdict applies unless a report holds. */
export function onScreen(
  s: AttentionState,
  verdict: Verdict,
  screen: string,
  covers: ReportWiring["covers"] | null,
  nowMs: number,
): AttentionState {
  if (s.reported !== null) {
    if (covers !== "turn-end" || screen === s.reported.screen) return s;
  }
  // The screen says what it said: the reason of the move stands.
  if (verdict.activity === s.activity && s.by === "screen") return s;
  return {
    activity: verdict.activity,
    reason: verdict.reason,
    by: "screen",
    sinceMs: verdict.activity === s.activity ? s.sinceMs : nowMs,
    reported: null,
  };
}
