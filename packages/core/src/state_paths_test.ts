import { describe, expect, it } from "vitest";
import { ArielError } from "./errors.ts";
import {
  defaultWorktreeRoot,
  leasePath,
  leasesDir,
  runsDir,
  STATE_DIR,
  stateDir,
  taskDirPath,
  taskOfStateFile,
  taskRecordPath,
  tasksDir,
} from "./state_paths.ts";
import { eachMaps } from "./testing/cases.ts";

describe("state paths", () => {
  it.each([
    ["stateDir", stateDir("/ws"), "/ws/.ariel"],
    ["tasksDir", tasksDir("/ws"), "/ws/.ariel/tasks"],
    ["leasesDir", leasesDir("/ws"), "/ws/.ariel/leases"],
    ["runsDir", runsDir("/ws"), "/ws/.ariel/runs"],
    ["defaultWorktreeRoot", defaultWorktreeRoot("/ws/"), "/ws/.ariel/worktrees"],
    ["taskRecordPath", taskRecordPath("/ws", "t1"), "/ws/.ariel/tasks/t1.json"],
    ["leasePath", leasePath("/ws", "fix-login.2"), "/ws/.ariel/leases/fix-login.2.json"],
    ["taskDirPath", taskDirPath("/ws/.ariel/worktrees", "t1"), "/ws/.ariel/worktrees/t1"],
  ])("%s", (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it("names the directory once", () => {
    expect(STATE_DIR).toBe(".ariel");
  });

  // The ids a fault-injection run used to create lease files with: each builder refuses them.
  it.each(["a..b", "x..", "a.lock", "aa.", "../x", "", "-x", "a/b", `${"a".repeat(129)}`])(
    "refuses the task id %j in every per-task path",
    (id) => {
      for (const build of [
        () => taskRecordPath("/ws", id),
        () => leasePath("/ws", id),
        () => taskDirPath("/ws/.ariel/worktrees", id),
      ]) {
        let err: unknown;
        try {
          build();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(ArielError);
        expect([(err as ArielError).code, (err as ArielError).exit]).toEqual(["ERR_INVALID_TASK_ID", 65]);
      }
    },
  );

  eachMaps(
    taskOfStateFile,
    [
      ["t1.json", "t1"],
      ["t1.json.lock", null],
      [".t1.json.tmp", null],
      [".hidden.json", null],
      ["t1.txt", null],
    ],
    "taskOfStateFile(%j) = %j",
  );
});
