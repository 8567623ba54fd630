import { describe, expect, it } from "vitest";
import { closest, didYouMean, editDistance } from "./suggest.ts";

describe("editDistance", () => {
  it.each<[string, string, number]>([
    ["", "", 0],
    ["json", "json", 0],
    ["jsno", "json", 1],
    ["lst", "list", 1],
    ["remvoe", "remove", 1],
    ["kitten", "sitting", 3],
    ["", "abc", 3],
    ["dirty", "", 5],
  ])("%j → %j is %i", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe("closest", () => {
  const commands = ["add", "list", "verify", "remove", "restore", "reconcile"];
  it.each<[string, readonly string[], string | undefined]>([
    ["lst", commands, "list"],
    ["restor", commands, "restore"],
    ["reomve", commands, "remove"],
    ["frobnicate", commands, undefined],
    ["list", commands, undefined],
    ["--jsno", ["--json", "--task"], "--json"],
    ["--dryrun", ["--dry-run", "--json"], "--dry-run"],
    ["-x", ["-C", "-n"], undefined],
    ["ad", commands, "add"],
    ["dirt", ["dirty", "unreachable"], "dirty"],
    ["ap", ["api", "web"], "api"],
  ])("%j among %j → %j", (word, candidates, expected) => {
    expect(closest(word, candidates)).toBe(expected);
  });

  it("the first candidate wins a tie", () => {
    expect(closest("abc", ["abd", "abe"])).toBe("abd");
  });
});

describe("didYouMean", () => {
  it("quotes the suggestion as JSON", () => {
    expect(didYouMean("lst", ["list"])).toBe('did you mean "list"?');
    expect(didYouMean("zzz", ["list"])).toBeUndefined();
  });
});
