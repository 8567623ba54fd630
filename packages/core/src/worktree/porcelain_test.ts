import { describe, expect, it } from "vitest";
import { lockReason } from "./ours.ts";
import { parseWorktreeList, type WorktreeEntry } from "./porcelain.ts";

const entry = (over: Partial<WorktreeEntry>): WorktreeEntry => ({
  path: "/r",
  head: null,
  branch: null,
  bare: false,
  detached: false,
  locked: null,
  prunable: null,
  main: false,
  ...over,
});
const ZERO = "0".repeat(40);
const ENDS_IN_ZEROS = `1${"0".repeat(39)}`;
const STARTS_WITH_ZEROS = `${"0".repeat(39)}1`;

describe("parseWorktreeList: edges", () => {
  it.each<[string, string, WorktreeEntry[]]>([
    ["nothing", "", []],
    ["a bare main repository", "worktree /r\0bare\0\0", [entry({ bare: true, main: true })]],
    ["no empty field after the last entry", "worktree /r\0HEAD abc", [entry({ head: "abc", main: true })]],
    [
      "entries not separated by an empty field",
      "worktree /r\0worktree /w\0\0",
      [entry({ main: true }), entry({ path: "/w" })],
    ],
    ["an unborn branch (all-zero HEAD)", `worktree /r\0HEAD ${ZERO}\0\0`, [entry({ main: true })]],
    [
      "a HEAD that only ends in zeros",
      `worktree /r\0HEAD ${ENDS_IN_ZEROS}\0\0`,
      [entry({ head: ENDS_IN_ZEROS, main: true })],
    ],
    [
      "a HEAD that only starts with zeros",
      `worktree /r\0HEAD ${STARTS_WITH_ZEROS}\0\0`,
      [entry({ head: STARTS_WITH_ZEROS, main: true })],
    ],
    ["a prunable entry without a reason", "worktree /r\0prunable\0\0", [entry({ prunable: "", main: true })]],
    ["a worktree line without a path", "worktree\0\0", [entry({ path: "", main: true })]],
    [
      "fields before any worktree line are ignored",
      "HEAD abc\0bare\0\0worktree /r\0\0",
      [entry({ main: true })],
    ],
    ["unknown fields are ignored", "worktree /r\0future thing\0\0", [entry({ main: true })]],
    [
      "only the first entry is the main worktree",
      "worktree /r\0\0worktree /a\0\0worktree /b\0\0",
      [entry({ main: true }), entry({ path: "/a" }), entry({ path: "/b" })],
    ],
  ])("%s", (_n, stdout, expected) => {
    expect(parseWorktreeList(stdout)).toEqual(expected);
  });

  it("a task's lock reason", () => {
    expect(lockReason("fix-1")).toBe("ariel:fix-1");
  });
});
