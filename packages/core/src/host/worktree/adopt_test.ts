/**
 * adoptWorktree and sourceOf on real repositories, without the CLI: each refusal with its exact
 * error (code, message, hint, context) and nothing changed, the same from a dry run; the leg and
 * record an adopt makes (new task or existing one, its base where the branch left the source),
 * the repository lock's purpose, and what a failure after the lock leaves (unlocked, or locked
 * when the lease was lost).
 */
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { sourceFingerprint } from "../../fingerprint.ts";
import type { Ports } from "../../ports.ts";
import type { Fault } from "../../testing/faulty_fs.ts";
import type { WorkspaceVia } from "../../workspace.ts";
import { commitAll, initRepo, removeDir, tempDir } from "../_fixture.ts";
import { faultyPorts, git, gitPicture, makeRoot, names, stealLease } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { adoptWorktree, sourceOf } from "./adopt.ts";
import { removeTask } from "./remove.ts";
import { openWorkspace } from "./workspace.ts";

let root: string;
let home: string;
let outside: string | undefined;
afterEach(() => {
  removeDir(root);
  removeDir(home);
  if (outside) removeDir(outside);
  outside = undefined;
});

const NOW = Date.parse("2026-02-03T04:05:06.000Z");
const STAMP = "2026-02-03T04:05:06.000Z";

/** Host ports with the test's own state home, a fixed clock and zero "random" bytes. */
function ports(faults: Fault[] = []): Ports {
  const p = faultyPorts(faults);
  return {
    ...p,
    env: { ...p.env, ARIEL_STATE_HOME: home },
    clock: { now: () => NOW },
    random: { bytes: (n) => new Uint8Array(n) },
  };
}

const api = () => join(root, "api");
const web = () => join(root, "web");
const SPIKE = () => join(root, "api/.worktrees/spike");
const t0Leg = (s: string) => join(root, ".ariel/worktrees/t0", s);
const recordText = (t: string) => readFileSync(join(root, `.ariel/tasks/${t}.json`), "utf8");
const lockOf = (repo: string, path: string) =>
  git(repo, "worktree", "list", "--porcelain")
    .split("\n\n")
    .find((b) => b.startsWith(`worktree ${path}\n`))
    ?.split("\n")
    .find((l) => l.startsWith("locked")) ?? null;

/**
 * A workspace of api and web (INITIAL on main each), task t0 with a leg in both, and
 * api/.worktrees/spike, a worktree git made on branch spike. Returns api's first commit.
 */
async function world(): Promise<string> {
  root = makeRoot(["api", "web"]);
  home = tempDir("ariel-adopt-home-");
  git(api(), "worktree", "add", "-q", "-b", "spike", SPIKE());
  await addTask(ports(), { root, taskId: "t0", sources: ["api", "web"], noHooks: true });
  return git(api(), "rev-parse", "main");
}

/** What a refusal must leave as it was: git of both sources, the task records. */
function picture() {
  return {
    api: gitPicture(api()),
    web: gitPicture(web()),
    tasks: names(join(root, ".ariel/tasks")),
    t0: recordText("t0"),
  };
}

type Case = [
  string,
  () => { path: string; taskId?: string; via?: WorkspaceVia },
  () => { code: string; message: string; hint: string; exit: number; context: object },
];

const NOTHING = "nothing was changed";
const refusal = (reason: string, code: string, exit: number, message: string, path: string) => ({
  code,
  message,
  hint: NOTHING,
  exit,
  context: { path, task: "t1", reason },
});

