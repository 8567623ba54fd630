import { describe, expect, it } from "vitest";
import { compileGlobs, globToRegExp, matchGlob } from "./glob.ts";

describe("compileGlobs", () => {
  it.each([
    // [pattern, path, matches]
    ["vendor", "vendor", true],
    ["vendor", "libs/vendor", true],
    ["vendor", "vendors", false],
    ["vendor/", "libs/vendor", true],
    ["*", "anything", true],
    ["*", "a/b", true], // basename "b" matches
    ["legacy-*", "legacy-api", true],
    ["legacy-*", "x/legacy-api", true],
    ["legacy-*", "legacy", false],
    ["*.bak", "api.bak", true],
    ["*.bak", "api.bakx", false],
    ["a/*", "a/b", true],
    ["a/*", "a/b/c", false],
    ["a/*", "x/a/b", false],
    ["a/**", "a/b/c", true],
    ["a/**", "a", false],
    ["a/**/c", "a/c", true],
    ["a/**/c", "a/b/c", true],
    ["a/**/c", "a/b/d/c", true],
    ["a/**/c", "a/bc", false],
    ["**/c", "c", true],
    ["**/c", "x/y/c", true],
    ["**", "x/y", true],
    ["?", "a", true],
    ["?", "ab", false],
    ["a?c", "abc", true],
    ["a?c", "a/c", false],
    ["[abc]", "b", true],
    ["[abc]", "d", false],
    ["[a-c]x", "bx", true],
    ["[!a-c]x", "bx", false],
    ["[!a-c]x", "dx", true],
    ["[^a]", "b", true],
    ["[]]", "]", true],
    ["\\*", "*", true],
    ["\\*", "a", false],
    ["a.b", "a.b", true],
    ["a.b", "axb", false],
    ["(x)+", "(x)+", true],
    ["/tools", "tools", true],
    ["/tools", "x/tools", false],
    ["/tools/**", "tools/a/b", true],
    ["/*", "a", true],
    ["/*", "a/b", false],
  ])("%j vs %j -> %j", (pattern, path, expected) => {
    expect(compileGlobs([pattern])(path)).toBe(expected);
  });

  it("matches when any pattern matches", () => {
    const m = compileGlobs(["x", "y*"]);
    expect([m("x"), m("yes"), m("z")]).toEqual([true, true, false]);
  });

  it("matches nothing without patterns", () => {
    expect(compileGlobs([])("a")).toBe(false);
  });

  it("rejects an unclosed bracket", () => {
    expect(() => globToRegExp("[ab")).toThrow(TypeError);
  });
});

describe("globs: edges", () => {
  it.each<[string, string, boolean]>([
    ["[!a]x", "bx", true],
    ["[!a]x", "ax", false],
    ["[^a]x", "ax", false],
    ["[!a]x", "/x", false], // a negated class never matches "/"
    ["a\\*", "a*", true],
    ["a\\*", "ab", false],
    ["a\\", "a\\", true], // a trailing backslash is itself
    ["//anchored//", "anchored", true],
    ["//anchored//", "x/anchored", false],
    ["/", "x", false],
    ["x.y", "x.y/z", false], // anchored at the end: the dot is literal, and no match past it
    ["a\nb", "a\nb", true], // the dot of ".*" spans newlines
    ["**", "a\nb/c", true],
  ])("%j against %j → %s", (glob, path, expected) => {
    expect(compileGlobs([glob])(path)).toBe(expected);
  });

  it("no pattern matches nothing", () => {
    expect(compileGlobs([])("a")).toBe(false);
  });

  it("an unclosed class is a TypeError naming the pattern", () => {
    expect(() => globToRegExp("a[b")).toThrow(new TypeError("unclosed '[' in glob \"a[b\""));
  });

  it("matchGlob is one compiled pattern", () => {
    expect([matchGlob("*.bak", "x/a.bak"), matchGlob("/x", "y/x")]).toEqual([true, false]);
  });
});
