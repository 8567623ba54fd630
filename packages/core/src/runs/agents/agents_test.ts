import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type ReportingAgent, readReport } from "./mod.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const fixture = (file: string): unknown => JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8"));

const CLAUDE_SESSION = {
  id: "abc123",
  transcript: "/Users/.../.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
};
const GEMINI_SESSION = {
  id: "f3b2c1d0-5a4e-4c3b-9d8e-7f6a5b4c3d2e",
  transcript: "/home/user/.gemini/tmp/2c8f.../chats/session-2026-12-02T11-00-f3b2c1d0.json",
};

/** Each documented payload: what ariel reads in it (session, events, activity). */
const READINGS: [ReportingAgent, string, unknown][] = [
  [
    "claude",
    "claude/SessionStart.json",
    { session: CLAUDE_SESSION, events: [], activity: { to: "idle", reason: "session started" } },
  ],
  [
    "claude",
    "claude/UserPromptSubmit.json",
    {
      session: CLAUDE_SESSION,
      events: [{ event: "agent.turn", phase: "start" }],
      activity: { to: "busy", reason: "prompt submitted" },
    },
  ],
  [
    "claude",
    "claude/PreToolUse.json",
    {
      session: { id: "abc123", transcript: "/home/user/.claude/projects/.../transcript.jsonl" },
      events: [{ event: "agent.tool", name: "Bash", phase: "start", ok: null }],
      activity: null,
    },
  ],
  [
    "claude",
    "claude/PermissionRequest.json",
    {
      session: CLAUDE_SESSION,
      events: [
        {
          event: "agent.notice",
          kind: "permission_request",
          message: "Claude needs your permission to use Bash",
        },
      ],
      activity: { to: "waiting", reason: "Claude needs your permission to use Bash", precise: true },
    },
  ],
  [
    "claude",
    "claude/PostToolUse.json",
    {
      session: CLAUDE_SESSION,
      events: [{ event: "agent.tool", name: "Write", phase: "end", ok: true }],
      activity: { to: "busy", reason: "used Write" },
    },
  ],
  [
    "claude",
    "claude/PostToolUseFailure.json",
    {
      session: CLAUDE_SESSION,
      events: [{ event: "agent.tool", name: "Bash", phase: "end", ok: false }],
      activity: { to: "busy", reason: "Bash failed" },
    },
  ],
  [
    "claude",
    "claude/Notification.json",
    {
      session: CLAUDE_SESSION,
      events: [{ event: "agent.notice", kind: "permission_prompt", message: "Claude needs your permission" }],
      activity: { to: "waiting", reason: "Claude needs your permission" },
    },
  ],
  [
    "claude",
    "claude/Notification-idle.json",
    {
      session: CLAUDE_SESSION,
      events: [{ event: "agent.notice", kind: "idle_prompt", message: "Claude is waiting for your input" }],
      activity: { to: "waiting", reason: "Claude is waiting for your input" },
    },
  ],
  [
    "claude",
    "claude/Notification-untyped.json",
    {
      session: CLAUDE_SESSION,
      events: [
        { event: "agent.notice", kind: "notification", message: "Claude needs your permission to use Bash" },
      ],
      activity: { to: "waiting", reason: "Claude needs your permission to use Bash" },
    },
  ],
  [
    "claude",
    "claude/Stop.json",
    {
      session: {
        id: "abc123",
        transcript: "~/.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
      },
      events: [{ event: "agent.turn", phase: "end" }],
      activity: { to: "idle", reason: "turn ended" },
    },
  ],
  [
    "claude",
    "claude/StopFailure.json",
    {
      session: CLAUDE_SESSION,
      events: [
        { event: "agent.turn", phase: "end" },
        { event: "agent.notice", kind: "stop_failure", message: "rate_limit" },
      ],
      activity: { to: "idle", reason: "turn failed: rate_limit" },
    },
  ],
  [
    "claude",
    "claude/SessionEnd.json",
    {
      session: {
        id: "abc123",
        transcript: "~/.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
      },
      events: [{ event: "agent.notice", kind: "session_end", message: "other" }],
      activity: null,
    },
  ],
  [
    "codex",
    "codex/agent-turn-complete.json",
    {
      session: { id: "b5f6c1c2-1111-2222-3333-444455556666", transcript: null },
      events: [{ event: "agent.turn", phase: "end" }],
      activity: { to: "idle", reason: "turn complete" },
    },
  ],
  [
    "gemini",
    "gemini/SessionStart.json",
    { session: GEMINI_SESSION, events: [], activity: { to: "idle", reason: "session started" } },
  ],
  [
    "gemini",
    "gemini/BeforeAgent.json",
    {
      session: GEMINI_SESSION,
      events: [{ event: "agent.turn", phase: "start" }],
      activity: { to: "busy", reason: "prompt submitted" },
    },
  ],
  [
    "gemini",
    "gemini/BeforeTool.json",
    {
      session: GEMINI_SESSION,
      events: [{ event: "agent.tool", name: "run_shell_command", phase: "start", ok: null }],
      activity: null,
    },
  ],
  [
    "gemini",
    "gemini/Notification.json",
    {
      session: GEMINI_SESSION,
      events: [{ event: "agent.notice", kind: "ToolPermission", message: "Allow execution of: npm test?" }],
      activity: { to: "waiting", reason: "Allow execution of: npm test?" },
    },
  ],
  [
    "gemini",
    "gemini/AfterTool.json",
    {
      session: GEMINI_SESSION,
      events: [{ event: "agent.tool", name: "run_shell_command", phase: "end", ok: false }],
      activity: { to: "busy", reason: "failed run_shell_command" },
    },
  ],
  [
    "gemini",
    "gemini/AfterAgent.json",
    {
      session: GEMINI_SESSION,
      events: [{ event: "agent.turn", phase: "end" }],
      activity: { to: "idle", reason: "turn ended" },
    },
  ],
  [
    "gemini",
    "gemini/SessionEnd.json",
    {
      session: GEMINI_SESSION,
      events: [{ event: "agent.notice", kind: "session_end", message: "exit" }],
      activity: null,
    },
  ],
];

