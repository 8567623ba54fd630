import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { claudeTaskId, parseClaudeHook } from "./claude_hook.ts";

const around = { session_id: "s1", transcript_path: "/t.jsonl", cwd: "/w/api" };

describe("parseClaudeHook", () => {
  it.each([
    [
      "{name}",
      { ...around, hook_event_name: "WorktreeCreate", name: "bright-fox" },
      { event: "create", name: "bright-fox", dir: "/w/api", base: null },
    ],
    [
      "{worktree_name, base_path, source_ref}",
      {
        ...around,
        hook_event_name: "WorktreeCreate",
        worktree_name: "agent-1",
        base_path: "/w/web",
        source_ref: "main",
      },
      { event: "create", name: "agent-1", dir: "/w/web", base: "main" },
    ],
    [
      "older {worktree_path}",
      { ...around, hook_event_name: "WorktreeCreate", worktree_path: "/w/api/.claude/worktrees/old/" },
      { event: "create", name: "old", dir: "/w/api", base: null },
    ],
    [
      "remove",
      { ...around, hook_event_name: "WorktreeRemove", worktree_path: "/w/.ariel/worktrees/x/api", extra: 1 },
      { event: "remove", worktreePath: "/w/.ariel/worktrees/x/api", dir: "/w/api" },
    ],
  ])("accepts %s", (_name, payload, expected) => {
    expect(parseClaudeHook(JSON.stringify(payload))).toEqual(expected);
  });

  it.each([
    ["not JSON", "{"],
    ["an array", "[]"],
    ["another event", '{"hook_event_name":"Stop"}'],
    ["no event name", '{"name":"x"}'],
    ["a create without a name", '{"hook_event_name":"WorktreeCreate","cwd":"/w"}'],
    ["a remove without a path", '{"hook_event_name":"WorktreeRemove","cwd":"/w"}'],
    ["a name that is not a string", '{"hook_event_name":"WorktreeCreate","name":3}'],
    ["too large", `{"hook_event_name":"WorktreeCreate","name":"${"x".repeat(70_000)}"}`],
  ])("rejects %s (ERR_INVALID_INPUT)", (_name, text) => {
    expect(() => parseClaudeHook(text)).toThrow(expect.objectContaining({ code: "ERR_INVALID_INPUT" }));
  });
});

describe("claudeTaskId", () => {
  eachMaps(
    claudeTaskId,
    [
      ["bright-running-fox", "bright-running-fox"],
      ["agent-a1b2c3d4", "agent-a1b2c3d4"],
      ["Feature Auth", "feature-auth"],
      ["../x", "x"],
    ],
    "%s -> %s",
  );
});
