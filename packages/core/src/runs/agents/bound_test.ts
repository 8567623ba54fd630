import { describe, expect, it } from "vitest";
import { boundPayload, PAYLOAD_BOUNDS } from "./bound.ts";

describe("boundPayload: a payload cut to size before it leaves the agent's side", () => {
  it.each([
    ["scalars as they are", { a: 1, b: true, c: null, d: "x" }, { a: 1, b: true, c: null, d: "x" }],
    ["a long string cut, with …", "x".repeat(3000), `${"x".repeat(PAYLOAD_BOUNDS.string - 1)}…`],
    ["a string of exactly the bound kept", "y".repeat(2048), "y".repeat(2048)],
    [
      "deep objects and lists emptied",
      { a: { b: { c: { d: 1 }, l: [[1]] } } },
      { a: { b: { c: {}, l: [] } } },
    ],
    ["nested lists emptied at the depth bound", [[[[1]]], 2], [[[[]]], 2]],
    [
      "a long list cut to 16 items",
      Array.from({ length: 40 }, (_, i) => i),
      Array.from({ length: 16 }, (_, i) => i),
    ],
    ["a long key cut to 128 characters", { ["k".repeat(200)]: 1 }, { ["k".repeat(128)]: 1 }],
  ])("%s", (_name, input, expected) => {
    expect(boundPayload(input)).toEqual(expected);
  });

  it("keeps the first 64 keys of an object", () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(boundPayload(wide) as object)).toEqual(Array.from({ length: 64 }, (_, i) => `k${i}`));
  });

  it("a Claude Code hook input with a whole file in it stays small, its fields intact", () => {
    const input = {
      session_id: "abc123",
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: "/w/a.ts", content: "z".repeat(1 << 20) },
    };
    const out = boundPayload(input) as typeof input;
    expect([out.session_id, out.hook_event_name, out.tool_name]).toEqual(["abc123", "PreToolUse", "Write"]);
    expect(JSON.stringify(out).length).toBeLessThan(2200);
  });
});
