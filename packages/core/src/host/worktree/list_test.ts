/**
 * listTasks on real repositories, without the CLI: the exact row of a leg in each state (clean,
 * dirty, an overlay copy, detached, moved on, gone, no longer git's, git failing, removed,
 * snapshotted, its directory back), work in a submodule's files, which tasks are read (default,
 * `all`, `taskId`, a task that does not exist, a record that cannot be read), orphaned
 * directories and their order, and `git worktree list` asked once per source.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Ports } from "../../ports.ts";
import type { Fault } from "../../testing/faulty_fs.ts";
import { commitAll, initRepo, removeDir, tempDir } from "../_fixture.ts";
import { faultyPorts, git, makeRoot, recordingPorts } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { type ListResult, listTasks, type WorktreeRow } from "./list.ts";
import { removeTask } from "./remove.ts";

let root: string;
let home: string;
/** Each source's HEAD when the task was made. */
let heads: Record<string, string>;
afterEach(() => {
  removeDir(root);
  removeDir(home);
});

/** Host ports with the test's own state home (and `faults` planted in the filesystem). */
function ports(faults: Fault[] = []): Ports {
  const p = faultyPorts(faults);
  return { ...p, env: { ...p.env, ARIEL_STATE_HOME: home } };
}

const leg = (task: string, source: string) => join(root, ".ariel/worktrees", task, source);
const list = (o: { taskId?: string; all?: boolean } = {}, p: Ports = ports()): Promise<ListResult> =>
  listTasks(p, { root, bytes: false, ...o });

/** The row of `task`'s clean leg in `source` as add made it, with `over` changed. */
function row(task: string, source: string, over: Partial<WorktreeRow> = {}): WorktreeRow {
  return {
    v: 1,
    type: "worktree",
    task,
    source,
    status: "active",
    state: "active",
    branch: `ariel/${task}`,
    path: leg(task, source),
    head: heads[source] ?? null,
    locked: true,
    lockReason: `ariel:${task}`,
    dirty: false,
    bytes: null,
    taskBytes: null,
    ...over,
  };
}

/** The row of a directory under the worktree root that no record names. */
function orphan(task: string, name: string): WorktreeRow {
  return {
    v: 1,
    type: "worktree",
    task,
    source: null,
    status: "orphaned",
    state: null,
    branch: null,
    path: leg(task, name),
    head: null,
    locked: false,
    lockReason: null,
    dirty: null,
    bytes: null,
    taskBytes: null,
  };
}

/**
 * A workspace of api and web (api with an untracked `.envrc`, an overlay file git shows as
 * untracked in a leg) and task t1 with a leg in `sources`.
 */
async function world(sources: string[] = ["api"]): Promise<void> {
  root = makeRoot(["api", "web"]);
  home = tempDir("ariel-list-home-");
  writeFileSync(join(root, "api/.envrc"), "use nix\n");
  heads = {
    api: git(join(root, "api"), "rev-parse", "HEAD"),
    web: git(join(root, "web"), "rev-parse", "HEAD"),
  };
  await add("t1", sources);
}

async function add(taskId: string, sources: string[]): Promise<void> {
  await addTask(ports(), { root, taskId, sources, noHooks: true });
}

async function remove(taskId: string, o: { snapshot?: boolean } = {}): Promise<void> {
  expect((await removeTask(ports(), { root, taskId, noHooks: true, ...o })).refused).toBe(false);
}

/** Take t1's api leg out of git's list (unlocked, pruned) and make its directory again. */
function forgotten(): void {
  const api = join(root, "api");
  git(api, "worktree", "unlock", leg("t1", "api"));
  rmSync(leg("t1", "api"), { recursive: true });
  git(api, "worktree", "prune");
  mkdirSync(join(leg("t1", "api"), "x"), { recursive: true });
}

type StatusCase = [string, () => void | Promise<void>, () => Partial<WorktreeRow>, { all?: boolean }?];

