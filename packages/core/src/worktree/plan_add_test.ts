import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../schema/task.ts";
import { taskRecord } from "./_fixture.ts";
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

const record = taskRecord;

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

describe("planAdd: exact plans and conflicts", () => {
  const at = (over: Partial<WorktreeEntry>): WorktreeEntry => ({
    ...main,
    path: wtPath,
    branch: "refs/heads/ariel/t",
    main: false,
    locked: "ariel:t",
    ...over,
  });
  function thrown(fn: () => unknown): Record<string, unknown> {
    try {
      fn();
    } catch (e) {
      return e as Record<string, unknown>;
    }
    throw new Error("expected a throw");
  }

  it.each<[string, Partial<WorktreeEntry>, string | null, string]>([
    // name, worktree at the path, branch commit, the adopted leg's base
    ["the branch's commit first", { head: B }, A, A],
    ["else the worktree's HEAD", { head: B }, null, B],
    ["else the planned base", { head: null }, null, A],
  ])("adopting takes %s as the base", (_n, over, branchCommit, base) => {
    const plan = planAdd(req, null, [facts({ worktrees: [main, at(over)], branchCommit, pathExists: true })]);
    expect(plan).toEqual({
      kind: "create",
      legs: [
        {
          source: "api",
          sourcePath: "/w/api",
          branch: "ariel/t",
          base,
          worktreePath: wtPath,
          mode: "adopt",
          overlay: [".env"],
        },
      ],
    });
  });

  it.each<[string, Partial<WorktreeEntry>]>([
    // A worktree locked for *another* ariel task is that task's, never ours to adopt.
    ["locked for another ariel task", { locked: "ariel:u" }],
    ["locked for a task whose id starts like ours", { locked: "ariel:t2" }],
    ["locked with an empty reason", { locked: "" }],
    ["the main worktree", { main: true }],
    ["detached", { branch: null }],
  ])("refuses a worktree at the path %s, naming its lock", (_n, over) => {
    const w = at(over);
    const e = thrown(() =>
      planAdd(req, null, [facts({ worktrees: [main, w], branchCommit: A, pathExists: true })]),
    );
    expect(e).toMatchObject({
      code: "ERR_TASK_CONFLICT",
      exit: 3,
      message: `${wtPath} is already a worktree of api that ariel did not make for task "t"`,
      context: { task: "t", source: "api", path: wtPath, lock: w.locked },
    });
  });

  it("a worktree elsewhere on another branch does not stop a create", () => {
    const elsewhere = at({ path: "/elsewhere", branch: "refs/heads/other" });
    expect(planAdd(req, null, [facts({ worktrees: [main, elsewhere] })])).toMatchObject({
      kind: "create",
      legs: [{ mode: "create", base: A }],
    });
  });

  it("plans every source in the order given", () => {
    const web = facts({
      name: "web",
      path: "/w/web",
      worktreePath: "/w/.ariel/worktrees/t/web",
      baseCommit: B,
      overlay: [],
    });
    const plan = planAdd({ ...req, sources: ["web", "api"] }, null, [web, facts()]);
    expect(plan.kind === "create" && plan.legs.map((l) => [l.source, l.base, l.mode, l.overlay])).toEqual([
      ["web", B, "create", []],
      ["api", A, "create", [".env"]],
    ]);
  });

  it.each<[string, WorktreeEntry[], string, Record<string, unknown>]>([
    [
      "nowhere",
      [main],
      "branch ariel/t already exists in api and is not ours",
      { task: "t", source: "api", branch: "ariel/t" },
    ],
    [
      "at another path",
      [main, at({ path: "/elsewhere", locked: null })],
      "branch ariel/t of api is checked out at /elsewhere",
      { task: "t", source: "api", branch: "ariel/t", checkedOutAt: "/elsewhere" },
    ],
  ])("an existing branch checked out %s: conflict with context", (_n, worktrees, message, context) => {
    const e = thrown(() => planAdd(req, null, [facts({ branchCommit: B, worktrees })]));
    expect(e).toMatchObject({
      code: "ERR_TASK_CONFLICT",
      message,
      hint: "pass another --task id or --branch; ariel never takes over an existing branch",
    });
    expect(e.context).toEqual(context);
  });

  it("a path that exists but is no worktree: ERR_EXISTS with hint and context", () => {
    const e = thrown(() => planAdd(req, null, [facts({ pathExists: true })]));
    expect(e).toMatchObject({
      code: "ERR_EXISTS",
      message: `${wtPath} exists but is not a worktree of api`,
      hint: "move it away, or run ariel-worktree reconcile",
      context: { task: "t", source: "api", path: wtPath },
    });
  });

  const leg0 = record().legs[0]!;
  it.each<[string, Parameters<typeof planAdd>[0], TaskRecord, string, string]>([
    [
      "sources differ",
      { ...req, sources: ["api", "web"] },
      record(),
      'task "t" already exists and differs: its sources are api',
      "use another --task id, or remove the existing task first",
    ],
    [
      "branch differs",
      { ...req, branch: "feature/x" },
      record(),
      'task "t" already exists and differs: its branch is ariel/t',
      "use another --task id, or remove the existing task first",
    ],
    [
      "base differs (with --base)",
      { ...req, base: "v2" },
      record({ legs: [{ ...leg0, base: B }] }),
      `task "t" already exists and differs: the base of api is ${"b".repeat(12)}`,
      "use another --task id, or remove the existing task first",
    ],
    [
      "closed",
      req,
      record({ state: "closed" }),
      'task "t" already exists and differs: it is closed',
      "run ariel-worktree restore --task t to bring it back, or use another --task id",
    ],
    [
      "a leg removed",
      req,
      record({ legs: [{ ...leg0, state: "removed" }] }),
      'task "t" already exists and differs: it is partly removed',
      "run ariel-worktree restore --task t to bring it back, or use another --task id",
    ],
    [
      "everything differs, each reason named",
      { ...req, sources: ["web"], branch: "b2", base: "v2" },
      record({ state: "cleaning", legs: [{ ...leg0, base: B }] }),
      `task "t" already exists and differs: it is cleaning; its sources are api; its branch is ariel/t; the base of api is ${"b".repeat(12)}`,
      "run ariel-worktree restore --task t to bring it back, or use another --task id",
    ],
  ])("an existing task whose %s: exact message and hint", (_n, request, existing, message, hint) => {
    const e = thrown(() => planAdd(request, existing, [facts()]));
    expect(e).toMatchObject({ code: "ERR_TASK_CONFLICT", exit: 3, message, hint });
    expect((e.context as { task: string }).task).toBe("t");
  });

  it.each<[string, Parameters<typeof planAdd>[0], TaskRecord]>([
    [
      "same sources in another order, repeated",
      { ...req, sources: ["web", "api", "web"] },
      record({
        legs: [leg0, { ...leg0, source: "web", worktreePath: "/w/.ariel/worktrees/t/web" }],
      }),
    ],
    ["same base given with --base", { ...req, base: "main" }, record()],
  ])("an identical existing task is returned: %s", (_n, request, existing) => {
    expect(planAdd(request, existing, [facts()])).toEqual({ kind: "existing", record: existing });
  });

  it("sources are compared as sets, not by length", () => {
    const existing = record({ legs: [leg0, { ...leg0, source: "web" }] });
    const e = thrown(() => planAdd({ ...req, sources: ["api", "lib"] }, existing, [facts()]));
    expect(e.message).toBe('task "t" already exists and differs: its sources are api, web');
  });
});
