/**
 * A live run's attention, as its monitor keeps it: what the agent reports and what the screen
 * shows, arbitrated (runs/attention/arbiter.ts: the agent's word wins), the agent's reports
 * folded so far, and `attention.json`, written at once at each move, each change of its words
 * and each report with events (before the events are told); the counts of reports that tell
 * nothing (refused, not read, over the rate) at most every {@link COALESCE_MS}. One per start of
 * a child: a tty run's (its screen), or a wired piped run's (its reports alone).
 */
import { serializeRecord } from "../../ndjson.ts";
import type { ReportingAgent } from "../../runs/agents/events.ts";
import { type AgentSummary, emptyAgentSummary } from "../../runs/agents/summary.ts";
import { type AttentionState, initialAttention, onReport, onScreen } from "../../runs/attention/arbiter.ts";
import type { Activity, Verdict } from "../../runs/attention/classify.ts";
import type { ReportVia, ReportWiring } from "../../runs/attention/presets.ts";
import type { AttentionRecord, ReportCounts } from "../../runs/attention/record.ts";
import { runPaths } from "../../runs/paths.ts";
import { writeAtomic } from "../fs.ts";

/** How long reports that tell nothing (only their counts change) may wait before attention.json says them. */
const COALESCE_MS = 200;

/** A move of a run's activity: from, to, why, and who said so. */
export type AttentionMove = (from: Activity, to: Activity, reason: string, by: "agent" | "screen") => void;

export class RunAttention {
  readonly root: string;
  readonly runId: string;
  /** What the agent's reports cover (null: it does not report). */
  readonly covers: ReportWiring["covers"] | null;
  readonly agent: { name: ReportingAgent; via: ReportVia } | null;
  summary: AgentSummary = emptyAgentSummary();
  readonly counts: ReportCounts = { accepted: 0, refused: 0, malformed: 0, limited: 0 };
  /** The screen's text now, for a run that has one (set by its TtyRun). */
  screenText: () => string | null = () => null;
  #state: AttentionState;
  readonly #moves: AttentionMove[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #writing: Promise<void> | null = null;
  #again = false;
  #closed = false;

  constructor(
    root: string,
    runId: string,
    covers: ReportWiring["covers"] | null,
    agent: { name: ReportingAgent; via: ReportVia } | null,
  ) {
    this.root = root;
    this.runId = runId;
    this.covers = covers;
    this.agent = agent;
    this.#state = initialAttention(Date.now());
  }

  get state(): AttentionState {
    return this.#state;
  }

  /** Call `f` on each move of the activity (the monitor's event and notify; a tty run's bell). */
  onMove(f: AttentionMove): void {
    this.#moves.push(f);
  }

  /** The screen's verdict (a tty run's look, every 250 ms). */
  screen(verdict: Verdict, text: string): void {
    this.#set(onScreen(this.#state, verdict, text, this.covers, Date.now()));
  }

  /** A report the agent made at `atMs` (its reporter's start), moving the run to `to`. */
  reported(
    to: { to: Activity; reason: string; precise?: boolean } | null,
    atMs: number,
    takenOpen = false,
  ): void {
    // The child ended: its activity is no longer anyone's concern, unless the report was taken
    // (and answered) before it ended: the agent may exit as soon as its hook has its answer.
    if (this.#closed && !takenOpen) return;
    if (to === null) {
      this.changed();
      return;
    }
    const report = { activity: to.to, reason: to.reason, atMs, precise: to.precise === true };
    this.#set(onReport(this.#state, report, this.screenText(), Date.now()));
  }

  /** Something attention.json says changed without a move (a report's events, the counts). */
  changed(): void {
    if (this.#timer === null && !this.#closed) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        void this.write();
      }, COALESCE_MS);
    }
  }

  #set(next: AttentionState): void {
    const prev = this.#state;
    if (next === prev) return;
    this.#state = next;
    if (next.activity === prev.activity) {
      // Better words for the same move (a permission request's after its notification's): at once.
      if (next.reason !== prev.reason || next.by !== prev.by) void this.write();
      return;
    }
    void this.write();
    const by = next.by === "agent" ? "agent" : "screen";
    for (const f of this.#moves) f(prev.activity, next.activity, next.reason, by);
  }

  /** attention.json now (the latest state; writes never overlap, the last one wins). */
  write(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#writing) {
      this.#again = true;
      return this.#writing;
    }
    this.#writing = (async () => {
      do {
        this.#again = false;
        await writeAtomic(
          runPaths(this.root, this.runId).attention,
          `${serializeRecord({ ...this.record() })}\n`,
          0o600,
        ).catch(
          () => {}, // the run directory was removed (rm --force): nothing to say it in
        );
      } while (this.#again);
      this.#writing = null;
    })();
    return this.#writing;
  }

  /** What attention.json holds now. */
  record(): AttentionRecord {
    const s = this.#state;
    return {
      v: 1,
      activity: s.activity,
      since: new Date(s.sinceMs).toISOString(),
      reason: s.reason,
      by: s.by === "agent" ? "agent" : "screen",
      ...(this.agent ? { agent: { ...this.summary, ...this.agent }, reports: { ...this.counts } } : {}),
    };
  }

  /** Whether the child ended (attention.json is no longer written). */
  get closed(): boolean {
    return this.#closed;
  }

  /** The child ended: what is pending is written now, and nothing is coalesced any more. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) void this.write();
  }
}