const STATUS: StatusCase[] = [
  ["clean (its untracked overlay copy is no change)", () => {}, () => ({})],
  [
    "a tracked file edited",
    () => writeFileSync(join(leg("t1", "api"), "README.md"), "edited\n"),
    () => ({ status: "dirty", dirty: true }),
  ],
  [
    "a detached HEAD: no branch, git's HEAD",
    () => git(leg("t1", "api"), "checkout", "-q", "--detach"),
    () => ({ branch: null }),
  ],
  [
    "a commit made in it: git's HEAD, not the record's",
    () => {
      commitAll(leg("t1", "api"), "more");
    },
    () => ({ head: git(leg("t1", "api"), "rev-parse", "HEAD") }),
  ],
  [
    "its directory gone, git still listing it: missing",
    () => rmSync(leg("t1", "api"), { recursive: true }),
    () => ({ status: "missing", dirty: null }),
  ],
  [
    "a directory git no longer lists: orphaned, the record's branch and head, no lock",
    forgotten,
    () => ({ status: "orphaned", dirty: null, locked: false, lockReason: null }),
  ],
  [
    "its source no longer a repository (git's list fails): orphaned",
    () => renameSync(join(root, "api/.git"), join(root, "api/.git-away")),
    () => ({ status: "orphaned", dirty: null, locked: false, lockReason: null }),
  ],
  [
    "git status failing (a corrupt index): unknown, never clean",
    () =>
      writeFileSync(git(leg("t1", "api"), "rev-parse", "--path-format=absolute", "--git-path", "index"), "x"),
    () => ({ status: "unknown", dirty: null }),
  ],
  [
    "removed by ariel",
    () => remove("t1"),
    () => ({ status: "removed", state: "removed", dirty: null, locked: false, lockReason: null }),
    { all: true },
  ],
  [
    "snapshotted by ariel",
    async () => {
      writeFileSync(join(leg("t1", "api"), "README.md"), "edited\n");
      await remove("t1", { snapshot: true });
    },
    () => ({ status: "snapshotted", state: "snapshotted", dirty: null, locked: false, lockReason: null }),
    { all: true },
  ],
  [
    // Listed without --all: a directory of the task is still under the worktree root.
    "removed, its directory made again: orphaned, the record's state",
    async () => {
      await remove("t1");
      mkdirSync(leg("t1", "api"), { recursive: true });
    },
    () => ({ status: "orphaned", state: "removed", dirty: null, locked: false, lockReason: null }),
  ],
];

describe("listTasks: a leg's row in each state", () => {
  it.each<StatusCase>(STATUS)("%s", async (_name, change, over, options = {}) => {
    await world();
    await change();
    expect(await list(options)).toEqual({ rows: [row("t1", "api", over())], problems: [] });
  });
});

/**
 * t1 with an api leg whose repository holds `vendor` as a gitlink (with a `.gitmodules` when
 * `modules`), cloned into the leg at the recorded commit: git status says nothing of its files.
 */
async function withVendor(modules: boolean): Promise<void> {
  root = makeRoot(["api", "web"]);
  home = tempDir("ariel-list-home-");
  const api = join(root, "api");
  initRepo(join(api, "vendor"), { "lib.txt": "lib\n" });
  if (modules)
    writeFileSync(join(api, ".gitmodules"), '[submodule "vendor"]\n\tpath = vendor\n\turl = ./vendor\n');
  heads = { api: commitAll(api, "vendor") };
  await add("t1", ["api"]);
  git(root, "clone", "-q", join(api, "vendor"), join(leg("t1", "api"), "vendor"));
}

describe("listTasks: work in a submodule's own files (looked at only when the leg has a .gitmodules)", () => {
  const untracked = () => writeFileSync(join(leg("t1", "api"), "vendor/draft.txt"), "draft\n");
  const lstatGit = (): Fault => ({ op: "lstat", path: join(leg("t1", "api"), "vendor/.git"), code: "EIO" });

  it.each<[string, boolean, () => void, boolean, Partial<WorktreeRow>]>([
    ["a clean submodule: active", true, () => {}, false, {}],
    ["an untracked file in it: dirty", true, untracked, false, { status: "dirty", dirty: true }],
    ["its look failing: unknown", true, () => {}, true, { status: "unknown", dirty: null }],
    ["no .gitmodules: its files not looked at", false, untracked, true, {}],
  ])("%s", async (_name, modules, change, failLook, over) => {
    await withVendor(modules);
    change();
    expect(await list({}, ports(failLook ? [lstatGit()] : []))).toEqual({
      rows: [row("t1", "api", over)],
      problems: [],
    });
  });
});

