import { describe, expect, it } from "vitest";
import { shellCommand, shellQuote } from "./shell_quote.ts";

describe("shellQuote", () => {
  it.each([
    ["a plain word stays bare", "t1", "t1"],
    ["a path stays bare", "/w/.ariel/runs/x.ndjson", "/w/.ariel/runs/x.ndjson"],
    ["a space is quoted", "/my ws", "'/my ws'"],
    ["a quote is closed, escaped and reopened", "it's", "'it'\\''s'"],
    ["the empty word is ''", "", "''"],
    ["a dollar sign is quoted", "$HOME", "'$HOME'"],
    ["a newline is quoted", "a\nb", "'a\nb'"],
  ])("%s", (_name, word, quoted) => {
    expect(shellQuote(word)).toBe(quoted);
  });

  it("shellCommand quotes each word", () => {
    expect(shellCommand(["ariel-worktree", "remove", "-C", "/my ws", "--task", "t1"])).toBe(
      "ariel-worktree remove -C '/my ws' --task t1",
    );
  });
});
