import { describe, expect, it } from "vitest";
import { readGemini } from "./gemini.ts";
import { type ReportingAgent, readReport } from "./mod.ts";

const SID = "f3b2c1d0-5a4e-4c3b-9d8e-7f6a5b4c3d2e";

/** Payloads with one field of the wrong shape, of each agent, and the problem each is refused with. */
const REFUSED: [ReportingAgent, unknown, string][] = [
  ["gemini", null, "(root): expected a JSON object"],
  ["codex", null, "(root): expected a JSON object"],
  ["gemini", { hook_event_name: "" }, "hook_event_name: must have at least 1 character(s)"],
  ["gemini", { hook_event_name: "x".repeat(65) }, "hook_event_name: must have at most 64 character(s)"],
  ["gemini", { hook_event_name: "AfterTool", tool_name: { x: 1 } }, "tool_name: expected string"],
  [
    "gemini",
    { hook_event_name: "AfterTool", tool_name: "-rf" },
    "tool_name: must match /^[A-Za-z0-9_][A-Za-z0-9_.:/@-]{0,127}$/",
  ],
  ["gemini", { hook_event_name: "SessionEnd", reason: 3 }, "reason: expected string"],
  ["gemini", { hook_event_name: "Notification", notification_type: 3 }, "notification_type: expected string"],
  [
    "claude",
    { hook_event_name: "SessionStart", source: "x".repeat(4097) },
    "source: must have at most 4096 character(s)",
  ],
  ["claude", { hook_event_name: "Stop", transcript_path: 7 }, "transcript_path: expected string"],
  ["codex", { type: "" }, "type: must have at least 1 character(s)"],
  ["codex", { type: "agent-turn-complete", "thread-id": 7 }, "thread-id: expected string"],
];

describe("payloads of the wrong shape", () => {
  it("are refused with their first wrong field, whichever agent sent them", () => {
    expect(REFUSED.map(([agent, payload]) => readReport(agent, payload))).toEqual(
      REFUSED.map(([, , problem]) => ({ problem })),
    );
  });
});

describe("readGemini", () => {
  const after = (tool_response: unknown) => ({
    hook_event_name: "AfterTool",
    session_id: SID,
    tool_name: "run_shell_command",
    tool_response,
  });
  it.each<[string, unknown, boolean]>([
    ["no response", undefined, true],
    ["a null response", null, true],
    ["a response that is text", "error", true],
    ["a response without an error", { output: "ok" }, true],
    ["a null error", { error: null }, true],
    ["a false error", { error: false }, true],
    ["an empty error", { error: "" }, true],
    ["an error message", { error: "exit 1" }, false],
    ["an error object", { error: { message: "denied" } }, false],
    ["a true error", { error: true }, false],
  ])("AfterTool with %s: ok=%s", (_name, response, ok) => {
    expect(readGemini(after(response))).toEqual({
      session: { id: SID, transcript: null },
      events: [{ event: "agent.tool", name: "run_shell_command", phase: "end", ok }],
      activity: { to: "busy", reason: `${ok ? "used" : "failed"} run_shell_command` },
    });
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    [
      "a notification without type or message",
      { hook_event_name: "Notification" },
      {
        session: null,
        events: [{ event: "agent.notice", kind: "notification", message: "" }],
        activity: { to: "waiting", reason: "notification" },
      },
    ],
    [
      "a notification with its type only",
      { hook_event_name: "Notification", notification_type: "ToolPermission" },
      {
        session: null,
        events: [{ event: "agent.notice", kind: "ToolPermission", message: "" }],
        activity: { to: "waiting", reason: "ToolPermission" },
      },
    ],
    [
      "a session end without its reason",
      { hook_event_name: "SessionEnd", session_id: SID, transcript_path: "" },
      {
        session: { id: SID, transcript: null },
        events: [{ event: "agent.notice", kind: "session_end", message: "" }],
        activity: null,
      },
    ],
    [
      "an event it was not wired for",
      { hook_event_name: "PreCompress", session_id: SID, transcript_path: "/t.json" },
      { session: { id: SID, transcript: "/t.json" }, events: [], activity: null },
    ],
    [
      "a tool start without its tool",
      { hook_event_name: "BeforeTool" },
      { problem: "tool_name: expected a tool name" },
    ],
    [
      "a tool start with an empty tool",
      { hook_event_name: "BeforeTool", tool_name: "" },
      { problem: "tool_name: must match /^[A-Za-z0-9_][A-Za-z0-9_.:/@-]{0,127}$/" },
    ],
  ])("%s", (_name, payload, want) => {
    expect(readGemini(payload)).toEqual(want);
  });
});
