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
  ])("%j sorts before %j", (a, b) => {
    expect(Math.sign(compareBytewise(a, b))).toBe(-1);
    expect(Math.sign(compareBytewise(b, a))).toBe(1);
    expect(Math.sign(utf8Order(a, b))).toBe(-1);
  });

  it("is 0 for equal strings", () => {
    expect(compareBytewise("x\u{1F600}", "x\u{1F600}")).toBe(0);
  });
});
