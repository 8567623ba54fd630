import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { isLockOf, lockReason, taskBranch, taskOfBranch, taskOfLock } from "./ours.ts";

describe("lock reason", () => {
  eachMaps(
    taskOfLock,
    [
      ["ariel:t1", "t1"],
      ["ariel:fix-login.2", "fix-login.2"],
      ["ariel:", null],
      ["ariel:../x", null],
      ["ariel:a..b", null],
      ["ariel:a.lock", null],
      ["ariel:a.", null],
      ["ariel:t1 ", null],
      ["Ariel:t1", null],
      ["initializing", null],
      ["", null],
      [null, null],
    ],
    "taskOfLock(%j) = %j",
  );

  it("reads back what it writes", () => {
    expect(lockReason("t1")).toBe("ariel:t1");
    expect(taskOfLock(lockReason("fix-login-3k9x2a"))).toBe("fix-login-3k9x2a");
  });

  it.each([
    ["ariel:t1", "t1", true],
    ["ariel:t2", "t1", false],
    ["ariel:t1x", "t1", false],
    [null, "t1", false],
    ["", "t1", false],
  ])("isLockOf(%j, %j) = %j", (reason, task, expected) => {
    expect(isLockOf(reason, task)).toBe(expected);
  });
});

describe("task branch", () => {
  eachMaps(
    taskOfBranch,
    [
      ["ariel/t1", "t1"],
      ["ariel/a/b", null],
      ["ariel/", null],
      ["ariel/a..b", null],
      ["feature/t1", null],
      ["ariel", null],
    ],
    "taskOfBranch(%j) = %j",
  );

  it("reads back what it writes", () => {
    expect(taskBranch("t1")).toBe("ariel/t1");
    expect(taskOfBranch(taskBranch("t1"))).toBe("t1");
  });
});