describe("readReport on the documented payloads", () => {
  it.each(READINGS)("%s %s", (agent, file, want) => {
    expect(readReport(agent, fixture(file))).toEqual(want);
  });
});

/** Payloads that are not what the agent documents: refused with the field that is wrong. */
const PROBLEMS: [ReportingAgent, string, unknown, string][] = [
  ["claude", "not an object", "Stop", "(root): expected a JSON object"],
  ["claude", "an array", [1, 2], "(root): expected a JSON object"],
  ["claude", "no event name", { session_id: "abc" }, "hook_event_name: expected string"],
  ["claude", "a number for the event", { hook_event_name: 7 }, "hook_event_name: expected string"],
  [
    "claude",
    "a session id that is a flag",
    { hook_event_name: "Stop", session_id: "--dangerous" },
    "session_id: must match /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/",
  ],
  [
    "claude",
    "a session id with a space",
    { hook_event_name: "Stop", session_id: "a b" },
    "session_id: must match /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/",
  ],
  [
    "claude",
    "a tool event without its tool",
    { hook_event_name: "PreToolUse", session_id: "abc" },
    "tool_name: expected a tool name",
  ],
  [
    "claude",
    "a tool name that is an object",
    { hook_event_name: "PostToolUse", tool_name: { x: 1 } },
    "tool_name: expected string",
  ],
  [
    "claude",
    "a message that is a number",
    { hook_event_name: "Notification", message: 3 },
    "message: expected string",
  ],
  ["codex", "no type", { "thread-id": "t" }, "type: expected string"],
  [
    "codex",
    "a thread id with a quote",
    { type: "agent-turn-complete", "thread-id": "a'b" },
    "thread-id: must match /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/",
  ],
  [
    "gemini",
    "a tool event without its tool",
    { hook_event_name: "AfterTool" },
    "tool_name: expected a tool name",
  ],
];

describe("readReport on payloads that are not what the agent documents", () => {
  it.each(PROBLEMS)("%s: %s", (agent, _name, payload, problem) => {
    expect(readReport(agent, payload)).toEqual({ problem });
  });

  it("an event it was not wired for says nothing (a user's own hook calling the reporter)", () => {
    expect(readReport("claude", { hook_event_name: "PreCompact", session_id: "abc" })).toEqual({
      session: { id: "abc", transcript: null },
      events: [],
      activity: null,
    });
    expect(readReport("codex", { type: "approval-requested" })).toEqual({
      session: null,
      events: [],
      activity: null,
    });
  });

  it("cuts long messages and strips control characters (a notice is one line)", () => {
    const r = readReport("claude", {
      hook_event_name: "Notification",
      notification_type: "permission_prompt",
      message: `\u001b[31mred\u001b[0m\n${"x".repeat(400)}`,
    });
    const notice = "events" in r ? r.events[0] : null;
    expect(notice).toMatchObject({ event: "agent.notice", kind: "permission_prompt" });
    const message = (notice as { message: string }).message;
    expect(message.length).toBe(300);
    expect(message.startsWith(" [31mred [0m x")).toBe(false);
    expect(message.startsWith("[31mred [0m xxx")).toBe(true);
    expect(message.endsWith("…")).toBe(true);
  });
});
