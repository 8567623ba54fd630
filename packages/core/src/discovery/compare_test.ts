import { describe, expect, it } from "vitest";
import { compareBytewise } from "./compare.ts";

function utf8Order(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return x.length - y.length;
}

describe("compareBytewise", () => {
  it.each([
    ["a", "b"],
    ["B", "a"],
    ["-x", "."],
    [".", ".github"],
    ["a", "a/b"],
    ["a-b", "a/b"], // "-" (0x2d) < "/" (0x2f)
    ["\uFF01", "\u{1F600}"], // UTF-16 order would say the opposite
    ["é", "\uFF01"],
    ["a\uFF01", "a\u{1F600}"],
    ["\u{1F600}", "\u{1F601}"],
    ["x\uFF01", "y"],
  ])("%j sorts before %j", (a, b) => {
    expect(Math.sign(compareBytewise(a, b))).toBe(-1);
    expect(Math.sign(compareBytewise(b, a))).toBe(1);
    expect(Math.sign(utf8Order(a, b))).toBe(-1);
  });

  it("is 0 for equal strings", () => {
    expect(compareBytewise("x\u{1F600}", "x\u{1F600}")).toBe(0);
  });
});

describe("compareBytewise: the edges of the surrogate lift", () => {
  it.each([
    ["a prefix", "\uFF01", "\uFF01x"],
    ["U+D7FF (last code unit below the surrogates)", "\uD7FF\uFF01", "\uE000"],
    ["U+E000 (first code unit above them)", "\uE000", "\uD800\uDC00"],
    ["U+FFFF against U+10000 (a pair starting at U+D800)", "\uFFFF", "\uD800\uDC00"],
    ["U+E000 against U+10FFFF (a pair ending at U+DFFF)", "\uE000", "\uDBFF\uDFFF"],
  ])("%s: %j before %j, the same as UTF-8", (_n, a, b) => {
    expect([Math.sign(compareBytewise(a, b)), Math.sign(compareBytewise(b, a))]).toEqual([-1, 1]);
    expect(Math.sign(utf8Order(a, b))).toBe(-1);
  });

  it.each(["", "a", "\uFF01"])("%j equals itself", (s) => {
    expect(compareBytewise(s, s)).toBe(0);
  });
});
