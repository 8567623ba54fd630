import { describe, expect, it } from "vitest";
import { taskOfLock } from "../worktree/ours.ts";
import type { ReconcileFacts, RepoFact, TaskFact, WorktreeFact } from "./facts.ts";
import { planReconcile, taskOfPath } from "./plan.ts";

const ROOT = "/ws/.ariel/worktrees";
const SRC = "/ws/api";
const TIP = "a".repeat(40);

function wt(path: string, over: Partial<WorktreeFact> = {}): WorktreeFact {
  return {
    path,
    head: TIP,
    branch: null,
    locked: null,
    exists: true,
    adminDir: `${SRC}/.git/worktrees/x`,
    ...over,
  };
}
function repo(over: Partial<RepoFact> = {}): RepoFact {
  return { sourcePath: SRC, commonGitDir: `${SRC}/.git`, worktrees: [], branches: [], work: {}, ...over };
}
const clean = { changes: [], unreachableHead: false };
function task(taskId: string, over: Partial<TaskFact> = {}): TaskFact {
  return { taskId, record: null, leased: true, ...over };
}
function record(taskId: string, state: string, legs: [path: string, legState: string][]) {
  return {
    taskId,
    state,
    version: 3,
    legs: legs.map(([path, s]) => ({
      source: "api",
      sourcePath: SRC,
      branch: `ariel/${taskId}`,
      worktreePath: path,
      state: s,
    })),
  };
}
function facts(over: Partial<ReconcileFacts>): ReconcileFacts {
  return { worktreeRoot: ROOT, repos: [], tasks: [], dirs: [], ...over };
}
const P = `${ROOT}/t1/api`;

