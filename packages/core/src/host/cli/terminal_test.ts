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
});
