/**
 * The tasks of an isolated run on real repositories: createTasks (one task per source, or one
 * with --span; the progress numbered over the run; a failure part-way undoes the tasks made
 * before and lets go of every lease), releaseTasks, and existingTaskTargets (an existing task's
 * legs as the targets of `--isolate --task T`).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { ArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import { faultyFs } from "../../testing/faulty_fs.ts";
import { GIT_TEST_ENV, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { acquireLease, type HeldLease } from "../lease-store.ts";
import { hostPorts } from "../ports.ts";
import type { ProgressStep } from "../progress.ts";
import { git, gitPicture, makeRoot, names } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { worktreeIsolation } from "./isolation.ts";
import type { IsolatedTask, IsolateRequest, IsolationDriver } from "./run.ts";
import { existingTaskTargets } from "./task_targets.ts";
import { createTasks, releaseTasks } from "./tasks.ts";

let root = "";
let home = "";
const leases: HeldLease[] = [];
afterEach(async () => {
  for (const l of leases.splice(0)) await l.release().catch(() => {});
  for (const dir of [root, home]) if (dir) removeDir(dir);
  root = "";
  home = "";
});

function setUp(sources: readonly string[] = ["api", "web"]): Ports {
  root = makeRoot(sources);
  home = tempDir("ariel-tasks-home-");
  return hostPorts({
    env: { PATH: process.env.PATH, ...GIT_TEST_ENV, ARIEL_STATE_HOME: home, ARIEL_OWNER: "tester" },
    cwd: root,
  });
}

const targets = (...sources: string[]) =>
  sources.map((name) => ({ name, path: join(root, name), checkout: true }));
const iso = (over: Partial<IsolateRequest> = {}): IsolateRequest => ({
  span: false,
  onExit: "remove",
  ...over,
});
const head = (s: string) => git(join(root, s), "rev-parse", "HEAD");
const mainOnly = (s: string) => `worktree ${join(root, s)}\nHEAD ${head(s)}\nbranch refs/heads/main`;
const worktrees = (s: string) => git(join(root, s), "worktree", "list", "--porcelain");
const pictures = (sources: readonly string[]) => ({
  git: Object.fromEntries(sources.map((s) => [s, gitPicture(join(root, s))])),
  tasks: names(join(root, ".ariel/tasks")),
  worktrees: names(join(root, ".ariel/worktrees")),
});

/** createTasks with the real driver; the leases it hands back are let go when the test ends. */
async function make(
  ports: Ports,
  sources: string[],
  request: IsolateRequest,
  dryRun = false,
): Promise<{ tasks: IsolatedTask[]; steps: ProgressStep[] }> {
  const steps: ProgressStep[] = [];
  const tasks = await createTasks(worktreeIsolation, ports, root, targets(...sources), request, {
    dryRun,
    onProgress: (s) => void steps.push(s),
  });
  for (const t of tasks) if (t.lease) leases.push(t.lease);
  return { tasks, steps };
}

/** Whether another owner could take the task's lease now (taking it and letting go at once). */
async function leaseFree(task: string): Promise<boolean> {
  try {
    const l = await acquireLease(root, task, { owner: "someone-else" });
    await l.release();
    return true;
  } catch {
    return false;
  }
}

