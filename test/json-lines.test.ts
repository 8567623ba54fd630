/**
 * The shared check every e2e helper runs on a CLI's --json lines (helpers/json_lines.ts): a
 * record's first two keys are `v` and `type`. Here it is fed a process that breaks the rule, to
 * show it can fail.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { recordLineProblem, takeJsonLineProblems, wantsJson, watchJsonLines } from "./helpers/json_lines.ts";

describe("the --json line check", () => {
  it.each([
    ["a record", '{"v":1,"type":"run","runId":"x"}', null],
    ["type before v", '{"type":"run","v":1}', 'the first keys are ["type","v"], not ["v","type"]'],
    ["no type", '{"v":1,"runId":"x"}', 'the first keys are ["v","runId"], not ["v","type"]'],
    ["an array", "[1]", "not a JSON object"],
    ["plain text", "ariel-runs: warning: x", "not a JSON record"],
    ["a test hook's marker", "ariel-test-paused x 123", null],
    ["an empty line", "", null],
  ])("%s", (_n, line, want) => {
    expect(recordLineProblem(line)).toBe(want);
  });

  it.each([
    [["list", "--json"], true],
    [["--json", "--", "node"], true],
    [["--", "node", "--json"], false],
    [["list"], false],
  ])("%j asks for --json: %s", (args, want) => {
    expect(wantsJson(args)).toBe(want);
  });

  it("catches a process's bad lines on stdout and stderr, whole lines only, split across chunks", async () => {
    const script = [
      'process.stdout.write(\'{"v":1,"type":"ok"}\\n{"type":"bad",\');',
      'setTimeout(() => { process.stdout.write(\'"v":1}\\n{"v":1,"type":"torn\'); process.stderr.write("oops\\n"); }, 50);',
    ].join("");
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    watchJsonLines(child, "fake", ["--json"]);
    await new Promise((r) => child.once("close", r));
    expect(takeJsonLineProblems()).toEqual([
      'fake --json: stdout: the first keys are ["type","v"], not ["v","type"]: {"type":"bad","v":1}',
      "fake --json: stderr: not a JSON record: oops",
    ]);
  });
});