const REFUSALS: Case[] = [
  [
    "a path that does not exist: ERR_NOINPUT with its path",
    () => ({ path: join(root, "nope"), taskId: "t1" }),
    () => ({
      code: "ERR_NOINPUT",
      message: `${root}/nope does not exist`,
      hint: "check the path and that it exists",
      exit: 66,
      context: { path: join(root, "nope") },
    }),
  ],
  [
    "the workspace root itself: outside, and how to bring it in",
    () => ({ path: root, taskId: "t1" }),
    () => ({
      code: "ERR_PATH_ESCAPE",
      message: `${root} is outside the workspace root; ariel only removes what lies inside it`,
      hint: "move it inside the workspace (git worktree move) and adopt it there",
      exit: 77,
      context: { path: root, task: "t1", reason: "outside-root" },
    }),
  ],
  [
    "a directory that is no checkout",
    () => {
      mkdirSync(join(root, "plain"));
      return { path: join(root, "plain"), taskId: "t1" };
    },
    () =>
      refusal(
        "not-a-worktree",
        "ERR_NOINPUT",
        66,
        `${root}/plain is not the top directory of a git worktree`,
        join(root, "plain"),
      ),
  ],
  [
    "a directory inside a checkout, not its top",
    () => {
      mkdirSync(join(api(), "sub"));
      return { path: join(api(), "sub"), taskId: "t1" };
    },
    () =>
      refusal(
        "not-a-worktree",
        "ERR_NOINPUT",
        66,
        `${root}/api/sub is not the top directory of a git worktree`,
        join(api(), "sub"),
      ),
  ],
  [
    "a source's main worktree",
    () => ({ path: api(), taskId: "t1" }),
    () => refusal("main-worktree", "ERR_MAIN_WORKTREE", 3, `${root}/api is the main worktree of api`, api()),
  ],
  [
    "a task's leg, locked ariel:t0",
    () => ({ path: t0Leg("web"), taskId: "t1" }),
    () => refusal("in-task", "ERR_IN_TASK", 3, `${t0Leg("web")} already belongs to task t0`, t0Leg("web")),
  ],
  [
    "a task's leg, its lock gone: the record says whose it is",
    () => {
      git(api(), "worktree", "unlock", t0Leg("api"));
      return { path: t0Leg("api"), taskId: "t1" };
    },
    () => refusal("in-task", "ERR_IN_TASK", 3, `${t0Leg("api")} already belongs to task t0`, t0Leg("api")),
  ],
  [
    "a worktree locked ariel:t9 that no record holds",
    () => {
      git(api(), "worktree", "lock", "--reason", "ariel:t9", SPIKE());
      return { path: SPIKE(), taskId: "t1" };
    },
    () => refusal("in-task", "ERR_IN_TASK", 3, `${SPIKE()} already belongs to task t9`, SPIKE()),
  ],
  [
    "a worktree locked by someone else",
    () => {
      git(api(), "worktree", "lock", "--reason", "mine", SPIKE());
      return { path: SPIKE(), taskId: "t1" };
    },
    () =>
      refusal("foreign-lock", "ERR_FOREIGN_LOCK", 3, `${SPIKE()} is locked by someone else (mine)`, SPIKE()),
  ],
  [
    "a worktree on a detached HEAD",
    () => {
      git(api(), "worktree", "add", "-q", "--detach", join(api(), ".worktrees/det"));
      return { path: join(api(), ".worktrees/det"), taskId: "t1" };
    },
    () =>
      refusal(
        "detached",
        "ERR_REFUSED",
        3,
        `${root}/api/.worktrees/det has a detached HEAD; check out a branch in it first`,
        join(api(), ".worktrees/det"),
      ),
  ],
  [
    // git lists it where it was: no entry of its own, so no branch, lock or main flag is known.
    "a worktree moved by hand (git lists it under its old path)",
    () => {
      renameSync(SPIKE(), join(api(), ".worktrees/moved"));
      return { path: join(api(), ".worktrees/moved"), taskId: "t1" };
    },
    () =>
      refusal(
        "detached",
        "ERR_REFUSED",
        3,
        `${root}/api/.worktrees/moved has a detached HEAD; check out a branch in it first`,
        join(api(), ".worktrees/moved"),
      ),
  ],
  [
    "a task that already has a leg of that source (among others)",
    () => ({ path: SPIKE(), taskId: "t0" }),
    () => ({
      ...refusal("leg-exists", "ERR_TASK_CONFLICT", 3, "task t0 already has a leg for source api", SPIKE()),
      context: { path: SPIKE(), task: "t0", reason: "leg-exists" },
    }),
  ],
];

const MORE_REFUSALS: Case[] = [
  [
    "a worktree of a repository that is no source, into an existing task",
    () => {
      outside = tempDir("ariel-adopt-other-");
      initRepo(join(outside, "r"));
      git(join(outside, "r"), "worktree", "add", "-q", "-b", "f", join(root, "foreign"));
      return { path: join(root, "foreign"), taskId: "t0" };
    },
    () => ({
      ...refusal(
        "foreign-repo",
        "ERR_FOREIGN_REPO",
        3,
        `${root}/foreign is a worktree of a repository that is none of the workspace's sources`,
        join(root, "foreign"),
      ),
      context: { path: join(root, "foreign"), task: "t0", reason: "foreign-repo" },
    }),
  ],
  [
    // Nothing more is asked of a path outside: not even the named task's (unreadable) record.
    "a checkout outside the root, the task's record unreadable",
    () => {
      outside = tempDir("ariel-adopt-out-");
      initRepo(join(outside, "r"));
      writeFileSync(join(root, ".ariel/tasks/t1.json"), "{nope");
      return { path: join(outside, "r"), taskId: "t1" };
    },
    () => ({
      code: "ERR_PATH_ESCAPE",
      message: `${outside}/r is outside the workspace root; ariel only removes what lies inside it`,
      hint: "move it inside the workspace (git worktree move) and adopt it there",
      exit: 77,
      context: { path: join(String(outside), "r"), task: "t1", reason: "outside-root" },
    }),
  ],
  [
    "a root that is only the cwd (via cwd): not a workspace",
    () => ({ path: SPIKE(), taskId: "t1", via: "cwd" }),
    () => ({
      code: "ERR_NOT_A_WORKSPACE",
      message: `"${root}" is not a workspace: it has no .ariel/ and is not a git checkout`,
      hint: `name it once to make it one: -C ${root} (or ARIEL_WORKSPACE_ROOT=${root})`,
      exit: 66,
      context: { root, via: "cwd" },
    }),
  ],
];

