import { describe, expect, it } from "vitest";
import { shellInit } from "./shell_init.ts";

describe("shellInit", () => {
  it.each([
    ["bash", "complete -F _ariel_acd acd"],
    ["zsh", "compdef _ariel_acd acd"],
    ["fish", "complete -c acd -f"],
  ])("%s: defines acd over ariel-worktree path, with completion", (shell, completion) => {
    const text = shellInit(shell);
    expect(text).toContain("command ariel-worktree path");
    expect(text).toContain(completion);
    expect(text.endsWith("\n")).toBe(true);
  });

  it("refuses another shell with a suggestion (ERR_USAGE)", () => {
    expect(() => shellInit("bsh")).toThrow(
      expect.objectContaining({ code: "ERR_USAGE", hint: expect.stringContaining("bash") }),
    );
  });
});
