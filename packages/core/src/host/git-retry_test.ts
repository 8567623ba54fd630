import { describe, expect, it } from "vitest";
import type { GitPort, GitResult } from "../ports.ts";
import { eachMaps } from "../testing/cases.ts";
import { isTransientGitError, runGitRetrying } from "./git-retry.ts";

const ok: GitResult = { code: 0, stdout: "ok\n", stderr: "" };
const fail = (stderr: string): GitResult => ({ code: 128, stdout: "", stderr });

const COMMONDIR = "fatal: failed to read /r/.git/worktrees/a/commondir: Success\n";
const CONFIG_LOCK = "error: could not lock config file .git/config: File exists\n";
const INDEX_LOCK = "fatal: Unable to create '/r/.git/index.lock': File exists.\n";

/** A fake git answering from a script of results, recording each call. */
function scripted(results: GitResult[]): GitPort & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    async run(args) {
      calls.push([...args]);
      const r = results.shift();
      if (!r) throw new Error("no more scripted results");
      return r;
    },
  };
}

describe("isTransientGitError", () => {
  eachMaps(
    isTransientGitError,
    [
      [COMMONDIR, true],
      [CONFIG_LOCK, true],
      [INDEX_LOCK, true],
      ["fatal: Unable to create '/r/.git/refs/heads/x.lock': File exists.", true],
      ["error: could not lock config file /r/.git/config.worktree: File exists", true],
      ["fatal: a branch named 'ariel/x' already exists", false],
      ["fatal: '/w/x' already exists", false],
      ["fatal: invalid reference: nope", false],
      ["", false],
    ],
    "%j → %s",
  );
});

describe("runGitRetrying", () => {
  const noSleep = { sleep: async () => {}, random: () => 1 };

  it.each([
    ["success at once", [ok], 0, 1],
    ["commondir then success", [fail(COMMONDIR), ok], 0, 2],
    ["two lock errors then success", [fail(CONFIG_LOCK), fail(INDEX_LOCK), ok], 0, 3],
    ["a real failure is not retried", [fail("fatal: invalid reference: nope"), ok], 128, 1],
    ["transient then real failure stops", [fail(COMMONDIR), fail("fatal: bad"), ok], 128, 2],
  ])("%s", async (_n, results, code, attempts) => {
    const git = scripted([...results]);
    const r = await runGitRetrying(git, ["worktree", "add", "x"], { cwd: "/r", ...noSleep });
    expect([r.code, r.attempts, git.calls.length]).toEqual([code, attempts, attempts]);
  });

  it("gives up after the bounded number of attempts, returning the last failure", async () => {
    const git = scripted(Array.from({ length: 10 }, () => fail(COMMONDIR)));
    const r = await runGitRetrying(git, ["worktree", "add"], { cwd: "/r", attempts: 4, ...noSleep });
    expect([r.code, r.attempts, r.stderr, git.calls.length]).toEqual([128, 4, COMMONDIR, 4]);
  });

  it("backs off exponentially with jitter, capped, and calls beforeRetry between attempts", async () => {
    const git = scripted([...Array.from({ length: 6 }, () => fail(INDEX_LOCK)), ok]);
    const slept: number[] = [];
    const before: number[] = [];
    const r = await runGitRetrying(git, ["commit"], {
      cwd: "/r",
      attempts: 7,
      baseDelayMs: 100,
      maxDelayMs: 1000,
      random: () => 1,
      sleep: async (ms) => {
        slept.push(ms);
      },
      beforeRetry: (attempt) => {
        before.push(attempt);
      },
    });
    expect(r.code).toBe(0);
    expect(slept).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(before).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("jitter keeps each wait within [half, full] of the ceiling", async () => {
    const git = scripted([fail(COMMONDIR), ok]);
    const slept: number[] = [];
    await runGitRetrying(git, ["x"], {
      cwd: "/r",
      baseDelayMs: 100,
      random: () => 0,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    expect(slept).toEqual([50]);
  });
});
