import { describe, expect, it } from "vitest";
import { readClaude } from "./claude.ts";

describe("readClaude", () => {
  it.each(["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"])(
    "%s without its tool is refused",
    (hook_event_name) => {
      expect(readClaude({ hook_event_name })).toEqual({ problem: "tool_name: expected a tool name" });
    },
  );

  it.each<[string, Record<string, unknown>, unknown]>([
    [
      "a notification told, not waited on",
      { hook_event_name: "Notification", notification_type: "auth_success", message: "Signed in" },
      {
        session: null,
        events: [{ event: "agent.notice", kind: "auth_success", message: "Signed in" }],
        activity: null,
      },
    ],
    [
      "a waiting notification without a message: its type says why",
      { hook_event_name: "Notification", notification_type: "elicitation_dialog" },
      {
        session: null,
        events: [{ event: "agent.notice", kind: "elicitation_dialog", message: "" }],
        activity: { to: "waiting", reason: "elicitation_dialog" },
      },
    ],
    [
      "a failed turn whose error is not text",
      { hook_event_name: "StopFailure", error: { status: 529 } },
      {
        session: null,
        events: [
          { event: "agent.turn", phase: "end" },
          { event: "agent.notice", kind: "stop_failure", message: "API error" },
        ],
        activity: { to: "idle", reason: "turn failed: API error" },
      },
    ],
    [
      "a session end without its reason",
      { hook_event_name: "SessionEnd" },
      {
        session: null,
        events: [{ event: "agent.notice", kind: "session_end", message: "" }],
        activity: null,
      },
    ],
    [
      "a session resumed after compacting: mid-turn, no move",
      { hook_event_name: "SessionStart", source: "compact" },
      { session: null, events: [], activity: null },
    ],
  ])("%s", (_name, payload, want) => {
    expect(readClaude(payload)).toEqual(want);
  });
});
