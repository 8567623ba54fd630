import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
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
      "half-made on its branch with submodule commits: kept, as remove refuses it",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { branch: "refs/heads/ariel/t1", locked: "ariel:t1" })],
            work: { [P]: { changes: [], unreachableHead: false, submoduleCommits: ["lib@c1"] } },
          }),
        ],
      }),
      [],
      ["W_KEPT_WORK"],
    ],
    [
      "half-made on its branch with commits only HEAD's reflog holds: kept, as remove refuses it",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { branch: "refs/heads/ariel/t1", locked: "ariel:t1" })],
            work: { [P]: { changes: [], unreachableHead: false, reflogOnly: ["c1"] } },
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
    ...(
      [
        ["a commit the record does not know", "b".repeat(40), null, "snapshotted"],
        ["a commit other than the one recorded", "b".repeat(40), "c".repeat(40), "snapshotted"],
        ["the commit the record knows", "b".repeat(40), "b".repeat(40), "removed"],
      ] as const
    ).map(([what, commit, recorded, to]): [string, ReconcileFacts, string[], string[]] => {
      const rec = record("t1", "cleaning", [[P, "active"]]);
      const snapshot = { ref: "refs/ariel/snapshots/t1/api", commit, recorded };
      return [
        `a cleaning task whose worktree is gone, its snapshot ref holding ${what}: leg ${to}`,
        facts({
          tasks: [task("t1", { record: { ...rec, legs: rec.legs.map((l) => ({ ...l, snapshot })) } })],
          dirs: [{ path: `${ROOT}/t1`, depth: 1, entries: [] }],
        }),
        [
          `remove-dir ${ROOT}/t1`,
          `mark-leg ${P} active->${to} task:closed${to === "snapshotted" ? " bbbb" : ""}`,
        ],
        [],
      ];
    }),
    // A remove --snapshot that died before (or during) `git worktree remove`: the worktree is
    // still there. Finished only when the snapshot holds all of it, else the task is active again.
    ...(
      [
        ["no snapshot ref", undefined, ["reopen t1 cleaning->active"]],
        [
          "the snapshot the record knows",
          { commit: "b".repeat(40), recorded: "b".repeat(40) },
          ["reopen t1 cleaning->active"],
        ],
        [
          "a snapshot the record does not know, not holding all of the worktree",
          { commit: "b".repeat(40), recorded: null, covers: false },
          ["reopen t1 cleaning->active"],
        ],
        [
          "a snapshot the record does not know, holding all of the worktree",
          { commit: "b".repeat(40), recorded: "c".repeat(40), covers: true },
          [
            `remove-worktree ${P}`,
            `remove-dir ${ROOT}/t1`,
            `mark-leg ${P} active->snapshotted task:closed bbbb`,
          ],
        ],
      ] as const
    ).map(([what, snap, steps]): [string, ReconcileFacts, string[], string[]] => {
      const rec = record("t1", "cleaning", [[P, "active"]]);
      const snapshot = snap ? { ref: "refs/ariel/snapshots/t1/api", ...snap } : undefined;
      return [
        `a cleaning task whose worktree is still there, ${what}: ${steps.join(", ")}`,
        facts({
          repos: [repo({ worktrees: [wt(P, { branch: "refs/heads/ariel/t1", locked: "ariel:t1" })] })],
          tasks: [
            task("t1", {
              record: { ...rec, legs: rec.legs.map((l) => ({ ...l, ...(snapshot ? { snapshot } : {}) })) },
            }),
          ],
          dirs: [
            { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
            { path: P, depth: 2, entries: [".git", "README.md"] },
          ],
        }),
        [...steps],
        [],
      ];
    }),
    [
      "a cleaning task whose git worktree remove stopped after deleting .git: marked, the files left reported",
      facts({
        repos: [
          repo({ worktrees: [wt(P, { branch: "refs/heads/ariel/t1", locked: "ariel:t1", exists: false })] }),
        ],
        tasks: [
          task("t1", {
            record: {
              ...record("t1", "cleaning", [[P, "active"]]),
              legs: record("t1", "cleaning", [[P, "active"]]).legs.map((l) => ({
                ...l,
                snapshot: { ref: "r", commit: "b".repeat(40), recorded: null },
              })),
            },
          }),
        ],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: ["README.md"] },
        ],
      }),
      [`prune ${P}`, `mark-leg ${P} active->snapshotted task:closed bbbb`],
      ["W_KEPT_DIR"],
    ],
    [
      "a cleaning task, one leg gone with a new snapshot, one still there: the first marked, the task active",
      facts({
        repos: [
          repo({ worktrees: [wt(`${ROOT}/t1/web`, { branch: "refs/heads/ariel/t1", locked: "ariel:t1" })] }),
        ],
        tasks: [
          task("t1", {
            record: {
              ...record("t1", "cleaning", [
                [P, "active"],
                [`${ROOT}/t1/web`, "active"],
              ]),
              legs: record("t1", "cleaning", [
                [P, "active"],
                [`${ROOT}/t1/web`, "active"],
              ]).legs.map((l, i) =>
                i === 0 ? { ...l, snapshot: { ref: "r", commit: "b".repeat(40), recorded: null } } : l,
              ),
            },
          }),
        ],
      }),
      [`mark-leg ${P} active->snapshotted task:active bbbb`],
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
        case "reopen":
          return `reopen ${s.task} ${s.from}->${s.taskState}`;
        case "mark-leg":
          return `mark-leg ${s.path} ${s.from}->${s.to} task:${s.taskState}${s.snapshot ? ` ${s.snapshot.commit.slice(0, 4)}` : ""}`;
        default:
          return `${s.fix} ${"path" in s ? s.path : ""}`;
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
  eachMaps(
    taskOfLock,
    [
      ["ariel:t1", "t1"],
      ["ariel:", null],
      ["ariel:../x", null],
      ["ariel:a..b", null],
      ["ariel:t1.", null],
      ["initializing", null],
      [null, null],
    ],
    "taskOfLock(%s) = %s",
  );
});

