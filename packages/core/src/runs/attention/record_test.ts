import { describe, expect, it } from "vitest";
import { emptyAgentSummary } from "../agents/summary.ts";
import { type AttentionRecord, agentView, parseAttentionRecord } from "./record.ts";

const since = "2026-12-02T11:00:00.000Z";
const agent = { ...emptyAgentSummary(), name: "claude", via: "claude-hooks" } as const;
const counts = (accepted: number, refused = 0) => ({ accepted, refused, malformed: 0, limited: 0 });

describe("parseAttentionRecord: attention.json, read tolerantly", () => {
  it.each([
    [
      "a record the monitor wrote",
      JSON.stringify({
        v: 1,
        activity: "waiting",
        since,
        reason: "Claude needs your permission to use Bash",
        by: "agent",
      }),
      { v: 1, activity: "waiting", since, reason: "Claude needs your permission to use Bash", by: "agent" },
    ],
    [
      "one written before reports existed (no by: the screen's)",
      JSON.stringify({ v: 1, activity: "idle", since, reason: "quiet" }),
      { v: 1, activity: "idle", since, reason: "quiet" },
    ],
    [
      "fields of the wrong type dropped",
      JSON.stringify({
        activity: "busy",
        since: 5,
        reason: null,
        by: "someone",
        agent: { name: 1 },
        reports: "x",
      }),
      { v: 1, activity: "busy", since: "", reason: "" },
    ],
  ])("%s", (_name, text, expected) => {
    expect(parseAttentionRecord(text)).toEqual(expected);
  });

  it.each([
    [
      "by the screen",
      { activity: "waiting", since, reason: "pattern: \\(y/n\\)", by: "screen" },
      { v: 1, activity: "waiting", since, reason: "pattern: \\(y/n\\)", by: "screen" },
    ],
    [
      "a wired agent and its report counts",
      { activity: "idle", since, reason: "turn ended", by: "agent", agent, reports: counts(2) },
      { v: 1, activity: "idle", since, reason: "turn ended", by: "agent", agent, reports: counts(2) },
    ],
    [
      "null agent and reports dropped",
      { activity: "idle", agent: null, reports: null },
      { v: 1, activity: "idle", since: "", reason: "" },
    ],
    [
      "an agent without its name dropped",
      { activity: "busy", agent: { ...agent, name: undefined }, reports: counts(1) },
      { v: 1, activity: "busy", since: "", reason: "", reports: counts(1) },
    ],
    [
      "an agent without its turns dropped",
      { activity: "busy", agent: { ...agent, turns: "1" } },
      { v: 1, activity: "busy", since: "", reason: "" },
    ],
  ])("%s", (_name, record, expected) => {
    expect(parseAttentionRecord(JSON.stringify(record))).toEqual(expected);
  });

  it.each([
    ["null", "null"],
    ["torn", '{"v":1,"activity":"wai'],
    ["not an object", "[]"],
    ["an unknown activity", JSON.stringify({ activity: "asleep" })],
  ])("%s: null", (_name, text) => {
    expect(parseAttentionRecord(text)).toBeNull();
  });
});

describe("agentView: what readers print of a run's agent", () => {
  const rec = (over: Partial<AttentionRecord>): AttentionRecord => ({
    v: 1,
    activity: "idle",
    since,
    reason: "turn ended",
    ...over,
  });

  it("null for a run not wired, and for a wired one no report came to", () => {
    expect(agentView(rec({}))).toBeNull();
    expect(agentView(rec({ agent, reports: counts(0) }))).toBeNull();
  });

  it.each([
    ["accepted and refused", { accepted: 1, refused: 1, malformed: 0, limited: 0 }],
    ["accepted and malformed", { accepted: 1, refused: 0, malformed: 1, limited: 0 }],
    ["accepted and over the rate", { accepted: 1, refused: 0, malformed: 0, limited: 1 }],
  ])("every kind of report counts: %s", (_name, reports) => {
    expect(agentView(rec({ agent, reports }))).toEqual({
      name: "claude",
      via: "claude-hooks",
      session: null,
      transcript: null,
      turns: 0,
      tools: 0,
      toolCalls: {},
      lastTool: null,
      lastNotice: null,
      reports,
    });
  });

  it("a refused report is something to show: its counts", () => {
    expect(agentView(rec({ agent, reports: counts(0, 1) }))?.reports).toEqual(counts(0, 1));
  });

  it("the session, turns, tools and last tool, flat", () => {
    const lastTool = { name: "Bash", phase: "end", ok: true, ts: since } as const;
    const view = agentView(
      rec({
        agent: {
          ...agent,
          session: { id: "abc123", transcript: "/t.jsonl" },
          turns: 1,
          turnStarts: 1,
          turnEnds: 1,
          tools: 1,
          toolCalls: { Bash: 1 },
          lastTool,
        },
        reports: counts(7),
      }),
    );
    expect(view).toEqual({
      name: "claude",
      via: "claude-hooks",
      session: "abc123",
      transcript: "/t.jsonl",
      turns: 1,
      tools: 1,
      toolCalls: { Bash: 1 },
      lastTool,
      lastNotice: null,
      reports: counts(7),
    });
  });
});