describe("listTasks: which tasks it reads", () => {
  /** t1 (api) active, t2 (web) removed: closed with nothing left. */
  async function twoTasks(): Promise<void> {
    await world();
    await add("t2", ["web"]);
    await remove("t2");
  }
  const t2 = () =>
    row("t2", "web", { status: "removed", state: "removed", dirty: null, locked: false, lockReason: null });

  it("a closed task with nothing left: only with `all` or its id (which lists it alone)", async () => {
    await twoTasks();
    expect(await list()).toEqual({ rows: [row("t1", "api")], problems: [] });
    expect(await list({ all: true })).toEqual({ rows: [row("t1", "api"), t2()], problems: [] });
    expect(await list({ taskId: "t2" })).toEqual({ rows: [t2()], problems: [] });
  });

  it("a file (not a directory) named after it under the worktree root does not bring it back", async () => {
    await twoTasks();
    writeFileSync(join(root, ".ariel/worktrees/t2"), "x\n");
    expect(await list()).toEqual({ rows: [row("t1", "api")], problems: [] });
  });

  it("a task id of no task: ERR_TASK_NOT_FOUND (66)", async () => {
    await world();
    const e = await arielErrorOf(list({ taskId: "t9" }));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_TASK_NOT_FOUND",
      `no task "t9" in ${root}`,
      "run ariel-worktree list --all to see the tasks (closed ones too)",
      66,
      { task: "t9" },
    ]);
  });

  it("the task asked for, its record unreadable: no row, the problem reported (not ERR_TASK_NOT_FOUND)", async () => {
    await world();
    writeFileSync(join(root, ".ariel/tasks/t1.json"), "{nope");
    const { rows, problems } = await list({ taskId: "t1" });
    expect([rows, problems.map((p) => [p.code, p.message, p.context])]).toEqual([
      [],
      [
        [
          "ERR_RECORD_CORRUPT",
          `task record ${root}/.ariel/tasks/t1.json: not valid JSON`,
          { path: `${root}/.ariel/tasks/t1.json`, task: "t1" },
        ],
      ],
    ]);
  });
});

describe("listTasks: orphaned directories", () => {
  /** t1 (api) and, under the worktree root, o2/z, o1/y, o1/x that no record names. */
  async function orphans(): Promise<void> {
    await world();
    for (const d of ["o2/z", "o1/y", "o1/x"])
      mkdirSync(join(root, ".ariel/worktrees", d), { recursive: true });
  }

  it("after the legs, sorted by task then name, whatever order the filesystem lists them in", async () => {
    await orphans();
    const p = ports();
    const reversed: Ports = {
      ...p,
      fs: { ...p.fs, readDir: async (d) => (await p.fs.readDir(d)).reverse() },
    };
    const rows = [row("t1", "api"), orphan("o1", "x"), orphan("o1", "y"), orphan("o2", "z")];
    expect(await list({}, reversed)).toEqual({ rows, problems: [] });
    expect(await list({}, p)).toEqual({ rows, problems: [] });
  });

  it("a task directory that cannot be read: nothing of it, the rest listed", async () => {
    await orphans();
    const fault: Fault = { op: "readDir", path: join(root, ".ariel/worktrees/o1"), code: "EACCES" };
    expect(await list({}, ports([fault]))).toEqual({
      rows: [row("t1", "api"), orphan("o2", "z")],
      problems: [],
    });
  });

  it("none with a task id", async () => {
    await orphans();
    mkdirSync(leg("t1", "stray"));
    expect(await list({ taskId: "t1" })).toEqual({ rows: [row("t1", "api")], problems: [] });
  });
});

describe("listTasks: git asked once per source", () => {
  it("one `git worktree list` for api's two legs and one for web's", async () => {
    await world(["api", "web"]);
    await add("t2", ["api"]);
    const p = recordingPorts();
    const withHome: Ports = { ...p, env: { ...p.env, ARIEL_STATE_HOME: home } };
    expect(await list({}, withHome)).toEqual({
      rows: [row("t1", "api"), row("t1", "web"), row("t2", "api")],
      problems: [],
    });
    expect(p.calls.filter((c) => c[0] === "worktree" && c[1] === "list")).toEqual([
      ["worktree", "list", "--porcelain", "-z"],
      ["worktree", "list", "--porcelain", "-z"],
    ]);
  });
});
