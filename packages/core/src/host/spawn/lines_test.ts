import { describe, expect, it } from "vitest";
import { LineSplitter, MAX_LINE_CHARS } from "./lines.ts";

const enc = (s: string) => new TextEncoder().encode(s);

describe("LineSplitter", () => {
  it("splits across chunks and flushes a partial last line", () => {
    const s = new LineSplitter();
    expect(s.push(enc("a\nb"))).toEqual([{ line: "a", partial: false }]);
    expect(s.push(enc("c\n\nd"))).toEqual([
      { line: "bc", partial: false },
      { line: "", partial: false },
    ]);
    expect(s.end()).toEqual([{ line: "d", partial: true }]);
    expect(s.end()).toEqual([]);
  });

  it("decodes a UTF-8 character split between chunks", () => {
    const bytes = enc("é\n");
    const s = new LineSplitter();
    expect(s.push(bytes.slice(0, 1))).toEqual([]);
    expect(s.push(bytes.slice(1))).toEqual([{ line: "é", partial: false }]);
  });

  it("cuts an unterminated line longer than the limit into partial pieces", () => {
    const s = new LineSplitter();
    const out = s.push(enc("x".repeat(MAX_LINE_CHARS + 5)));
    expect(out.map((l) => [l.line.length, l.partial])).toEqual([[MAX_LINE_CHARS, true]]);
    expect(s.push(enc("\n"))).toEqual([{ line: "xxxxx", partial: false }]);
  });
});
