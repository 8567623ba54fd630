import { describe, expect, it } from "vitest";
import { compileGlobs, globToRegExp } from "./glob.ts";

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
