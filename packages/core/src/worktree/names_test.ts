import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { legDirName, legDirNames } from "./leg_dir.ts";
import { mergeOverlayPaths, normalizeOverlayPath, parseWorktreeInclude } from "./overlay.ts";
import { parseWorktreeList } from "./porcelain.ts";
import { snapshotRef, taskStateOf } from "./record.ts";

describe("legDirName", () => {
  it.each([
    ["api", "/w/app", "api"],
    ["libs/api", "/w/app", "libs__api"],
    [".", "/w/app", "app"],
    [".", "/w/my app", "root"],
    [".", "/", "root"],
  ])("%s in %s → %s", (source, root, dir) => {
    expect(legDirName(source, root)).toBe(dir);
  });
  it("refuses two sources sharing a directory", () => {
    expect(() => legDirNames(["app", "."], "/w/app")).toThrow(expect.objectContaining({ exit: 65 }));
  });
});

describe("overlay paths", () => {
  it("parses .worktreeinclude like gitignore", () => {
    expect(parseWorktreeInclude("# c\n.env.*\n\n  \nconfig/local/  \n")).toEqual([".env.*", "config/local/"]);
  });
  eachMaps(
    normalizeOverlayPath,
    [
      ["./.env", ".env"],
      ["a//b", "a/b"],
      ["../x", null],
      ["/etc/passwd", null],
      [".git/config", null],
      ["", null],
    ],
    "normalizeOverlayPath(%j) → %j",
  );
  it("merges, dedupes and sorts bytewise", () => {
    expect(mergeOverlayPaths([".env", "b"], ["B", "./.env", "../no"])).toEqual([".env", "B", "b"]);
  });
  it("sorts a name above U+FFFF after U+E000..U+FFFF, as its UTF-8 bytes do", () => {
    // UTF-16 code units put the surrogate pair of U+1F600 (0xD83D...) before U+FF01; UTF-8
    // (f0 9f 98 80 vs ef bc 81) and git put it after.
    expect(mergeOverlayPaths(["\u{1F600}.env", "\uFF01.env", "a.env"])).toEqual([
      "a.env",
      "\uFF01.env",
      "\u{1F600}.env",
    ]);
  });
});

describe("parseWorktreeList", () => {
  it("reads main, locked, detached and prunable entries", () => {
    const out =
      "worktree /r\0HEAD aaaa\0branch refs/heads/main\0\0" +
      "worktree /w/t/api\0HEAD bbbb\0branch refs/heads/ariel/t\0locked ariel:t\0\0" +
      "worktree /w/x\0HEAD cccc\0detached\0locked\0prunable gitdir file points to non-existent location\0\0";
    expect(parseWorktreeList(out)).toEqual([
      {
        path: "/r",
        head: "aaaa",
        branch: "refs/heads/main",
        bare: false,
        detached: false,
        locked: null,
        prunable: null,
        main: true,
      },
      {
        path: "/w/t/api",
        head: "bbbb",
        branch: "refs/heads/ariel/t",
        bare: false,
        detached: false,
        locked: "ariel:t",
        prunable: null,
        main: false,
      },
      {
        path: "/w/x",
        head: "cccc",
        branch: null,
        bare: false,
        detached: true,
        locked: "",
        prunable: "gitdir file points to non-existent location",
        main: false,
      },
    ]);
  });
});

describe("record helpers", () => {
  it("names the snapshot ref after the leg directory", () => {
    expect(snapshotRef("t", "/w/.ariel/worktrees/t/libs__api")).toBe("refs/ariel/snapshots/t/libs__api");
  });
  it.each([
    [["active", "removed"], "active"],
    [["removed", "snapshotted"], "closed"],
    [["removed", "unknown"], "unknown"],
  ] as const)("taskStateOf(%j) → %s", (states, out) => {
    const legs = states.map((state) => ({ state }) as never);
    expect(taskStateOf(legs)).toBe(out);
  });
});