describe("planReconcile", () => {
  it.each<[string, ReconcileFacts, string[], string[]]>([
    ["nothing at all", facts({}), [], []],
    [
      "a healthy task changes nothing",
      facts({
        repos: [repo({ worktrees: [wt(P, { branch: "refs/heads/ariel/t1", locked: "ariel:t1" })] })],
        tasks: [task("t1", { record: record("t1", "active", [[P, "active"]]) })],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: [".git", "README.md"] },
        ],
      }),
      [],
      [],
    ],
    [
      "half-made (locked ariel:t1, no record, clean): remove worktree, its ariel branch, the task dir",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { branch: "refs/heads/ariel/t1", locked: "ariel:t1" })],
            branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }],
            work: { [P]: clean },
          }),
        ],
        tasks: [task("t1")],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: [".git"] },
        ],
      }),
      [`remove-worktree ${P}`, "delete-branch ariel/t1", `remove-dir ${ROOT}/t1`],
      [],
    ],
    [
      "half-made locked initializing under our root, not leased: removed too",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { branch: "refs/heads/feature", locked: "initializing" })],
            work: { [P]: clean },
          }),
        ],
      }),
      [`remove-worktree ${P}`],
      [],
    ],
    [
      "half-made with local work: kept, relocked from initializing, branch kept",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { branch: "refs/heads/ariel/t1", locked: "initializing" })],
            branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }],
            work: { [P]: { changes: ["notes.txt"], unreachableHead: false } },
          }),
        ],
        tasks: [task("t1")],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: [".git", "notes.txt"] },
        ],
      }),
      [`relock ${P}`],
      ["W_KEPT_WORK"],
    ],
    [
      "half-made detached with unreachable commits: kept",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { locked: "ariel:t1" })],
            work: { [P]: { changes: [], unreachableHead: true } },
          }),
        ],
      }),
      [],
      ["W_KEPT_WORK"],
    ],
    [
      "the crashed add's branch with commits nobody else reaches: worktree removed, branch kept",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { branch: "refs/heads/ariel/t1", locked: "ariel:t1" })],
            branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: false }],
            work: { [P]: clean },
          }),
        ],
      }),
      [`remove-worktree ${P}`],
      ["W_KEPT_BRANCH"],
    ],
    [
      "a branch other than ariel/<task> is never deleted",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { branch: "refs/heads/feature", locked: "ariel:t1" })],
            branches: [],
            work: { [P]: clean },
          }),
        ],
        tasks: [task("t1")],
      }),
      [`remove-worktree ${P}`],
      [],
    ],
    [
      "someone else's lock under our root: reported, untouched",
      facts({ repos: [repo({ worktrees: [wt(P, { locked: "bob is debugging" })], work: { [P]: clean } })] }),
      [],
      ["W_NOT_OURS"],
    ],
    [
      "a worktree outside our root, not ariel-locked: not even looked at",
      facts({ repos: [repo({ worktrees: [wt("/elsewhere/wt", { exists: false })] })] }),
      [],
      [],
    ],
    [
      "an ariel-locked admin entry whose directory is gone: pruned; the record leg marked unknown",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { locked: "ariel:t1", exists: false, adminDir: `${SRC}/.git/worktrees/api` })],
          }),
        ],
        tasks: [task("t1", { record: record("t1", "active", [[P, "active"]]) })],
      }),
      [`prune ${P}`, `mark-leg ${P} active->unknown task:unknown`],
      [],
    ],
    [
      "a cleaning task whose worktrees are gone: legs removed, task closed",
      facts({
        tasks: [
          task("t1", {
            record: record("t1", "cleaning", [
              [P, "active"],
              [`${ROOT}/t1/web`, "removed"],
            ]),
          }),
        ],
      }),
      [`mark-leg ${P} active->removed task:closed`],
      [],
    ],
    [
      "a closed task is left as it is",
      facts({ tasks: [task("t1", { record: record("t1", "closed", [[P, "active"]]) })] }),
      [],
      [],
    ],
    [
      "a record leg whose directory exists but git forgot it: kept and reported",
      facts({
        tasks: [task("t1", { record: record("t1", "active", [[P, "active"]]) })],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: [".git", "x"] },
        ],
      }),
      [],
      ["W_KEPT_DIR"],
    ],
    [
      "a record leg not locked: relocked",
      facts({
        repos: [repo({ worktrees: [wt(P, { locked: null })] })],
        tasks: [task("t1", { record: record("t1", "active", [[P, "active"]]) })],
      }),
      [`relock ${P}`],
      [],
    ],
    [
      "an empty leg directory and task directory without admin entry (crash before git worktree add)",
      facts({
        tasks: [task("t1")],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: [] },
        ],
      }),
      [`remove-dir ${P}`, `remove-dir ${ROOT}/t1`],
      [],
    ],
    [
      "a leg directory with files but no admin entry: kept, so its task directory too",
      facts({
        tasks: [task("t1")],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: ["work.txt"] },
        ],
      }),
      [],
      ["W_KEPT_DIR"],
    ],
    [
      "a directory of a task ariel never knew (no record, no lease) is left alone",
      facts({ dirs: [{ path: `${ROOT}/zz`, depth: 1, entries: [] }] }),
      [],
      [],
    ],
    [
      "a leaked ariel/<task> branch of a leased task without record: deleted when nothing is lost",
      facts({
        repos: [repo({ branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }] })],
        tasks: [task("t1")],
      }),
      ["delete-branch ariel/t1"],
      [],
    ],
    [
      "an ariel/<task> branch of a task with a record is the task's: kept silently",
      facts({
        repos: [repo({ branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }] })],
        tasks: [task("t1", { record: record("t1", "closed", [[P, "removed"]]) })],
      }),
      [],
      [],
    ],
    [
      "stale lock files of ariel's are cleared (repository locks first)",
      facts({
        staleLocks: [
          { path: "/ws/.ariel/leases/t1.json.lock", task: "t1" },
          { path: `${SRC}/.git/ariel-worktree.lock`, task: null },
        ],
      }),
      [
        `remove-stale-lock ${SRC}/.git/ariel-worktree.lock`,
        "remove-stale-lock /ws/.ariel/leases/t1.json.lock",
      ],
      [],
    ],
    [
      "a task whose record is unreadable is never touched",
      facts({
        repos: [repo({ worktrees: [wt(P, { locked: "ariel:t1", exists: false })] })],
        tasks: [task("t1", { problem: "not valid JSON" })],
        dirs: [{ path: `${ROOT}/t1`, depth: 1, entries: [] }],
      }),
      [],
      ["W_RECORD_UNREADABLE"],
    ],
  ])("%s", (_name, input, expectedSteps, expectedNotes) => {
    const plan = planReconcile(input);
    const show = plan.steps.map((s) => {
      switch (s.fix) {
        case "delete-branch":
          return `delete-branch ${s.branch}`;
        case "mark-leg":
          return `mark-leg ${s.path} ${s.from}->${s.to} task:${s.taskState}`;
        default:
          return `${s.fix} ${s.path}`;
      }
    });
    expect(show).toEqual(expectedSteps);
    expect(plan.notes.map((n) => n.code)).toEqual(expectedNotes);
  });
});

describe("taskOfPath / taskOfLock", () => {
  it.each([
    [`${ROOT}/t1/api`, "t1"],
    [`${ROOT}/t1`, "t1"],
    [ROOT, null],
    [`${ROOT}x/t1`, null],
    [`${ROOT}/.hidden/api`, null],
    [`${ROOT}/a..b/api`, null],
    [`${ROOT}/x.lock/api`, null],
  ])("taskOfPath(%s) = %s", (p, expected) => {
    expect(taskOfPath(ROOT, p)).toBe(expected);
  });
  it.each([
    ["ariel:t1", "t1"],
    ["ariel:", null],
    ["ariel:../x", null],
    ["ariel:a..b", null],
    ["ariel:t1.", null],
    ["initializing", null],
    [null, null],
  ])("taskOfLock(%s) = %s", (r, expected) => {
    expect(taskOfLock(r)).toBe(expected);
  });
});
