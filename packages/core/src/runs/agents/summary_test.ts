import { describe, expect, it } from "vitest";
import { emptyAgentSummary, foldAgentEvents, readingEvents, type TimedAgentEvent } from "./summary.ts";

const ts = "2026-12-02T11:00:00.000Z";

describe("foldAgentEvents", () => {
  it("counts turns and tool calls, keeps the last tool, the last notice and the session", () => {
    const events: TimedAgentEvent[] = [
      { event: "agent.session", id: "s1", transcript: "/t.jsonl", ts },
      { event: "agent.turn", phase: "start", ts },
      { event: "agent.tool", name: "Read", phase: "start", ok: null, ts },
      { event: "agent.tool", name: "Read", phase: "end", ok: true, ts },
      { event: "agent.tool", name: "Bash", phase: "start", ok: null, ts },
      {
        event: "agent.notice",
        kind: "permission_request",
        message: "Claude needs your permission to use Bash",
        ts,
      },
      { event: "agent.tool", name: "Bash", phase: "end", ok: false, ts: "2026-12-02T11:00:09.000Z" },
      { event: "agent.turn", phase: "end", ts },
      { event: "agent.turn", phase: "start", ts },
      { event: "agent.tool", name: "Bash", phase: "start", ok: null, ts },
    ];
    expect(foldAgentEvents(emptyAgentSummary(), events)).toEqual({
      session: { id: "s1", transcript: "/t.jsonl" },
      turns: 2,
      turnStarts: 2,
      turnEnds: 1,
      tools: 3,
      toolCalls: { Read: 1, Bash: 2 },
      lastTool: { name: "Bash", phase: "start", ok: null, ts },
      lastNotice: { kind: "permission_request", message: "Claude needs your permission to use Bash", ts },
    });
  });

  it("an agent that tells only turn ends (Codex) still counts its turns", () => {
    const ends: TimedAgentEvent[] = [1, 2, 3].map(() => ({ event: "agent.turn", phase: "end", ts }));
    expect(foldAgentEvents(emptyAgentSummary(), ends).turns).toBe(3);
  });
});

describe("readingEvents", () => {
  it("says the session once per change, before the reading's own events", () => {
    const r = {
      session: { id: "s1", transcript: null },
      events: [{ event: "agent.turn", phase: "end" } as const],
      activity: null,
    };
    expect(readingEvents(emptyAgentSummary(), r)).toEqual([
      { event: "agent.session", id: "s1", transcript: null },
      { event: "agent.turn", phase: "end" },
    ]);
    const known = { ...emptyAgentSummary(), session: { id: "s1", transcript: null } };
    expect(readingEvents(known, r)).toEqual([{ event: "agent.turn", phase: "end" }]);
    expect(readingEvents(known, { ...r, session: { id: "s2", transcript: null } })[0]).toEqual({
      event: "agent.session",
      id: "s2",
      transcript: null,
    });
  });
});
