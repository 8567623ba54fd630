import { describe, expect, it } from "vitest";
import type { Leg } from "../schema/task.ts";
import { compareBytewise } from "./_deps.ts";
import { mergeOverlayPaths, normalizeOverlayPath, parseWorktreeInclude } from "./overlay.ts";
import { newTaskRecord, snapshotRef, taskOutput } from "./record.ts";

const leg = { source: "api", state: "active" } as Leg;

describe("newTaskRecord / taskOutput", () => {
  it("a new record: active, version 1, no artifacts, both times now", () => {
    const r = newTaskRecord({
      taskId: "t",
      root: "/w",
      hash: "0123456789abcdef",
      owner: "me",
      legs: [leg],
      fencingToken: 4,
      now: "2026-01-01T00:00:00.000Z",
    });
    expect(r).toEqual({
      v: 1,
      type: "task",
      taskId: "t",
      workspace: { root: "/w", hash: "0123456789abcdef" },
      owner: "me",
      state: "active",
      legs: [leg],
      artifacts: [],
      fencingToken: 4,
      version: 1,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    const out = taskOutput(r);
    expect(out).toEqual(r);
    expect(out).not.toBe(r);
  });
});

describe("snapshotRef", () => {
  it.each([
    ["/w/.ariel/worktrees/t/api", "refs/ariel/snapshots/t/api"],
    ["/w/.ariel/worktrees/t/api//", "refs/ariel/snapshots/t/api"],
    ["/w/.ariel/worktrees/t/libs__web/", "refs/ariel/snapshots/t/libs__web"],
  ])("%s → %s", (path, expected) => {
    expect(snapshotRef("t", path)).toBe(expected);
  });
});

describe("overlay paths: edges", () => {
  it.each<[string, string, string[]]>([
    ["trailing spaces go, escaped ones stay", "a.env  \nb\\ \n", ["a.env", "b\\ "]],
    ["CRLF and comments", "x\r\n# c\r\ny\r\n", ["x", "y"]],
    ["inner spaces stay", "my file.env  \n", ["my file.env"]],
  ])("parseWorktreeInclude: %s", (_n, text, expected) => {
    expect(parseWorktreeInclude(text)).toEqual(expected);
  });

  it.each<[string, string | null]>([
    ["a\0b", null],
    [".", null],
    ["./", null],
    [".git", null],
    ["./.git/hooks/x", null],
    [".github/x", ".github/x"],
    ["a/./b/", "a/b"],
    ["a/.git", "a/.git"],
  ])("normalizeOverlayPath(%j) → %j", (input, expected) => {
    expect(normalizeOverlayPath(input)).toBe(expected);
  });

  it("mergeOverlayPaths of nothing is nothing", () => {
    expect(mergeOverlayPaths()).toEqual([]);
    expect(mergeOverlayPaths(["/abs", ""], [".git/config"])).toEqual([]);
  });

  it.each([
    ["a", "b", -1],
    ["b", "a", 1],
    ["a", "a", 0],
    ["B", "a", -1],
  ])("compareBytewise(%j, %j) = %d", (a, b, expected) => {
    expect(compareBytewise(a, b)).toBe(expected);
  });
});
