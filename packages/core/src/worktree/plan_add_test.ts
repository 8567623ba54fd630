import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../schema/task.ts";
import { type AddSourceFacts, planAdd } from "./plan_add.ts";
import type { WorktreeEntry } from "./porcelain.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const main: WorktreeEntry = {
  path: "/w/api",
  head: A,
  branch: "refs/heads/main",
  bare: false,
  detached: false,
  locked: null,
  prunable: null,
  main: true,
};
const wtPath = "/w/.ariel/worktrees/t/api";

function facts(over: Partial<AddSourceFacts> = {}): AddSourceFacts {
  return {
    name: "api",
    path: "/w/api",
    worktreePath: wtPath,
    baseCommit: A,
    branchCommit: null,
    worktrees: [main],
    pathExists: false,
    overlay: [".env"],
    ...over,
  };
}

function record(over: Partial<TaskRecord> = {}): TaskRecord {
  return {
    v: 1,
    type: "task",
    taskId: "t",
    workspace: { root: "/w", hash: "0123456789abcdef" },
    owner: "me",
    state: "active",
    legs: [
      {
        source: "api",
        sourcePath: "/w/api",
        fingerprint: "f".repeat(64),
        branch: "ariel/t",
        base: A,
        head: A,
        worktreePath: wtPath,
        overlay: [],
        state: "active",
      },
    ],
    artifacts: [],
    fencingToken: 1,
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...over,
  };
}

const req = { taskId: "t", sources: ["api"], branch: "ariel/t" };

describe("planAdd", () => {
  it("plans one create leg per source", () => {
    expect(planAdd(req, null, [facts()])).toEqual({
      kind: "create",
      legs: [
        {
          source: "api",
          sourcePath: "/w/api",
          branch: "ariel/t",
          base: A,
          worktreePath: wtPath,
          mode: "create",
          overlay: [".env"],
        },
      ],
    });
  });

  it("returns an identical existing task unchanged (idempotent)", () => {
    const r = record();
    expect(planAdd(req, r, [facts()])).toEqual({ kind: "existing", record: r });
  });

  it("ignores a moved HEAD when no --base was given", () => {
    const r = record();
    expect(planAdd(req, r, [facts({ baseCommit: B })]).kind).toBe("existing");
  });

  it.each([
    ["other sources", { ...req, sources: ["api", "web"] }, record(), /its sources are api/],
    ["other branch", { ...req, branch: "feature/x" }, record(), /its branch is ariel\/t/],
    [
      "other base",
      { ...req, base: "v2" },
      record({ legs: [{ ...record().legs[0]!, base: B }] }),
      /base of api/,
    ],
    ["closed task", req, record({ state: "closed" }), /restore/],
  ])("refuses a conflicting add: %s", (_name, request, existing, hint) => {
    let err: unknown;
    try {
      planAdd(request, existing, [facts()]);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "ERR_TASK_CONFLICT", exit: 3 });
    const e = err as { message: string; hint: string };
    expect(`${e.message} ${e.hint}`).toMatch(hint);
  });

  it("adopts a worktree of ours left by a crashed add", () => {
    for (const lock of ["ariel:t", "initializing"]) {
      const ours: WorktreeEntry = {
        ...main,
        path: wtPath,
        branch: "refs/heads/ariel/t",
        main: false,
        locked: lock,
      };
      const plan = planAdd(req, null, [
        facts({ worktrees: [main, ours], branchCommit: A, pathExists: true }),
      ]);
      expect(plan.kind === "create" && plan.legs[0]?.mode).toBe("adopt");
    }
  });

  it.each([
    ["a foreign lock", { locked: "someone else" }],
    ["the lock of another ariel task", { locked: "ariel:t2" }],
    ["the lock of a task whose id starts like ours", { locked: "ariel:tt" }],
    ["an empty lock reason", { locked: "" }],
    ["no lock", { locked: null }],
    ["another branch", { locked: "ariel:t", branch: "refs/heads/other" }],
    ["a detached HEAD", { locked: "ariel:t", branch: null, detached: true }],
  ])("refuses a worktree at the path with %s, naming its lock", (_n, over) => {
    const other: WorktreeEntry = {
      ...main,
      path: wtPath,
      branch: "refs/heads/ariel/t",
      main: false,
      ...over,
    };
    let err: unknown;
    try {
      planAdd(req, null, [facts({ worktrees: [main, other], branchCommit: A, pathExists: true })]);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: "ERR_TASK_CONFLICT",
      exit: 3,
      message: `${wtPath} is already a worktree of api that ariel did not make for task "t"`,
      context: { task: "t", source: "api", path: wtPath, lock: other.locked },
    });
  });

  it("refuses an existing branch that is not ours", () => {
    expect(() => planAdd(req, null, [facts({ branchCommit: B })])).toThrow(
      /already exists in api and is not ours/,
    );
  });

  it("refuses a branch checked out elsewhere, naming where", () => {
    const elsewhere: WorktreeEntry = {
      ...main,
      path: "/elsewhere",
      branch: "refs/heads/ariel/t",
      main: false,
    };
    expect(() => planAdd(req, null, [facts({ branchCommit: B, worktrees: [main, elsewhere] })])).toThrow(
      /checked out at \/elsewhere/,
    );
  });

  it("plans 64 legs, and refuses 65 before anything is made (ERR_TOO_MANY_LEGS, 65)", () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        facts({ name: `s${i}`, path: `/w/s${i}`, worktreePath: `/w/.ariel/worktrees/t/s${i}`, overlay: [] }),
      );
    const plan = planAdd({ ...req, sources: many(64).map((f) => f.name) }, null, many(64));
    expect(plan.kind === "create" && plan.legs.length).toBe(64);
    let err: unknown;
    try {
      planAdd({ ...req, sources: many(65).map((f) => f.name) }, null, many(65));
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: "ERR_TOO_MANY_LEGS",
      exit: 65,
      message: "65 sources given; a task spans at most 64",
    });
  });

  it("refuses a task whose record would pass 64 KiB (ERR_RECORD_TOO_LARGE, 65)", () => {
    const overlay = Array.from(
      { length: 400 },
      (_, i) => `config/local/file-${String(i).padStart(4, "0")}.env`,
    );
    let err: unknown;
    try {
      planAdd(req, null, [facts({ overlay })]);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "ERR_RECORD_TOO_LARGE", exit: 65 });
    expect((err as Error).message).toMatch(
      /^task "t" would need a record of up to \d+ bytes, over the 65536-byte bound \(1 legs, 400 overlay files\)$/,
    );
    // The same overlay split so the record fits is planned.
    expect(planAdd(req, null, [facts({ overlay: overlay.slice(0, 200) })]).kind).toBe("create");
  });

  it("refuses a path that exists but is no worktree (exit 73)", () => {
    expect(() => planAdd(req, null, [facts({ pathExists: true })])).toThrow(
      expect.objectContaining({ code: "ERR_EXISTS", exit: 73 }),
    );
  });
});
