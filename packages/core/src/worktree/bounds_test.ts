import { describe, expect, it } from "vitest";
import { recordBytes } from "../limits.ts";
import { type BoundLeg, taskRecordBytesAtMost } from "./bounds.ts";
import { newTaskRecord } from "./record.ts";

const leg = (over: Partial<BoundLeg> = {}): BoundLeg => ({
  name: "api",
  path: "/w/api",
  worktreePath: "/w/.ariel/worktrees/t/api",
  baseCommit: "a".repeat(40),
  overlay: [".env", ".mcp.json"],
  ...over,
});

describe("taskRecordBytesAtMost", () => {
  it("is never below the size of a real record of the same task", () => {
    const real = newTaskRecord({
      taskId: "t",
      root: "/w",
      hash: "0123456789abcdef",
      owner: "me@host",
      legs: [
        {
          source: "api",
          sourcePath: "/w/api",
          fingerprint: "f".repeat(64),
          branch: "ariel/t",
          base: "a".repeat(40),
          head: "b".repeat(40),
          worktreePath: "/w/.ariel/worktrees/t/api",
          overlay: [
            { path: ".env", sha256: "1".repeat(64), skipWorktree: true },
            { path: ".mcp.json", sha256: "2".repeat(64) },
          ],
          state: "active",
        },
      ],
      fencingToken: 123456,
      now: "2026-12-02T11:20:23.869Z",
    });
    const bound = taskRecordBytesAtMost({ taskId: "t", branch: "ariel/t", root: "/w", owner: "me@host" }, [
      leg(),
    ]);
    expect(bound).toBeGreaterThanOrEqual(recordBytes({ ...real, version: 99999 }));
    // …and close to it: a bound that is far too wide would refuse tasks that fit.
    expect(bound - recordBytes({ ...real, version: 99999 })).toBeLessThan(100);
  });

  it("grows with every overlay file (each is recorded with its sha256)", () => {
    const task = { taskId: "t", branch: "ariel/t" };
    const one = taskRecordBytesAtMost(task, [leg({ overlay: ["a"] })]);
    const two = taskRecordBytesAtMost(task, [leg({ overlay: ["a", "b"] })]);
    // The path, a 64-hex sha256, the skipWorktree flag and the indentation of three keys.
    expect(two - one).toBe(163);
  });
});
