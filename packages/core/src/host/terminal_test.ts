import { describe, expect, it } from "vitest";
import { isTerminal } from "./terminal.ts";

describe("isTerminal", () => {
  it.each([
    ["the test hook names stderr", { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stderr" }, "stderr", true],
    ["…and not stdout", { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stderr" }, "stdout", false],
    ["both", { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stdout,stderr" }, "stdout", true],
    ["empty: none", { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "" }, "stderr", false],
  ] as const)("%s", (_name, env, stream, expected) => {
    expect(isTerminal(stream, env)).toBe(expected);
  });

  it("without ARIEL_TEST_HOOKS=1 the variable is ignored: the process decides", () => {
    const env = { ARIEL_TEST_TTY: "stdout,stderr" };
    expect(isTerminal("stderr", env)).toBe(process.stderr.isTTY === true);
    expect(isTerminal("stdout", env)).toBe(process.stdout.isTTY === true);
  });
});
