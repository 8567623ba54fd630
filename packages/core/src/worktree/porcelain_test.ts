import { describe, expect, it } from "vitest";
import { lockReason } from "./ours.ts";
import { parseStatusV2, parseWorktreeList, type StatusV2, type WorktreeEntry } from "./porcelain.ts";

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

describe("parseStatusV2", () => {
  const SHA = "7f15651c24c63d9216d7edb917aefc02b0b1c2d3";
  const modes = "N... 100644 100644 100644";
  const hashes = `${SHA} ${SHA}`;
  it.each<[string, string, StatusV2]>([
    ["nothing at all", "", { head: null, paths: [] }],
    ["a clean checkout", `# branch.oid ${SHA}\0# branch.head main\0`, { head: SHA, paths: [] }],
    ["an unborn branch", "# branch.oid (initial)\0# branch.head main\0? a\0", { head: null, paths: ["a"] }],
    ["a detached HEAD", `# branch.oid ${SHA}\0# branch.head (detached)\0`, { head: SHA, paths: [] }],
    [
      "upstream headers are skipped",
      `# branch.oid ${SHA}\0# branch.head main\0# branch.upstream origin/main\0# branch.ab +? -?\0`,
      { head: SHA, paths: [] },
    ],
    [
      "a changed file whose name holds spaces",
      `1 .M ${modes} ${hashes} a b  c\0`,
      { head: null, paths: ["a b  c"] },
    ],
    [
      "a rename: the new path, the original skipped",
      `2 R. ${modes} ${hashes} R100 new name\0old name\0? u\0`,
      { head: null, paths: ["new name", "u"] },
    ],
    [
      "an unmerged path",
      `u UU N... 100644 100644 100644 100644 ${SHA} ${SHA} ${SHA} both\0`,
      { head: null, paths: ["both"] },
    ],
    [
      "a name with a newline (never quoted under -z)",
      "? line\nbreak\0",
      { head: null, paths: ["line\nbreak"] },
    ],
    ["ignored entries and unknown records are not paths", "! ign\0x what\0", { head: null, paths: [] }],
  ])("%s", (_name, stdout, want) => {
    expect(parseStatusV2(stdout)).toEqual(want);
  });
});