describe("planReconcile: exact notes", () => {
  const H = `${ROOT}/.hidden/api`;
  it.each<[string, ReconcileFacts, unknown[]]>([
    [
      "someone else's lock",
      facts({ repos: [repo({ worktrees: [wt(P, { locked: "bob" })] })] }),
      [
        {
          code: "W_NOT_OURS",
          message: `worktree ${P} is locked by someone else ("bob"); left alone`,
          path: P,
          repo: SRC,
        },
      ],
    ],
    [
      "a worktree under the root that names no task",
      facts({ repos: [repo({ worktrees: [wt(H)], work: { [H]: clean } })] }),
      [
        {
          code: "W_NOT_OURS",
          message: `worktree ${H} under the worktree root names no task; left alone`,
          path: H,
          repo: SRC,
        },
      ],
    ],
    [
      "an unreadable record, noted once for all its worktrees",
      facts({
        repos: [
          repo({ worktrees: [wt(P, { locked: "ariel:t1" }), wt(`${ROOT}/t1/web`, { locked: "ariel:t1" })] }),
        ],
        tasks: [task("t1", { problem: "not valid JSON" })],
      }),
      [
        {
          code: "W_RECORD_UNREADABLE",
          message: "task t1: record not readable, left alone (not valid JSON)",
          task: "t1",
        },
      ],
    ],
    [
      "local work: the first 20 changes, and an unreachable HEAD",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { locked: "ariel:t1" })],
            work: { [P]: { changes: Array.from({ length: 25 }, (_, i) => `f${i}`), unreachableHead: true } },
          }),
        ],
      }),
      [
        {
          code: "W_KEPT_WORK",
          message: `half-made worktree ${P} of task t1 holds local work; kept`,
          task: "t1",
          path: P,
          changes: Array.from({ length: 20 }, (_, i) => `f${i}`),
          unreachableHead: true,
        },
      ],
    ],
    [
      "no work facts at all: kept (what was not looked at is not thrown away)",
      facts({ repos: [repo({ worktrees: [wt(P, { locked: "ariel:t1" })] })] }),
      [
        {
          code: "W_KEPT_WORK",
          message: `half-made worktree ${P} of task t1 holds local work; kept`,
          task: "t1",
          path: P,
          changes: [],
        },
      ],
    ],
    [
      "a branch nobody else reaches",
      facts({
        repos: [repo({ branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: false }] })],
        tasks: [task("t1")],
      }),
      [
        {
          code: "W_KEPT_BRANCH",
          message: `branch ariel/t1 in ${SRC} holds commits no other ref reaches; kept`,
          task: "t1",
          branch: "ariel/t1",
          repo: SRC,
        },
      ],
    ],
    [
      "a leg directory with files",
      facts({ tasks: [task("t1")], dirs: [{ path: P, depth: 2, entries: ["a"] }] }),
      [
        {
          code: "W_KEPT_DIR",
          message: `directory ${P} of task t1 is no git worktree but holds files; kept`,
          task: "t1",
          path: P,
        },
      ],
    ],
    [
      "a record leg whose admin entry is gone",
      facts({
        tasks: [task("t1", { record: record("t1", "active", [[P, "active"]]) })],
        dirs: [{ path: P, depth: 2, entries: [".git"] }],
      }),
      [
        {
          code: "W_KEPT_DIR",
          message: `worktree ${P} of task t1 lost its git admin entry; kept (try git worktree repair)`,
          task: "t1",
          path: P,
        },
      ],
    ],
  ])("%s", (_name, input, notes) => {
    expect(planReconcile(input).notes).toEqual(notes);
  });
});