describe("adoptWorktree refuses: its exact error, the same from a dry run, nothing changed", () => {
  it.each<Case>([...REFUSALS, ...MORE_REFUSALS])("%s", async (_name, setup, expected) => {
    await world();
    const options = setup();
    const before = picture();
    for (const dryRun of [true, false]) {
      const e = await arielErrorOf(adoptWorktree(ports(), { root, ...options, dryRun }));
      expect({ code: e.code, message: e.message, hint: e.hint, exit: e.exit, context: e.context }).toEqual(
        expected(),
      );
    }
    expect(picture()).toEqual(before);
  });
});

/** The leg adopting SPIKE records, its branch one commit ahead of the source's HEAD. */
async function spikeLeg(base: string, head: string) {
  return {
    source: "api",
    sourcePath: api(),
    fingerprint: await sourceFingerprint(ports().git, api()),
    branch: "spike",
    base,
    head,
    worktreePath: SPIKE(),
    overlay: [],
    state: "active",
    adopted: true,
  };
}

/** A new task's record as adopt makes it (token and version as given). */
async function newRecord(taskId: string, legs: object[], token: number) {
  const ws = await openWorkspace(ports(), root);
  return {
    v: 1,
    type: "task",
    taskId,
    workspace: { root, hash: ws.hash },
    owner: "tester",
    state: "active",
    legs,
    artifacts: [],
    fencingToken: token,
    version: 1,
    createdAt: STAMP,
    updatedAt: STAMP,
  };
}

describe("adoptWorktree into a new task: the leg, its base where the branch left the source", () => {
  it("a dry run plans the task it would make and changes nothing", async () => {
    const initial = await world();
    const head = commitAll(SPIKE(), "spike work");
    git(api(), "commit", "-q", "--allow-empty", "-m", "main moves on");
    const before = picture();
    const leg = await spikeLeg(initial, head);
    expect(await adoptWorktree(ports(), { root, path: SPIKE(), taskId: "t1", dryRun: true })).toEqual({
      record: await newRecord("t1", [leg], 0),
      leg,
      created: true,
    });
    expect(picture()).toEqual(before);
  });

  it("records the task, locks the worktree ariel:t1 under the repository lock `adopt t1`", async () => {
    const initial = await world();
    const head = commitAll(SPIKE(), "spike work");
    const held: string[] = [];
    const p = ports();
    const watched: Ports = {
      ...p,
      git: {
        run: (args, o) => {
          if (args[0] === "worktree" && args[1] === "lock")
            held.push(JSON.parse(readFileSync(join(api(), ".git/ariel-worktree.lock"), "utf8")).purpose);
          return p.git.run(args, o);
        },
      },
    };
    const leg = await spikeLeg(initial, head);
    const r = await adoptWorktree(watched, { root, path: SPIKE(), taskId: "t1" });
    expect(r).toEqual({ record: await newRecord("t1", [leg], 1), leg, created: true });
    expect(JSON.parse(recordText("t1"))).toEqual(r.record);
    expect([held, lockOf(api(), SPIKE())]).toEqual([["adopt t1"], "locked ariel:t1"]);
  });

  it("without a task id: one made from the directory's name", async () => {
    const initial = await world();
    const r = await adoptWorktree(ports(), { root, path: SPIKE() });
    expect([r.record.taskId, r.created, r.leg]).toEqual([
      "spike-aaaaaa",
      true,
      await spikeLeg(initial, initial),
    ]);
    expect(lockOf(api(), SPIKE())).toBe("locked ariel:spike-aaaaaa");
  });

  it("a source with no commit yet: the base is the worktree's own HEAD", async () => {
    await world();
    const empty = join(root, "empty");
    mkdirSync(empty);
    git(empty, "init", "-q", "-b", "main");
    git(empty, "commit", "-q", "--allow-empty", "-m", "first");
    git(empty, "worktree", "add", "-q", "-b", "w", join(empty, ".wt"));
    const head = git(join(empty, ".wt"), "rev-parse", "HEAD");
    git(empty, "checkout", "-q", "--orphan", "unborn");
    const r = await adoptWorktree(ports(), { root, path: join(empty, ".wt"), taskId: "t1" });
    expect([r.leg.source, r.leg.base, r.leg.head]).toEqual(["empty", head, head]);
  });

  it("the path of a removed leg, made a worktree again: taken into another task", async () => {
    const initial = await world();
    expect((await removeTask(ports(), { root, taskId: "t0", sources: ["api"], noHooks: true })).refused).toBe(
      false,
    );
    git(api(), "worktree", "add", "-q", "-b", "again", t0Leg("api"));
    const r = await adoptWorktree(ports(), { root, path: t0Leg("api"), taskId: "t2" });
    expect([r.created, r.leg.branch, r.leg.base, r.leg.worktreePath]).toEqual([
      true,
      "again",
      initial,
      t0Leg("api"),
    ]);
    expect(lockOf(api(), t0Leg("api"))).toBe("locked ariel:t2");
  });
});