describe("createTasks", () => {
  it("a fan-out pinned to --task P: one task per source, P-<source>, each on its own branch; the progress counts the run's worktrees", async () => {
    const ports = setUp(["api", "web"]);
    initRepo(join(root, "libs/ui"));
    const { tasks, steps } = await make(ports, ["api", "web", "libs/ui"], iso({ taskId: "P" }));
    expect(tasks.map((t) => [t.taskId, t.created, [...t.legs.keys()], t.lease?.record().owner])).toEqual([
      ["P-api", true, ["api"], "tester"],
      ["P-web", true, ["web"], "tester"],
      ["P-libs-ui", true, ["libs/ui"], "tester"],
    ]);
    expect(steps).toEqual([
      { index: 1, total: 3, source: "api", action: "creating worktree" },
      { index: 2, total: 3, source: "web", action: "creating worktree" },
      { index: 3, total: 3, source: "libs/ui", action: "creating worktree" },
    ]);
    for (const [s, task] of [
      ["api", "P-api"],
      ["web", "P-web"],
    ]) {
      expect(worktrees(s as string)).toBe(
        `${mainOnly(s as string)}\n\nworktree ${join(root, ".ariel/worktrees", task as string, s as string)}\nHEAD ${head(s as string)}\nbranch refs/heads/ariel/${task}\nlocked ariel:${task}`,
      );
      // A repository's branches only ever name its own work.
      expect(git(join(root, s as string), "branch", "--list", "ariel/*", "--format=%(refname:short)")).toBe(
        `ariel/${task}`,
      );
    }
    expect(tasks[2]?.legs.get("libs/ui")?.branch).toBe("ariel/P-libs-ui");
    // Each lease is held until the caller lets go (releaseTasks).
    expect([await leaseFree("P-api"), await leaseFree("P-web")]).toEqual([false, false]);
    await releaseTasks(tasks);
    expect([await leaseFree("P-api"), await leaseFree("P-web"), await leaseFree("P-libs-ui")]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("--span: one task named --task with a leg per source; one target alone is the task P itself", async () => {
    const ports = setUp(["api", "web"]);
    const { tasks, steps } = await make(ports, ["api", "web"], iso({ taskId: "P", span: true }));
    expect(tasks.map((t) => [t.taskId, t.taskDir, [...t.legs.keys()]])).toEqual([
      ["P", join(root, ".ariel/worktrees/P"), ["api", "web"]],
    ]);
    expect(steps).toEqual([
      { index: 1, total: 2, source: "api", action: "creating worktree" },
      { index: 2, total: 2, source: "web", action: "creating worktree" },
    ]);
    const one = await make(ports, ["web"], iso({ taskId: "Q" }));
    expect(one.tasks.map((t) => t.taskId)).toEqual(["Q"]);
  });

  it("without --task: each source's task id generated after it (<slug>-<6 chars>), new each run", async () => {
    const ports = setUp(["api", "web"]);
    const first = await make(ports, ["api", "web"], iso());
    const second = await make(ports, ["api"], iso());
    const ids = [...first.tasks, ...second.tasks].map((t) => t.taskId);
    expect(ids).toEqual([
      expect.stringMatching(/^api-[0-9a-z]{6}$/),
      expect.stringMatching(/^web-[0-9a-z]{6}$/),
      expect.stringMatching(/^api-[0-9a-z]{6}$/),
    ]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it("a dry run: the tasks the real run makes (same ids with --task), nothing written, no lease", async () => {
    const ports = setUp(["api", "web"]);
    const before = pictures(["api", "web"]);
    const { tasks, steps } = await make(ports, ["api", "web"], iso({ taskId: "P" }), true);
    expect(tasks.map((t) => [t.taskId, t.created, t.lease, t.legs.get(t.taskId.slice(2))?.worktree])).toEqual(
      [
        ["P-api", true, undefined, join(root, ".ariel/worktrees/P-api/api")],
        ["P-web", true, undefined, join(root, ".ariel/worktrees/P-web/web")],
      ],
    );
    expect(steps).toEqual([]);
    expect(pictures(["api", "web"])).toEqual(before);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("a pinned id too long for one source's task: ERR_INVALID_TASK_ID before any task is made", async () => {
    const ports = setUp(["api", "web"]);
    initRepo(join(root, "libs/ui"));
    const before = pictures(["api", "web", "libs/ui"]);
    const prefix = "p".repeat(122); // P-api and P-web fit in 128 characters, P-libs-ui does not
    const e = await arielErrorOf(make(ports, ["api", "web", "libs/ui"], iso({ taskId: prefix })));
    expect([e.code, e.message]).toEqual([
      "ERR_INVALID_TASK_ID",
      `invalid task id "${"p".repeat(64)}"...: is longer than 128 characters`, // the name shown cut short
    ]);
    expect(pictures(["api", "web", "libs/ui"])).toEqual(before);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("the second task's plan fails (--base not in web): no worktree made (no progress), every lease free, the error as it was", async () => {
    const ports = setUp(["api", "web"]);
    git(join(root, "api"), "tag", "v1");
    const web = gitPicture(join(root, "web"));
    const steps: ProgressStep[] = [];
    const e = await arielErrorOf(
      createTasks(worktreeIsolation, ports, root, targets("api", "web"), iso({ taskId: "P", base: "v1" }), {
        dryRun: false,
        onProgress: (s) => void steps.push(s),
      }),
    );
    expect({ code: e.code, exit: e.exit, message: e.message, hint: e.hint }).toEqual({
      code: "ERR_NOINPUT",
      exit: 66,
      message: "base v1 not found in source web",
      hint: "pass --base with a commit that exists in every source",
    });
    expect(steps).toEqual([]);
    expect(worktrees("api")).toBe(mainOnly("api"));
    expect(names(join(root, ".ariel/worktrees"))).toEqual([]);
    expect(gitPicture(join(root, "web"))).toEqual(web);
    expect([await leaseFree("P-api"), await leaseFree("P-web")]).toEqual([true, true]);
  });

  it("--span with the same bad --base: one add, unwound whole: nothing at all changed, the same run then works", async () => {
    const ports = setUp(["api", "web"]);
    git(join(root, "api"), "tag", "v1");
    const before = pictures(["api", "web"]);
    const e = await arielErrorOf(make(ports, ["api", "web"], iso({ taskId: "P", span: true, base: "v1" })));
    expect(e.code).toBe("ERR_NOINPUT");
    expect({ ...pictures(["api", "web"]), tasks: [] }).toEqual({ ...before, tasks: [] });
    expect(names(join(root, ".ariel/tasks")).filter((n) => n.endsWith(".json"))).toEqual([]);
    const { tasks } = await make(ports, ["api", "web"], iso({ taskId: "P", span: true }));
    expect(tasks.map((t) => [t.taskId, t.created])).toEqual([["P", true]]);
  });

  // Project rule: bad input gets a stable error code and changes nothing. A fan-out whose second
  // task failed on bad input undid the first with removeTask, which keeps the branch and the
  // record: `ariel/P-api` and a closed `P-api.json` were left, and the same run with the base
  // fixed then failed with ERR_TASK_CONFLICT. Every task is planned before the first is made now.
  it("a fan-out with a bad --base changes nothing: the same run with the base fixed then works", async () => {
    const ports = setUp(["api", "web"]);
    git(join(root, "api"), "tag", "v1");
    const before = pictures(["api", "web"]);
    const e = await arielErrorOf(make(ports, ["api", "web"], iso({ taskId: "P", base: "v1" })));
    expect(e.code).toBe("ERR_NOINPUT");
    expect({
      git: pictures(["api", "web"]).git,
      tasks: names(join(root, ".ariel/tasks")).filter((n) => n.endsWith(".json")),
    }).toEqual({ git: before.git, tasks: [] });
    const again = await make(ports, ["api", "web"], iso({ taskId: "P" }));
    expect(again.tasks.map((t) => [t.taskId, t.created])).toEqual([
      ["P-api", true],
      ["P-web", true],
    ]);
  });

  /** A fan-out whose second task fails only when it is made (its record cannot be written: ENOSPC): P-api is made, then undone. */
  async function secondTaskFails(ports: Ports, over: Partial<IsolateRequest> = {}) {
    const full = {
      ...ports,
      fs: faultyFs(ports.fs, [{ op: "writeAtomic", path: /tasks\/P-web\.json$/, code: "ENOSPC" }]),
    };
    return await arielErrorOf(make(full, ["api", "web"], iso({ taskId: "P", ...over })));
  }

  // docs/spawn.md, --no-hooks: "run no lifecycle hook (post-create when the task is made,
  // pre-remove when it is removed)". The undo of the tasks made before a failure called the
  // driver's finish without `noHooks`, so the first task's pre-remove hook ran.
  it("--no-hooks: undoing the first task runs no pre-remove hook either", async () => {
    const ports = setUp(["api", "web"]);
    const marker = join(home, "pre-remove-ran");
    writeFile(
      join(root, "ariel.config.json"),
      `${JSON.stringify({ hooks: { "pre-remove": `touch ${marker}` } })}\n`,
    );
    const e = await secondTaskFails(ports, { noHooks: true });
    expect(e.message).toContain("ENOSPC");
    // P-api was made (its branch and closed record stay after the undo), and its worktree removed.
    expect(git(join(root, "api"), "branch", "--list", "ariel/P-api", "--format=%(refname:short)")).toBe(
      "ariel/P-api",
    );
    expect(worktrees("api")).toBe(mainOnly("api"));
    expect(existsSync(marker)).toBe(false);
  });

  // Project rule: a kept worktree is named with the command that deals with it. A post-create
  // hook left a file in P-api; the undo's removal refuses it (nothing is lost) and kept it, but
  // the refusal was dropped: the run failed with web's error alone, and a later run took P-api
  // as an existing task it never removed.
  it("a task the undo has to keep (a post-create hook wrote into it) is named in the error, with its next command", async () => {
    const plain = await secondTaskFails(setUp(["api", "web"]));
    const ports = setUp(["api", "web"]);
    writeFile(join(root, "ariel.config.json"), '{"hooks":{"post-create":"touch by-hook"}}\n');
    const e = await secondTaskFails(ports);
    expect(existsSync(join(root, ".ariel/worktrees/P-api/api/by-hook"))).toBe(true);
    expect(existsSync(join(root, ".ariel/worktrees/P-web"))).toBe(false);
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_INTERNAL",
      70,
      `internal error: ENOSPC: writeAtomic '${root}/.ariel/tasks/P-web.json'`,
    ]);
    expect(e.context.kept).toEqual([{ task: "P-api", source: "api", reason: "dirty" }]);
    expect(e.hint).toBe(
      `${plain.hint}; kept P-api/api (dirty) from before the failure: ariel-worktree remove --task P-api --snapshot`,
    );
  });
});

describe("createTasks with a driver whose undo fails", () => {
  // A fake driver: three tasks, the third fails as it is made; the undo's removal of the first
  // throws (its legs stay as they were), of the second keeps one leg of two.
  it("names every leg the undo did not remove, from a removal that threw too, one command per task, from another directory with -C", async () => {
    const ports = hostPorts({ env: { PATH: process.env.PATH }, cwd: "/elsewhere" });
    const released: string[] = [];
    const task = (id: string, sources: string[]): IsolatedTask => ({
      taskId: id,
      taskDir: `/w/.ariel/worktrees/${id}`,
      legs: new Map(
        sources.map((s) => [s, { worktree: `/w/.ariel/worktrees/${id}/${s}`, branch: `ariel/${id}` }]),
      ) as never,
      created: true,
      lease: { release: async () => void released.push(id) } as unknown as HeldLease,
    });
    const finished: string[] = [];
    const driver: IsolationDriver = {
      create: async (_p, o) => {
        if (o.taskId === "P-c" && !o.dryRun) throw new ArielError("ERR_TASK_CONFLICT", "branch taken");
        return o.taskId === "P-a" ? task("P-a", ["a"]) : task("P-b", ["b1", "b2"]);
      },
      finish: async (_p, o) => {
        finished.push(`${o.taskId}:${o.sources.join(",")}:${o.onExit}`);
        if (o.taskId === "P-a") throw new ArielError("ERR_GIT", "git failed");
        return [
          { source: "b1", outcome: "removed" },
          { source: "b2", outcome: "kept", reason: "dirty" },
        ];
      },
    };
    const sources = ["a", "b", "c"].map((name) => ({ name, path: `/w/${name}`, checkout: true }));
    const e2 = await arielErrorOf(
      createTasks(driver, ports, "/w", sources, iso({ taskId: "P" }), { dryRun: false }),
    );
    expect([e2.code, e2.message, e2.exit]).toEqual(["ERR_TASK_CONFLICT", "branch taken", 3]);
    expect(finished).toEqual(["P-a:a:remove", "P-b:b1,b2:remove"]);
    expect(released.sort()).toEqual(["P-a", "P-b"]);
    expect(e2.context.kept).toEqual([
      { task: "P-a", source: "a", reason: "ERR_GIT" },
      { task: "P-b", source: "b2", reason: "dirty" },
    ]);
    expect(e2.hint).toBe(
      `${new ArielError("ERR_TASK_CONFLICT", "x").hint}; kept P-a/a (ERR_GIT), P-b/b2 (dirty) from before the failure: ` +
        "ariel-worktree remove -C /w --task P-a; ariel-worktree remove -C /w --task P-b --snapshot",
    );
  });
});

describe("releaseTasks", () => {
  it("lets go of every task's lease; one that fails to let go does not keep the others; a dry run's task has none", async () => {
    const released: string[] = [];
    const lease = (id: string, fail: boolean) =>
      ({
        release: async () => {
          released.push(id);
          if (fail) throw new Error("EIO");
        },
      }) as unknown as HeldLease;
    const task = (id: string, l?: HeldLease): IsolatedTask => ({
      taskId: id,
      taskDir: `/w/.ariel/worktrees/${id}`,
      legs: new Map(),
      created: true,
      ...(l ? { lease: l } : {}),
    });
    await releaseTasks([task("a", lease("a", true)), task("b"), task("c", lease("c", false))]);
    expect(released).toEqual(["a", "c"]);
  });
});

describe("existingTaskTargets", () => {
  async function ws(ports: Ports) {
    return openWorkspace(ports, root);
  }

  it("an existing task of one leg: that leg's source the target, the request as it was", async () => {
    const ports = setUp(["api", "web"]);
    await addTask(ports, { root, taskId: "t1", sources: ["web"] });
    const request = iso({ taskId: "t1", onExit: "keep" });
    expect(await existingTaskTargets(ports, await ws(ports), request)).toEqual({
      targets: [{ kind: "name", name: "web", origin: "--task t1" }],
      isolate: request,
    });
  });

  it("an existing task of several legs: every leg in the task's order, run as --span", async () => {
    const ports = setUp(["api", "web"]);
    await addTask(ports, { root, taskId: "t1", sources: ["web", "api"] });
    const request = iso({ taskId: "t1", join: true });
    expect(await existingTaskTargets(ports, await ws(ports), request)).toEqual({
      targets: [
        { kind: "name", name: "web", origin: "--task t1" },
        { kind: "name", name: "api", origin: "--task t1" },
      ],
      isolate: { ...request, span: true },
    });
  });

  it("no --task, or a task that does not exist yet: null (the source the cwd is in, as for a new task)", async () => {
    const ports = setUp(["api"]);
    expect(await existingTaskTargets(ports, await ws(ports), iso())).toBeNull();
    expect(await existingTaskTargets(ports, await ws(ports), iso({ taskId: "new" }))).toBeNull();
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("a damaged record, or one of another task: a coded error, the file left as it is", async () => {
    const ports = setUp(["api"]);
    await addTask(ports, { root, taskId: "t1", sources: ["api"] });
    await addTask(ports, { root, taskId: "t2", sources: ["api"] });
    const path = join(root, ".ariel/tasks/t2.json");
    writeFileSync(path, readFileSync(join(root, ".ariel/tasks/t1.json")));
    const copied = readFileSync(path, "utf8");
    const notOurs = await arielErrorOf(existingTaskTargets(ports, await ws(ports), iso({ taskId: "t2" })));
    expect([notOurs.code, notOurs.message]).toEqual([
      "ERR_NOT_OURS",
      `task record ${path} belongs to another task or workspace`,
    ]);
    expect(readFileSync(path, "utf8")).toBe(copied);
    writeFileSync(path, "{not json");
    const corrupt = await arielErrorOf(existingTaskTargets(ports, await ws(ports), iso({ taskId: "t2" })));
    expect([corrupt.code, corrupt.context.task]).toEqual(["ERR_RECORD_CORRUPT", "t2"]);
    expect(readFileSync(path, "utf8")).toBe("{not json");
  });
});