describe("planReconcile: exact steps", () => {
  it.each<[string, ReconcileFacts, unknown[]]>([
    [
      "a stale repository lock belongs to no task",
      facts({ staleLocks: [{ path: "/l", task: null }] }),
      [{ fix: "remove-stale-lock", task: "", path: "/l" }],
    ],
    [
      "a gone worktree without admin dir is not pruned, but its record leg is marked",
      facts({
        repos: [repo({ worktrees: [wt(P, { locked: "ariel:t1", exists: false, adminDir: null })] })],
        tasks: [task("t1", { record: record("t1", "active", [[P, "active"]]) })],
      }),
      [
        {
          fix: "mark-leg",
          task: "t1",
          source: "api",
          path: P,
          from: "active",
          to: "unknown",
          taskState: "unknown",
        },
      ],
    ],
    [
      "half-made worktree on its ariel branch, plus an unrelated worktree elsewhere",
      facts({
        repos: [
          repo({
            worktrees: [
              wt(P, { branch: "refs/heads/ariel/t1", locked: "initializing" }),
              wt("/elsewhere", { branch: "refs/heads/main" }),
            ],
            branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }],
            work: { [P]: clean },
          }),
        ],
      }),
      [
        {
          fix: "remove-worktree",
          task: "t1",
          repo: SRC,
          path: P,
          branch: "ariel/t1",
          locked: "initializing",
        },
        { fix: "delete-branch", task: "t1", repo: SRC, branch: "ariel/t1", tip: TIP },
      ],
    ],
    [
      "a detached half-made worktree: no branch to delete",
      facts({ repos: [repo({ worktrees: [wt(P, { locked: "ariel:t1" })], work: { [P]: clean } })] }),
      [{ fix: "remove-worktree", task: "t1", repo: SRC, path: P, branch: null, locked: "ariel:t1" }],
    ],
    [
      "a half-made worktree on a ref outside refs/heads",
      facts({
        repos: [
          repo({
            worktrees: [wt(P, { locked: "ariel:t1", branch: "refs/x/ariel/t1" })],
            work: { [P]: clean },
          }),
        ],
      }),
      [{ fix: "remove-worktree", task: "t1", repo: SRC, path: P, branch: null, locked: "ariel:t1" }],
    ],
    [
      "a leaked branch checked out in a live worktree of someone else is kept",
      facts({
        repos: [
          repo({
            worktrees: [wt("/elsewhere", { branch: "refs/heads/ariel/t1" })],
            branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }],
          }),
        ],
        tasks: [task("t1")],
      }),
      [],
    ],
    [
      "a leaked branch of a task that was never leased is not ariel's to delete",
      facts({
        repos: [repo({ branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }] })],
        tasks: [task("t1", { leased: false })],
      }),
      [],
    ],
    [
      "a leaked branch of a task whose record is unreadable is left alone",
      facts({
        repos: [repo({ branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }] })],
        tasks: [task("t1", { problem: "corrupt" })],
      }),
      [],
    ],
    [
      "a branch whose task part is no task id is never deleted, whatever the facts say",
      facts({
        repos: [repo({ branches: [{ name: "ariel/a b", tip: TIP, reachableElsewhere: true }] })],
        tasks: [task("a b")],
      }),
      [],
    ],
    [
      "a non-ariel branch named like a task is never deleted",
      facts({
        repos: [repo({ branches: [{ name: "t1", tip: TIP, reachableElsewhere: true }] })],
        tasks: [task("t1")],
      }),
      [],
    ],
    [
      "a cleaning task with one leg left on disk is active again",
      facts({
        repos: [repo({ worktrees: [wt(`${ROOT}/t1/web`, { locked: "ariel:t1" })] })],
        tasks: [
          task("t1", {
            record: record("t1", "cleaning", [
              [P, "active"],
              [`${ROOT}/t1/web`, "active"],
              [`${ROOT}/t1/lib`, "removed"],
            ]),
          }),
        ],
      }),
      [
        {
          fix: "mark-leg",
          task: "t1",
          source: "api",
          path: P,
          from: "active",
          to: "removed",
          taskState: "active",
        },
      ],
    ],
    [
      "a task directory holding an active record leg is kept even when its children look gone",
      facts({
        tasks: [task("t1", { record: record("t1", "active", [[`${ROOT}/t1/web`, "active"]]) })],
        repos: [repo({ worktrees: [wt(`${ROOT}/t1/web`, { locked: "ariel:t1" })] })],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: [] },
        ],
      }),
      [{ fix: "remove-dir", task: "t1", path: P }],
    ],
    [
      "a task directory whose record legs are all removed goes with its empty leg directory",
      facts({
        tasks: [task("t1", { record: record("t1", "closed", [[`${ROOT}/t1/web`, "removed"]]) })],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api"] },
          { path: P, depth: 2, entries: [".git"] },
        ],
      }),
      [
        { fix: "remove-dir", task: "t1", path: P },
        { fix: "remove-dir", task: "t1", path: `${ROOT}/t1` },
      ],
    ],
    [
      "a task directory with one child kept stays",
      facts({
        tasks: [task("t1")],
        dirs: [
          { path: `${ROOT}/t1`, depth: 1, entries: ["api", "web"] },
          { path: P, depth: 2, entries: [] },
          { path: `${ROOT}/t1/web`, depth: 2, entries: ["x"] },
        ],
      }),
      [{ fix: "remove-dir", task: "t1", path: P }],
    ],
  ])("%s", (_name, input, steps) => {
    expect(planReconcile(input).steps).toEqual(steps);
  });

  it("orders steps by task, then kind, then path (directories deepest and last name first)", () => {
    const a = `${ROOT}/t1/a`;
    const b = `${ROOT}/t1/b`;
    const plan = planReconcile(
      facts({
        staleLocks: [{ path: "/z.lock", task: "t2" }],
        repos: [
          repo({
            sourcePath: "/ws/web",
            worktrees: [wt(b, { locked: "ariel:t1" }), wt(a, { locked: "ariel:t1" })],
            work: { [a]: clean, [b]: clean },
            branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }],
          }),
          repo({ branches: [{ name: "ariel/t1", tip: TIP, reachableElsewhere: true }] }),
        ],
        tasks: [task("t2"), task("t1")],
        dirs: [
          { path: `${ROOT}/t2`, depth: 1, entries: ["x", "y"] },
          { path: `${ROOT}/t2/x`, depth: 2, entries: [] },
          { path: `${ROOT}/t2/y`, depth: 2, entries: [] },
        ],
      }),
    );
    expect(
      plan.steps.map(
        (s) =>
          `${s.task} ${s.fix} ${s.fix === "delete-branch" ? `${s.repo} ${s.branch}` : s.fix === "reopen" || s.fix === "release-ports" ? "" : s.path}`,
      ),
    ).toEqual([
      `t1 remove-worktree ${a}`,
      `t1 remove-worktree ${b}`,
      `t1 delete-branch ${SRC} ariel/t1`,
      "t1 delete-branch /ws/web ariel/t1",
      "t2 remove-stale-lock /z.lock",
      `t2 remove-dir ${ROOT}/t2/y`,
      `t2 remove-dir ${ROOT}/t2/x`,
      `t2 remove-dir ${ROOT}/t2`,
    ]);
  });
});

