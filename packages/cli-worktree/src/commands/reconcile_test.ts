import type { ReconcileStep } from "@ariel/core";
import { describe, expect, it } from "vitest";
import { stepRecord, stepRow } from "./reconcile.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);

describe("reconcile's rows and records", () => {
  it.each([
    [
      { fix: "remove-stale-lock", task: "t1", path: "/w/.ariel/tasks/t1.lock" },
      ["remove-stale-lock", "t1", "/w/.ariel/tasks/t1.lock", "-"],
    ],
    [
      {
        fix: "remove-worktree",
        task: "t1",
        repo: "/w/api",
        path: "/w/.ariel/worktrees/t1/api",
        branch: "ariel/t1",
        locked: null,
      },
      ["remove-worktree", "t1", "/w/.ariel/worktrees/t1/api", "ariel/t1"],
    ],
    [
      {
        fix: "remove-worktree",
        task: "t1",
        repo: "/w/api",
        path: "/p",
        branch: null,
        locked: "initializing",
      },
      ["remove-worktree", "t1", "/p", "-"],
    ],
    [
      { fix: "prune", task: "t1", repo: "/w/api", path: "/p", adminDir: "/w/api/.git/worktrees/api" },
      ["prune", "t1", "/p", "/w/api/.git/worktrees/api"],
    ],
    [
      { fix: "relock", task: "t1", repo: "/w/api", path: "/p", from: null },
      ["relock", "t1", "/p", "unlocked -> ariel:t1"],
    ],
    [
      { fix: "relock", task: "t1", repo: "/w/api", path: "/p", from: "initializing" },
      ["relock", "t1", "/p", "initializing -> ariel:t1"],
    ],
    [
      { fix: "delete-branch", task: "t1", repo: "/w/api", branch: "ariel/t1", tip: A },
      ["delete-branch", "t1", "ariel/t1", A],
    ],
    [
      { fix: "remove-dir", task: "t1", path: "/w/.ariel/worktrees/t1" },
      ["remove-dir", "t1", "/w/.ariel/worktrees/t1", "-"],
    ],
    [
      {
        fix: "mark-leg",
        task: "t1",
        source: "api",
        path: "/p",
        from: "active",
        to: "removed",
        taskState: "closed",
      },
      ["mark-leg", "t1", "/p", "active -> removed (task closed)"],
    ],
    [
      { fix: "reopen", task: "t1", from: "cleaning", taskState: "active" },
      ["reopen", "t1", "t1", "cleaning -> active"],
    ],
    [
      { fix: "release-ports", task: "t1", ports: [20000, 20001] },
      ["release-ports", "t1", "t1", "20000,20001"],
    ],
    [
      { fix: "finish-land", task: "t1", source: "api", path: "/w/api", target: "main", from: A, to: B },
      ["finish-land", "t1", "/w/api", `main ${A.slice(0, 12)} -> ${B.slice(0, 12)}`],
    ],
    [
      { fix: "mark-landed", task: "t1", source: "api", path: "/w/api", target: "main", to: B },
      ["mark-landed", "t1", "/w/api", `main at ${B.slice(0, 12)}`],
    ],
    [
      { fix: "finish-sandbox", task: "", path: "/w/api", run: "20260101T000000Z-aaaaaa" },
      ["finish-sandbox", "-", "20260101T000000Z-aaaaaa", "/w/api"],
    ],
  ] as [ReconcileStep, string[]][])("%j", (step, row) => {
    expect(stepRow(step)).toEqual(row);
  });

  it("a step's record: the plan action, the task only when there is one, then the step's fields", () => {
    expect(stepRecord({ fix: "remove-dir", task: "t1", path: "/p" })).toEqual({
      v: 1,
      type: "plan",
      action: "worktree.reconcile",
      task: "t1",
      fix: "remove-dir",
      path: "/p",
    });
    expect(Object.keys(stepRecord({ fix: "remove-dir", task: "t1", path: "/p" }))).toEqual([
      "v",
      "type",
      "action",
      "task",
      "fix",
      "path",
    ]);
    expect(stepRecord({ fix: "finish-sandbox", task: "", path: "/w", run: "r" })).toEqual({
      v: 1,
      type: "plan",
      action: "worktree.reconcile",
      fix: "finish-sandbox",
      path: "/w",
      run: "r",
    });
  });
});
