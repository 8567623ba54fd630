import { describe, expect, it } from "vitest";
import { shellWords } from "./shell_words.ts";

describe("shellWords", () => {
  it.each<[string, string[], string]>([
    ["bare words", ["--source", "x", "--", "ls", "-la"], "--source x -- ls -la"],
    ["paths, = and @", ["-C", "/a/b.c", "--x=y@z"], "-C /a/b.c --x=y@z"],
    ["a space", ["echo", "hi there"], "echo 'hi there'"],
    ["an empty word", ["printf", ""], "printf ''"],
    ["a single quote", ["it's"], "'it'\\''s'"],
    ["shell syntax", ["a;b", "$HOME", "*"], "'a;b' '$HOME' '*'"],
    ["a control character", ["\u001b[31m"], "$'\\x1b[31m'"],
    ["a newline and a quote", ["a'\nb"], "$'a\\'\\x0ab'"],
    ["non-ASCII", ["café"], "$'caf\\xe9'"],
    ["beyond Latin-1", ["→"], "$'\\u2192'"],
  ])("%s", (_name, words, line) => {
    expect(shellWords(words)).toBe(line);
  });

  it("never lets a control character through", () => {
    for (let c = 0; c < 0x20; c++) {
      expect(shellWords([`x${String.fromCharCode(c)}y`])).toMatch(/^[\x20-\x7e]+$/);
    }
  });
});
