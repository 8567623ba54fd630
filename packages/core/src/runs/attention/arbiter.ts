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
  reported: Reported | null;
}

/** The agent's reports so far, as the arbiter keeps them (times by the reporter's clock). */
export interface Reported {
  activity: Activity;
  reason: string;
  /** When the newest report was made. */
  atMs: number;
  /** The screen's text when it came (null: no screen). */
  screen: string | null;
  /** The report whose words the move has: when it was made, and how much its words say. */
  words: { atMs: number; precise: boolean };
  /** When the newest report of another activity was made (-1: none): one made before it is stale. */
  beforeAtMs: number;
}

/**
 * One report's activity, as the monitor hands it over: `precise` when its words name what the
 * agent asks about ("Claude needs your permission to use Bash"), not only that it asks.
 */
export interface ActivityReport {
  activity: Activity;
  reason: string;
  /** When the report was made (its reporter's start, ms). */
  atMs: number;
  precise?: boolean;
}

/** A run that has just started: busy, from its screen, nothing reported. */
export function initialAttention(nowMs: number): AttentionState {
  return { activity: "busy", reason: "start", by: "screen", sinceMs: nowMs, reported: null };
}

/**
 * The state once the agent reported `report` (`screen`: the screen's text now, or null). Hooks
 * run in parallel, so reports may come out of the order they were made in: one made before the
 * newest report of another activity is stale and changes nothing. The reports of one move give
 * it the words of the most precise of them, else of the earliest (a permission request and its
 * notification, made in the same instant: the request's words, whichever came first).
 */
export function onReport(
  s: AttentionState,
  report: ActivityReport,
  screen: string | null,
  nowMs: number,
): AttentionState {
  const r = s.reported;
  const precise = report.precise === true;
  const sameMove = r !== null && r.activity === report.activity && report.atMs > r.beforeAtMs;
  if (r !== null && report.atMs < r.atMs) {
    if (!sameMove || s.by !== "agent" || s.activity !== report.activity) return s;
    return betterWords(r.words, report) ? withWords(s, r, report) : s;
  }
  const reported: Reported = {
    activity: report.activity,
    reason: report.reason,
    atMs: report.atMs,
    screen,
    words: sameMove ? r.words : { atMs: report.atMs, precise },
    beforeAtMs: sameMove ? r.beforeAtMs : (r?.atMs ?? -1),
  };
  if (report.activity === s.activity && s.by === "agent") {
    return sameMove && betterWords(r.words, report) ? withWords(s, reported, report) : { ...s, reported };
  }
  return {
    activity: report.activity,
    reason: report.reason,
    by: "agent",
    sinceMs: report.activity === s.activity ? s.sinceMs : nowMs,
    reported: { ...reported, words: { atMs: report.atMs, precise } },
  };
}

/** Whether `report`'s words are better for its move than the ones it has: more precise, or as precise and earlier. */
function betterWords(words: Reported["words"], report: ActivityReport): boolean {
  const precise = report.precise === true;
  return (precise && !words.precise) || (precise === words.precise && report.atMs < words.atMs);
}

function withWords(s: AttentionState, r: Reported, report: ActivityReport): AttentionState {
  const words = { atMs: report.atMs, precise: report.precise === true };
  return { ...s, reason: report.reason, reported: { ...r, words } };
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
