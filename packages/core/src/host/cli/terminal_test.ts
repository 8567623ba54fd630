import { describe, expect, it } from "vitest";
import { processTerminal } from "./terminal.ts";

describe("processTerminal", () => {
  const tty = { isTTY: true, columns: 120 };
  const pipe = {};
  it.each<[string, Record<string, string>, object, object, object]>([
    ["both pipes", {}, pipe, pipe, { stdout: false, stderr: false, columns: undefined, color: false }],
    [
      "both terminals",
      {},
      tty,
      { isTTY: true, columns: 90 },
      { stdout: true, stderr: true, columns: 120, color: true },
    ],
    [
      "stdout piped, stderr a terminal",
      {},
      pipe,
      { isTTY: true, columns: 90 },
      { stdout: false, stderr: true, columns: 90, color: true },
    ],
    ["NO_COLOR", { NO_COLOR: "" }, tty, tty, { stdout: true, stderr: true, columns: 120, color: false }],
    ["TERM=dumb", { TERM: "dumb" }, tty, tty, { stdout: true, stderr: true, columns: 120, color: false }],
  ])("%s", (_name, env, stdout, stderr, expected) => {
    expect(processTerminal(env, stdout, stderr)).toEqual(expected);
  });

  it.each<[string, Record<string, string>, object]>([
    [
      "the test hook names stderr",
      { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stderr" },
      { stdout: false, stderr: true },
    ],
    ["both", { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stdout,stderr" }, { stdout: true, stderr: true }],
    [
      "empty: none, over real terminals",
      { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "" },
      { stdout: false, stderr: false },
    ],
    [
      "without ARIEL_TEST_HOOKS=1 the variable is ignored",
      { ARIEL_TEST_TTY: "" },
      { stdout: true, stderr: true },
    ],
  ])("%s", (_name, env, expected) => {
    expect(processTerminal(env, tty, tty)).toMatchObject(expected);
  });
});
