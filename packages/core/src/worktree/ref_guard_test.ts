import { describe, expect, it } from "vitest";
import { checkTaskRef, snapshotRefProblem, taskRefProblem } from "./ref_guard.ts";

describe("the refs a task may change", () => {
  const branches = ["ariel/t1", "feature/x"];
  it.each([
    ["refs/ariel/snapshots/t1/api", null],
    ["refs/ariel/snapshots/t1/run-7.a", null],
    ["refs/heads/ariel/t1", null],
    ["refs/heads/feature/x", null],
    ["refs/heads/main", "is not a branch of the task's legs"],
    ["refs/heads/../x", "is not a valid branch"],
    ["refs/ariel/snapshots/t2/api", "is not under refs/ariel/snapshots/t1/"],
    ["refs/ariel/snapshots/t1", "is not under refs/ariel/snapshots/t1/"],
    ["refs/ariel/snapshots/t1/", "has a bad name after refs/ariel/snapshots/t1/: is empty"],
    ["refs/ariel/snapshots/t1/..", 'has a bad name after refs/ariel/snapshots/t1/: contains ".."'],
    [
      "refs/ariel/snapshots/t1/../../heads/main",
      'has a bad name after refs/ariel/snapshots/t1/: contains ".."',
    ],
    ["refs/ariel/snapshots/t1/a.lock", expect.stringContaining('ending with ".lock"')],
    ["refs/ariel/runs/r1/head", "is not under refs/ariel/snapshots/t1/"],
    ["refs/tags/v1", "is not under refs/ariel/snapshots/t1/"],
    ["HEAD", "is not under refs/ariel/snapshots/t1/"],
  ])("%s: %j", (ref, problem) => {
    expect(taskRefProblem("t1", ref, branches)).toEqual(problem);
  });

  it("a snapshot ref is never a branch", () => {
    expect(snapshotRefProblem("t1", "refs/heads/ariel/t1")).toBe("is not under refs/ariel/snapshots/t1/");
  });

  it("checkTaskRef throws ERR_REF_PROTECTED (exit 3) naming the ref", () => {
    const task = { taskId: "t1", legs: [{ branch: "ariel/t1" }] };
    expect(() => checkTaskRef(task, "refs/heads/ariel/t1")).not.toThrow();
    expect(() => checkTaskRef(task, "refs/heads/main")).toThrow(
      expect.objectContaining({
        code: "ERR_REF_PROTECTED",
        exit: 3,
        message: `ref "refs/heads/main" is not a branch of the task's legs: not changed`,
      }),
    );
  });
});
