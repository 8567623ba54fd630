import { describe, expect, it } from "vitest";
import { ArielError } from "../errors.ts";
import { checkRecord, RECORD_SCHEMAS } from "./mod.ts";

const HEAD = "0123456789abcdef0123456789abcdef01234567";

const VALID: [string, Record<string, unknown>][] = [
  [
    "source",
    {
      v: 1,
      type: "source",
      name: ".",
      path: "/ws",
      kind: "checkout",
      gitDir: "/ws/.git",
      head: HEAD,
      branch: "main",
    },
  ],
  [
    "source",
    {
      v: 1,
      type: "source",
      name: "api",
      path: "/ws/api",
      kind: "worktree",
      gitDir: "/m/.git/worktrees/api",
      head: null,
      branch: null,
      dirty: true,
      ahead: 2,
      behind: null,
      upstream: "origin/main",
      fingerprint: "a".repeat(64),
      futureField: { ignored: true },
    },
  ],
  ["error", { v: 1, type: "error", code: "ERR_DIRTY", message: "m", hint: "h", exit: 3, source: "api" }],
  ["warning", { v: 1, type: "warning", code: "W_SKIP", message: "m", path: "/x" }],
  ["plan", { v: 1, type: "plan", action: "worktree.add", task: "t" }],
];

describe("RECORD_SCHEMAS", () => {
  it.each(VALID)("accepts a %s record", (type, record) => {
    expect(checkRecord(RECORD_SCHEMAS[type]!, record, "test")).toEqual(record);
  });

  it.each<[string, string, Record<string, unknown>, string]>([
    [
      "source with a relative path",
      "source",
      { ...VALID[0]![1], path: "ws" },
      "stdin line 1: path: must match /^\\//",
    ],
    [
      "source with a short head",
      "source",
      { ...VALID[0]![1], head: "abc" },
      "stdin line 1: head: must match /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/",
    ],
    [
      "source of unknown kind",
      "source",
      { ...VALID[0]![1], kind: "bare" },
      'stdin line 1: kind: must be "checkout" or "worktree" or "submodule"',
    ],
    ["source of version 2", "source", { ...VALID[0]![1], v: 2 }, "stdin line 1: v: must be 1"],
    [
      "source without a name",
      "source",
      { ...VALID[0]![1], name: undefined },
      "stdin line 1: name: expected string",
    ],
    [
      "error with a bad code",
      "error",
      { ...VALID[2]![1], code: "dirty" },
      "stdin line 1: code: must match /^ERR_[A-Z0-9_]+$/",
    ],
    [
      "error with exit 300",
      "error",
      { ...VALID[2]![1], exit: 300 },
      "stdin line 1: exit: must be at most 255",
    ],
    [
      "plan without a verb",
      "plan",
      { ...VALID[4]![1], action: "worktree" },
      "stdin line 1: action: must match /^[a-z][a-z0-9-]*\\.[a-z][a-z0-9.-]*$/",
    ],
    [
      "not an object",
      "warning",
      [] as unknown as Record<string, unknown>,
      "stdin line 1: (root): expected object",
    ],
    [
      "two problems",
      "warning",
      { v: 1, type: "warning" },
      "stdin line 1: code: expected string (and 1 more)",
    ],
  ])("rejects %s", (_name, type, record, message) => {
    let err: unknown;
    try {
      checkRecord(RECORD_SCHEMAS[type]!, record, "stdin line 1");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArielError);
    expect((err as ArielError).code).toBe("ERR_INVALID_INPUT");
    expect((err as ArielError).message).toBe(message);
  });
});