describe("taskOfPath / taskOfLock: edges", () => {
  it.each<[string, string, string, string | null]>([
    ["a root given with a trailing slash", `${ROOT}/`, `${ROOT}/t1/api`, "t1"],
    ["a name with a space", ROOT, `${ROOT}/a b/api`, null],
    ["the longest task id", ROOT, `${ROOT}/${"a".repeat(128)}/api`, "a".repeat(128)],
    ["one character too long", ROOT, `${ROOT}/${"a".repeat(129)}/api`, null],
  ])("taskOfPath: %s", (_name, root, p, expected) => {
    expect(taskOfPath(root, p)).toBe(expected);
  });
  eachMaps(
    taskOfLock,
    [
      ["ariel:t1 x", null],
      ["ariel:t-1.x_y", "t-1.x_y"],
      ["xariel:t1", null],
      [`ariel:${"a".repeat(129)}`, null],
    ],
    "taskOfLock(%j) = %j",
  );
});

describe("planReconcile: port leases", () => {
  it.each<[string, ReconcileFacts, unknown[]]>([
    [
      "a crashed add's leases (no record): released",
      facts({ tasks: [task("t1")], portLeases: [{ task: "t1", ports: [20000, 20001] }] }),
      [{ fix: "release-ports", task: "t1", ports: [20000, 20001] }],
    ],
    [
      "a task the workspace no longer knows at all: released",
      facts({ portLeases: [{ task: "gone", ports: [20002] }] }),
      [{ fix: "release-ports", task: "gone", ports: [20002] }],
    ],
    [
      "a closed task's: released",
      facts({
        tasks: [task("t1", { record: record("t1", "closed", []) })],
        portLeases: [{ task: "t1", ports: [1] }],
      }),
      [{ fix: "release-ports", task: "t1", ports: [1] }],
    ],
    [
      "an active task's: kept",
      facts({
        tasks: [task("t1", { record: record("t1", "active", []) })],
        portLeases: [{ task: "t1", ports: [1] }],
      }),
      [],
    ],
    [
      "an unreadable record's: left alone",
      facts({ tasks: [task("t1", { problem: "corrupt" })], portLeases: [{ task: "t1", ports: [1] }] }),
      [],
    ],
  ])("%s", (_name, f, want) => {
    expect(planReconcile(f).steps.filter((s) => s.fix === "release-ports")).toEqual(want);
  });
});
