import { afterEach, describe, expect, it, vi } from "vitest";
import { defineCommand } from "./define.ts";
import { runCli } from "./run.ts";
import { PIPE_TERMINAL } from "./terminal.ts";

// A command's stdin: the caller's when given, else the process's, made only when read (the
// process.stdin getter makes a stream and loads tty or net: start-up time a command that reads
// nothing must not pay).

const sink = { write: () => {} };

function reading(seen: string[]) {
  return defineCommand({
    meta: { name: "ariel-x", description: "x" },
    run: async (ctx) => {
      for await (const chunk of ctx.stdin)
        seen.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
      return 0;
    },
  });
}

const quiet = defineCommand({ meta: { name: "ariel-x", description: "x" }, run: () => 0 });

afterEach(() => vi.restoreAllMocks());

describe("runCli: stdin", () => {
  it("a command that reads nothing never makes the process's stdin", async () => {
    const getter = vi.spyOn(process, "stdin", "get");
    const opts = { version: "1", argv: [], stdout: sink, stderr: sink, term: PIPE_TERMINAL };
    expect(await runCli(quiet, opts)).toBe(0);
    expect(getter).not.toHaveBeenCalled();
  });

  it("a command that reads it gets the caller's input, and the process's stdin only when none is given", async () => {
    const getter = vi.spyOn(process, "stdin", "get");
    const seen: string[] = [];
    const stdin = (async function* () {
      yield "a";
      yield new TextEncoder().encode("b");
    })();
    const opts = { version: "1", argv: [], stdout: sink, stderr: sink, term: PIPE_TERMINAL };
    expect(await runCli(reading(seen), { ...opts, stdin })).toBe(0);
    expect([seen, getter.mock.calls.length]).toEqual([["a", "b"], 0]);
    const empty = (async function* () {})();
    getter.mockReturnValue(empty as unknown as typeof process.stdin);
    expect(await runCli(reading(seen), opts)).toBe(0);
    expect([seen, getter.mock.calls.length]).toEqual([["a", "b"], 1]);
  });
});