describe("adoptWorktree into an existing task without a leg of that source", () => {
  /** Task t1 with a leg in web only. */
  async function t1(): Promise<{ initial: string; existing: object }> {
    const initial = await world();
    await addTask(ports(), { root, taskId: "t1", sources: ["web"], noHooks: true });
    return { initial, existing: JSON.parse(recordText("t1")) };
  }

  it("a dry run returns the task as it is, created false", async () => {
    const { initial, existing } = await t1();
    const r = await adoptWorktree(ports(), { root, path: SPIKE(), taskId: "t1", dryRun: true });
    expect(r).toEqual({ record: existing, leg: await spikeLeg(initial, initial), created: false });
    expect(lockOf(api(), SPIKE())).toBeNull();
  });

  it("the leg is added after the others, the record's next version; created false", async () => {
    const { initial, existing } = await t1();
    const before = existing as { legs: object[]; version: number };
    const r = await adoptWorktree(ports(), { root, path: SPIKE(), taskId: "t1" });
    const leg = await spikeLeg(initial, initial);
    expect(r).toEqual({
      // The lease taken again for this change: the next fencing token.
      record: {
        ...before,
        legs: [...before.legs, leg],
        version: before.version + 1,
        fencingToken: 2,
        updatedAt: STAMP,
      },
      leg,
      created: false,
    });
    expect(JSON.parse(recordText("t1"))).toEqual(r.record);
  });
});

describe("adoptWorktree: a failure once the worktree is locked", () => {
  it("the record cannot be written: the error comes back, the lock is taken off again", async () => {
    await world();
    const fault: Fault = { op: "writeAtomic", path: /\.ariel\/tasks\/t1\.json$/, code: "EIO" };
    const failed = adoptWorktree(ports([fault]), { root, path: SPIKE(), taskId: "t1" });
    const e: unknown = await failed.then(
      () => null,
      (x: unknown) => x,
    );
    expect([
      (e as { code?: string } | null)?.code,
      lockOf(api(), SPIKE()),
      names(join(root, ".ariel/tasks")),
    ]).toEqual(["EIO", null, ["t0.json"]]);
  });

  it("the lease lost while locking: ERR_FENCED, and the lock is left for the task's new holder", async () => {
    await world();
    const p = ports();
    const stealing: Ports = {
      ...p,
      git: {
        run: (args, o) => {
          if (args[0] === "worktree" && args[1] === "lock") stealLease(root, "t1");
          return p.git.run(args, o);
        },
      },
    };
    const e = await arielErrorOf(adoptWorktree(stealing, { root, path: SPIKE(), taskId: "t1" }));
    expect([e.code, e.exit, lockOf(api(), SPIKE()), names(join(root, ".ariel/tasks"))]).toEqual([
      "ERR_FENCED",
      75,
      "locked ariel:t1",
      ["t0.json"],
    ]);
  });
});

describe("sourceOf: the workspace source whose main worktree is this path, or null", () => {
  it.each<[string, () => string, () => { name: string; path: string } | null]>([
    ["a source's checkout", () => api(), () => ({ name: "api", path: api() })],
    ["a directory that is no source", () => join(root, "plain"), () => null],
    ["a link to a source (it resolves elsewhere)", () => join(root, "link"), () => null],
    ["a path outside the root", () => "/tmp", () => null],
    ["a name no source may have", () => join(root, "bad name"), () => null],
  ])("%s", async (_name, main, expected) => {
    root = makeRoot(["api"]);
    home = tempDir("ariel-adopt-home-");
    mkdirSync(join(root, "plain"));
    mkdirSync(join(root, "bad name"));
    symlinkSync(api(), join(root, "link"));
    const ws = await openWorkspace(ports(), root);
    expect(await sourceOf(ws, main())).toStrictEqual(expected());
  });
});
