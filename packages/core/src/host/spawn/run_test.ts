import { describe, expect, it } from "vitest";
import { type IsolateRequest, isolationOptions } from "./run.ts";

const SOURCES = [{ name: "api", path: "/w/api", checkout: true }];
const iso = (over: Partial<IsolateRequest> = {}): IsolateRequest => ({
  span: false,
  onExit: "remove",
  ...over,
});

describe("isolationOptions", () => {
  it.each<[string, IsolateRequest | undefined, Record<string, unknown>]>([
    ["a shared run: root and sources only", undefined, {}],
    ["an isolate request without options", iso(), {}],
    [
      "every option of the worktree manager, for foreground and detached runs alike",
      iso({
        taskId: "t1",
        base: "main",
        branch: "b",
        withChanges: true,
        sparse: ["packages/a"],
        share: ["node_modules"],
      }),
      {
        taskId: "t1",
        base: "main",
        branch: "b",
        withChanges: true,
        sparse: ["packages/a"],
        share: ["node_modules"],
      },
    ],
    ["empty --sparse and --share lists are left out", iso({ sparse: [], share: [] }), {}],
    ["--keep: the worktrees stay (no pre-remove hook in the plan)", iso({ onExit: "keep" }), { keep: true }],
    ["--snapshot still removes them", iso({ onExit: "snapshot" }), {}],
  ])("%s", (_, request, extra) => {
    expect(isolationOptions("/w", SOURCES, request)).toEqual({ root: "/w", sources: SOURCES, ...extra });
  });
});
