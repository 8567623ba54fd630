import { describe, expect, it } from "vitest";
import { parseCommits, parseFiles } from "./diff.ts";

describe("parseCommits", () => {
  it.each([
    ["empty", "", []],
    [
      "two commits",
      "aaa\0fix it\0bbb\0start\0",
      [
        { commit: "aaa", subject: "fix it" },
        { commit: "bbb", subject: "start" },
      ],
    ],
    [
      "a newline between records",
      "aaa\0one\0\nbbb\0two\0",
      [
        { commit: "aaa", subject: "one" },
        { commit: "bbb", subject: "two" },
      ],
    ],
  ])("%s", (_name, input, expected) => {
    expect(parseCommits(input)).toEqual(expected);
  });
});

describe("parseFiles", () => {
  it("joins numstat and name-status; binary files have null counts; tabs in names survive", () => {
    expect(parseFiles("3\t1\ta.txt\0-\t-\tbin\0" + "0\t2\tx\ty\0", "M\0a.txt\0A\0bin\0D\0x\ty\0")).toEqual([
      { path: "a.txt", status: "M", added: 3, deleted: 1 },
      { path: "bin", status: "A", added: null, deleted: null },
      { path: "x\ty", status: "D", added: 0, deleted: 2 },
    ]);
  });
});
