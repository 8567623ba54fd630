import { describe, expect, it } from "vitest";
import { nextRemoveCommand, removeRefusalSummary, verifySummary } from "./next_step.ts";

describe("nextRemoveCommand", () => {
  it.each([
    [
      "local work: --snapshot",
      { task: "t1", reasons: ["dirty", "unreachable"] },
      "ariel-worktree remove --task t1 --snapshot",
    ],
    [
      "kept on request: --snapshot",
      { task: "t1", reasons: ["keep"] },
      "ariel-worktree remove --task t1 --snapshot",
    ],
    [
      "a lock: no --snapshot",
      { task: "t1", reasons: ["dirty", "foreign-lock"] },
      "ariel-worktree remove --task t1",
    ],
    ["an error code: no --snapshot", { task: "t1", reasons: ["ERR_GIT"] }, "ariel-worktree remove --task t1"],
    [
      "one leg, a root with a space",
      { task: "t1", reasons: ["dirty"], sources: ["libs/web"], root: "/a b" },
      "ariel-worktree remove -C '/a b' --task t1 --source libs/web --snapshot",
    ],
  ])("%s", (_name, options, command) => {
    expect(nextRemoveCommand(options)).toBe(command);
  });
});

describe("removeRefusalSummary", () => {
  it.each([
    [
      "what --snapshot saves: the command",
      { task: "t1", refused: [{ source: "web", reason: "dirty" }], snapshot: false },
      "refused, nothing changed: web (dirty); next: ariel-worktree remove --task t1 --snapshot",
    ],
    [
      "the selected legs stay selected",
      { task: "t1", refused: [{ source: "web", reason: "dirty" }], snapshot: false, sources: ["web"] },
      "refused, nothing changed: web (dirty); next: ariel-worktree remove --task t1 --source web --snapshot",
    ],
    [
      "what --snapshot cannot help: the errors",
      { task: "t1", refused: [{ source: "api", reason: "branch-mismatch" }], snapshot: true },
      "refused, nothing changed: api (branch-mismatch); each error above says how to get past it",
    ],
    [
      "a leg refused at its removal, after another was removed",
      { task: "t1", refused: [{ source: "web", reason: "dirty" }], snapshot: false, removed: ["api"] },
      "refused after removing api: web (dirty); next: ariel-worktree remove --task t1 --snapshot",
    ],
  ])("%s", (_name, options, line) => {
    expect(removeRefusalSummary(options)).toBe(line);
  });
});

describe("verifySummary", () => {
  it.each([
    [
      "missing worktrees: restore them",
      { task: "t1", legs: 2, failed: [{ source: "web", code: "ERR_WORKTREE_MISSING" }] },
      "1 of 2 legs failed: web (ERR_WORKTREE_MISSING); next: ariel-worktree reconcile && ariel-worktree restore --task t1 --source web",
    ],
    [
      "anything else: the errors above say what to do",
      {
        task: "t1",
        legs: 2,
        failed: [
          { source: "api", code: "ERR_HEAD_MOVED" },
          { source: "web", code: "ERR_WORKTREE_MISSING" },
        ],
      },
      "2 of 2 legs failed: api (ERR_HEAD_MOVED), web (ERR_WORKTREE_MISSING)",
    ],
  ])("%s", (_name, options, line) => {
    expect(verifySummary(options)).toBe(line);
  });
});
