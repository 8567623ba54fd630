/**
 * worktreeIsolation (the --isolate driver of ariel-spawn) on real repositories: the task a run
 * gets (made, or an existing one used as it is), the lease it keeps for the run and lets go of on
 * a failure, the warnings it passes on, a refusal that changes nothing; and the end of the run
 * (finish): a clean leg removed, one with local work kept with the refusal, --keep, --snapshot,
 * a lost lease, a lease another process holds for a moment.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Ports } from "../../ports.ts";
import { runIdStamp } from "../../spawn/run_id.ts";
import { faultyFs } from "../../testing/faulty_fs.ts";
import {
  commitAll,
  GIT_TEST_ENV,
  gitRaw,
  initRepo,
  processGone,
  removeDir,
  tempDir,
  writeFile,
} from "../_fixture.ts";
import { nodeFs } from "../fs.ts";
import { acquireLease, type HeldLease } from "../lease-store.ts";
import { hostPorts } from "../ports.ts";
import { selfIdentity } from "../proc.ts";
import { git, gitPicture, makeRoot, names, stealLease } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { worktreeIsolation } from "./isolation.ts";
import type { IsolatedTask } from "./run.ts";

let root = "";
let home = "";
const leases: HeldLease[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const l of leases.splice(0)) await l.release().catch(() => {});
  for (const c of children.splice(0)) {
    c.kill("SIGKILL");
    if (c.pid !== undefined) await processGone(c.pid);
  }
  for (const dir of [root, home]) if (dir) removeDir(dir);
  root = "";
  home = "";
});

/** A workspace of real repositories (api, web: README, ignored overlay `.env`) and host ports on it. */
function setUp(sources: readonly string[] = ["api", "web"]): Ports {
  root = makeRoot(sources);
  home = tempDir("ariel-iso-home-");
  return hostPorts({
    env: { PATH: process.env.PATH, ...GIT_TEST_ENV, ARIEL_STATE_HOME: home, ARIEL_OWNER: "tester" },
    cwd: root,
  });
}

const src = (name: string) => ({ name, path: join(root, name), checkout: true });
const wt = (task: string, s: string) => join(root, ".ariel/worktrees", task, s);
const head = (s: string) => git(join(root, s), "rev-parse", "HEAD");
const record = (task: string) => readFileSync(join(root, ".ariel/tasks", `${task}.json`), "utf8");
const legStates = (task: string) =>
  (JSON.parse(record(task)) as { legs: { source: string; state: string; setup?: string }[] }).legs.map(
    (l) => [l.source, l.state, l.setup ?? null],
  );
/** What git says of every source, and the task records and worktree directories in the state dir. */
const picture = (sources: readonly string[] = ["api", "web"]) => ({
  git: Object.fromEntries(sources.map((s) => [s, gitPicture(join(root, s))])),
  tasks: names(join(root, ".ariel/tasks")),
  worktrees: names(join(root, ".ariel/worktrees")),
});

/** `git worktree list --porcelain` of a source with one locked leg of `task` beside its main worktree. */
const withLeg = (s: string, task: string) =>
  `worktree ${join(root, s)}\nHEAD ${head(s)}\nbranch refs/heads/main\n\n` +
  `worktree ${wt(task, s)}\nHEAD ${head(s)}\nbranch refs/heads/ariel/${task}\nlocked ariel:${task}`;
const worktrees = (s: string) => git(join(root, s), "worktree", "list", "--porcelain");
const mainOnly = (s: string) => `worktree ${join(root, s)}\nHEAD ${head(s)}\nbranch refs/heads/main`;

/** Make the task as a run does and keep its lease for the test's end. */
async function create(
  ports: Ports,
  options: Omit<Parameters<typeof worktreeIsolation.create>[1], "root" | "sources" | "dryRun"> & {
    sources: string[];
  },
): Promise<IsolatedTask> {
  const t = await worktreeIsolation.create(ports, {
    dryRun: false,
    root,
    ...options,
    sources: options.sources.map(src),
  });
  if (t.lease) leases.push(t.lease);
  return t;
}

/** Run `script` with node in `cwd`: the run's command, a real child process. */
function command(cwd: string, script: string): void {
  const r = spawnSync(process.execPath, ["-e", script], { cwd, env: { ...process.env, ...GIT_TEST_ENV } });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
}

/** Another live process on this host (a real child), for a lease file to name as its holder. */
function otherProcess(): number {
  const c = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  children.push(c);
  return c.pid as number;
}

/** The task's lease file as another live process `pid` writes it when it takes the lease. */
function leaseHeldBy(task: string, pid: number, owner: string): string {
  const now = Date.now();
  const path = join(root, ".ariel/leases", `${task}.json`);
  writeFile(
    path,
    `${JSON.stringify({
      v: 1,
      type: "lease",
      taskId: task,
      owner,
      token: 7,
      pid,
      processStart: null,
      host: selfIdentity().host,
      acquiredAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 60_000).toISOString(),
    })}\n`,
  );
  return path;
}

describe("create: a new task", () => {
  it("one locked worktree per source on ariel/<task> from its HEAD, the overlay copied in; the lease kept for the run", async () => {
    const ports = setUp();
    const t = await create(ports, { sources: ["api", "web"], taskId: "t1" });
    expect({ ...t, lease: undefined }).toEqual({
      taskId: "t1",
      taskDir: join(root, ".ariel/worktrees/t1"),
      legs: new Map([
        ["api", { worktree: wt("t1", "api"), branch: "ariel/t1", overlay: [".env"], base: head("api") }],
        ["web", { worktree: wt("t1", "web"), branch: "ariel/t1", overlay: [".env"], base: head("web") }],
      ]),
      created: true,
      warnings: [],
      lease: undefined,
    });
    expect(git(join(root, "api"), "worktree", "list", "--porcelain")).toBe(withLeg("api", "t1"));
    expect(git(join(root, "web"), "worktree", "list", "--porcelain")).toBe(withLeg("web", "t1"));
    expect(readFileSync(join(wt("t1", "api"), ".env"), "utf8")).toBe("SECRET=api\n");
    expect(legStates("t1")).toEqual([
      ["api", "active", null],
      ["web", "active", null],
    ]);
    // The run holds the task: another owner cannot take it until the run lets go.
    expect(t.lease?.record()).toMatchObject({ taskId: "t1", owner: "tester", token: 1, pid: process.pid });
    const held = await arielErrorOf(acquireLease(root, "t1", { owner: "someone-else" }));
    expect([held.code, held.exit]).toEqual(["ERR_LEASE_HELD", 75]);
    await t.lease?.release();
    const next = await acquireLease(root, "t1", { owner: "someone-else" });
    leases.push(next);
    expect(next.token).toBe(2);
  });

  it("a source's uncommitted changes: WARN_CHANGES_LEFT_OUT, the leg without them", async () => {
    const ports = setUp(["api"]);
    writeFile(join(root, "api/README.md"), "changed\n");
    writeFile(join(root, "api/new.txt"), "new\n");
    const t = await create(ports, { sources: ["api"], taskId: "t1" });
    expect(t.warnings).toEqual([
      {
        code: "WARN_CHANGES_LEFT_OUT",
        message: '"api" has uncommitted changes its new worktree starts without: README.md, new.txt',
        hint: "pass --with-changes to carry them into the worktree (the source stays as it is), or commit them first",
        context: { source: "api", paths: ["README.md", "new.txt"] },
      },
    ]);
    expect(readFileSync(join(wt("t1", "api"), "README.md"), "utf8")).toBe("# api\n");
    expect(existsSync(join(wt("t1", "api"), "new.txt"))).toBe(false);
  });

  it("--with-changes: the changes carried into the leg, no warning, the source as it was", async () => {
    const ports = setUp(["api"]);
    writeFile(join(root, "api/README.md"), "changed\n");
    writeFile(join(root, "api/new.txt"), "new\n");
    const source = git(join(root, "api"), "status", "--porcelain");
    const t = await create(ports, { sources: ["api"], taskId: "t1", withChanges: true });
    expect(t.warnings).toEqual([]);
    expect(gitRaw(wt("t1", "api"), "status", "--porcelain").stdout).toBe(" M README.md\n?? new.txt\n");
    expect(readFileSync(join(wt("t1", "api"), "README.md"), "utf8")).toBe("changed\n");
    expect(git(join(root, "api"), "status", "--porcelain")).toBe(source);
  });

  it("--share and --sparse: the shared directory named on its leg, one the source lacks a warning; the cone recorded", async () => {
    const ports = setUp([]);
    const lock = '{"lockfileVersion":3,"packages":{"node_modules/pkg":{"version":"1.0.0"}}}\n';
    initRepo(join(root, "api"), {
      ".gitignore": "node_modules/\n",
      "package-lock.json": lock,
      "packages/a/a.txt": "a\n",
      "packages/b/b.txt": "b\n",
    });
    writeFile(join(root, "api/node_modules/pkg/index.js"), "index\n");
    const t = await create(ports, {
      sources: ["api"],
      taskId: "t1",
      share: ["node_modules", "vendor"],
      sparse: ["packages/a"],
    });
    expect(t.legs.get("api")).toEqual({
      worktree: wt("t1", "api"),
      branch: "ariel/t1",
      overlay: [],
      base: head("api"),
      sparse: ["packages/a"],
      shared: ["node_modules"],
    });
    expect(t.warnings).toEqual([
      {
        code: "WARN_NOT_SHARED",
        message: "api: vendor not shared: the source has no vendor",
        hint: `run the install in ${wt("t1", "api")} to give the worktree its own vendor`,
        context: { source: "api", dir: "vendor", reason: "no-source-dir" },
      },
    ]);
    expect(readFileSync(join(wt("t1", "api"), "node_modules/pkg/index.js"), "utf8")).toBe("index\n");
    expect(existsSync(join(wt("t1", "api"), "packages/a/a.txt"))).toBe(true);
    expect(existsSync(join(wt("t1", "api"), "packages/b"))).toBe(false);
  });

  it("--no-hooks: no post-create hook runs, and the task says so (its end runs no pre-remove)", async () => {
    const ports = setUp(["api"]);
    writeFile(join(root, "ariel.config.json"), '{"hooks":{"post-create":"touch ran"}}\n');
    const t = await create(ports, { sources: ["api"], taskId: "t1", noHooks: true });
    expect([t.created, t.noHooks]).toEqual([true, true]);
    expect(existsSync(join(wt("t1", "api"), "ran"))).toBe(false);
    expect(legStates("t1")).toEqual([["api", "active", "skipped"]]);
  });

  it("a dry run: the task it would make with its hooks (pre-remove included), nothing written, no lease", async () => {
    const ports = setUp(["api"]);
    writeFile(
      join(root, "ariel.config.json"),
      '{"hooks":{"post-create":"make setup","pre-remove":"make stop"}}\n',
    );
    const before = picture(["api"]);
    const hook = (event: string, h: string) => ({
      event,
      source: "api",
      path: wt("t1", "api"),
      origin: "workspace",
      file: join(root, "ariel.config.json"),
      hook: h,
      argv: ["sh", "-c", h],
      trusted: true,
    });
    const t = await worktreeIsolation.create(ports, {
      root,
      sources: [src("api")],
      taskId: "t1",
      dryRun: true,
    });
    expect(t).toEqual({
      taskId: "t1",
      taskDir: join(root, ".ariel/worktrees/t1"),
      legs: new Map([
        ["api", { worktree: wt("t1", "api"), branch: "ariel/t1", overlay: [".env"], base: head("api") }],
      ]),
      created: true,
      warnings: [],
      lifecycle: {
        ports: [],
        portRange: [20000, 29999],
        hooks: [hook("post-create", "make setup"), hook("pre-remove", "make stop")],
        warnings: [],
      },
    });
    // --keep: the run's end removes nothing, so no pre-remove in its plan.
    const kept = await worktreeIsolation.create(ports, {
      root,
      sources: [src("api")],
      taskId: "t1",
      dryRun: true,
      keep: true,
    });
    expect(kept.lifecycle?.hooks).toEqual([hook("post-create", "make setup")]);
    expect(picture(["api"])).toEqual(before);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("a post-create hook fails: ERR_HOOK_FAILED naming the log and the retry, the task kept (setup: failed), the lease let go", async () => {
    const ports = setUp(["api"]);
    writeFile(join(root, "ariel.config.json"), '{"hooks":{"post-create":"exit 4"}}\n');
    const e = await arielErrorOf(
      worktreeIsolation.create(ports, { root, sources: [src("api")], taskId: "t1", dryRun: false }),
    );
    const log = join(root, ".ariel/hooks/t1.log");
    expect({ code: e.code, exit: e.exit, message: e.message, hint: e.hint, context: e.context }).toEqual({
      code: "ERR_HOOK_FAILED",
      exit: 1,
      message:
        'api: post-create hook "exit 4" exited 4; the task t1 is kept (setup: failed) and nothing was run',
      hint: `read ${log}, fix the cause, then: ariel-worktree -C ${root} hooks run --task t1 --event post-create, and run again with --task t1`,
      context: { task: "t1", source: "api", event: "post-create", log },
    });
    expect(git(join(root, "api"), "worktree", "list", "--porcelain")).toBe(withLeg("api", "t1"));
    expect(legStates("t1")).toEqual([["api", "active", "failed"]]);
    // Released: the next command (hooks run) can take the task at once.
    const next = await acquireLease(root, "t1", { owner: "someone-else" });
    leases.push(next);
    expect(next.token).toBe(2);
  });

  // docs/decisions/0067-lifecycle-hooks.md: "ariel-spawn --isolate runs nothing in such a task
  // (ERR_HOOK_FAILED, exit 1, the task kept): a command in a half-set-up worktree would fail for
  // the wrong reason". The run that made the task refused; a second `--task t1` run into the task
  // still recorded `setup: failed` (its hook not run again) was let in and ran its command.
  it("a second run into a task whose post-create failed (not retried) runs nothing either", async () => {
    const ports = setUp(["api"]);
    writeFile(join(root, "ariel.config.json"), '{"hooks":{"post-create":"exit 4"}}\n');
    await arielErrorOf(
      worktreeIsolation.create(ports, { root, sources: [src("api")], taskId: "t1", dryRun: false }),
    );
    expect(legStates("t1")).toEqual([["api", "active", "failed"]]);
    const again = worktreeIsolation.create(ports, {
      root,
      sources: [src("api")],
      taskId: "t1",
      dryRun: false,
    });
    again.then((t) => t.lease && leases.push(t.lease)).catch(() => {});
    const e = await arielErrorOf(again);
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_HOOK_FAILED",
      1,
      "api: the post-create hook failed and was not run again since; the task t1 is kept (setup: failed) and nothing was run",
      { task: "t1", source: "api", event: "post-create", log: join(root, ".ariel/hooks/t1.log") },
    ]);
    expect(legStates("t1")).toEqual([["api", "active", "failed"]]);
  });
});

describe("create: a task that exists", () => {
  it("used as it is: not created, the same legs, nothing changed; its lease held for this run", async () => {
    const ports = setUp();
    await addTask(ports, { root, taskId: "t1", sources: ["api", "web"] });
    command(wt("t1", "api"), "require('fs').writeFileSync('work.txt', 'earlier work')");
    const before = { ...picture(), record: record("t1") };
    const t = await create(ports, { sources: ["api", "web"], taskId: "t1" });
    expect({ ...t, lease: undefined }).toEqual({
      taskId: "t1",
      taskDir: join(root, ".ariel/worktrees/t1"),
      legs: new Map([
        ["api", { worktree: wt("t1", "api"), branch: "ariel/t1", overlay: [".env"], base: head("api") }],
        ["web", { worktree: wt("t1", "web"), branch: "ariel/t1", overlay: [".env"], base: head("web") }],
      ]),
      created: false,
      warnings: [],
      lease: undefined,
    });
    expect({ ...picture(), record: record("t1") }).toEqual(before);
    expect(readFileSync(join(wt("t1", "api"), "work.txt"), "utf8")).toBe("earlier work");
    expect((await arielErrorOf(acquireLease(root, "t1", { owner: "someone-else" }))).code).toBe(
      "ERR_LEASE_HELD",
    );
  });

  it("--task naming a task of other sources: ERR_TASK_CONFLICT (exit 3), nothing changed, the lease let go", async () => {
    const ports = setUp();
    await addTask(ports, { root, taskId: "t1", sources: ["api"] });
    const before = { ...picture(), record: record("t1") };
    const e = await arielErrorOf(
      worktreeIsolation.create(ports, { root, sources: [src("web")], taskId: "t1", dryRun: false }),
    );
    expect({ code: e.code, exit: e.exit, message: e.message, hint: e.hint }).toEqual({
      code: "ERR_TASK_CONFLICT",
      exit: 3,
      message: 'task "t1" already exists and differs: its sources are api',
      hint: "use another --task id, or remove the existing task first",
    });
    expect({ ...picture(), record: record("t1") }).toEqual(before);
    leases.push(await acquireLease(root, "t1", { owner: "someone-else" }));
  });

  it("a foreground ariel-spawn (another process) holds it: ERR_TASK_IN_USE naming its run and pid, --join too; nothing changed", async () => {
    const ports = setUp();
    await addTask(ports, { root, taskId: "t1", sources: ["api"] });
    const pid = otherProcess();
    const leasePath = leaseHeldBy("t1", pid, "tester");
    // That process's run: its history's run.started names its pid.
    const runId = `${runIdStamp(Date.now() - 60_000)}-abcdef`;
    writeFile(
      join(root, ".ariel/runs", `${runId}.ndjson`),
      `${JSON.stringify({ event: "run.started", pid })}\n`,
    );
    const before = { ...picture(), record: record("t1"), lease: readFileSync(leasePath, "utf8") };
    for (const join of [false, true]) {
      const e = await arielErrorOf(
        worktreeIsolation.create(ports, { root, sources: [src("api")], taskId: "t1", join, dryRun: false }),
      );
      expect({ code: e.code, exit: e.exit, message: e.message, hint: e.hint, context: e.context }).toEqual({
        code: "ERR_TASK_IN_USE",
        exit: 75,
        message: `task "t1" is in use by run ${runId} (foreground ariel-spawn, pid ${pid}); nothing was started`,
        hint: `wait for that ariel-spawn (pid ${pid}) to end, or use another --task; a foreground run's task cannot be joined`,
        context: { task: "t1", runs: [runId] },
      });
    }
    expect({ ...picture(), record: record("t1"), lease: readFileSync(leasePath, "utf8") }).toEqual(before);
  });

  it("another command (no spawn run) holds its lease: ERR_LEASE_HELD as it is; no new task either", async () => {
    const ports = setUp();
    const pid = otherProcess();
    leaseHeldBy("t1", pid, "gc");
    const before = picture();
    const e = await arielErrorOf(
      worktreeIsolation.create(ports, { root, sources: [src("api")], taskId: "t1", dryRun: false }),
    );
    expect([e.code, e.exit, e.context.holder, e.context.holderPid]).toEqual([
      "ERR_LEASE_HELD",
      75,
      "gc",
      pid,
    ]);
    expect(picture()).toEqual(before);
  });
});

describe("finish", () => {
  const finish = (
    ports: Ports,
    t: IsolatedTask,
    onExit: "remove" | "keep" | "snapshot",
    sources?: string[],
  ) =>
    worktreeIsolation.finish(ports, {
      root,
      taskId: t.taskId,
      sources: sources ?? [...t.legs.keys()],
      onExit,
      ...(t.lease ? { lease: t.lease } : {}),
    });

  it("a clean leg removed (its branch and the commit made in it stay); one with uncommitted work kept with the refusal, each on its own", async () => {
    const ports = setUp();
    const t = await create(ports, { sources: ["api", "web"], taskId: "t1" });
    command(wt("t1", "api"), "require('fs').writeFileSync('work.txt', 'uncommitted')");
    writeFile(join(wt("t1", "web"), "done.txt"), "committed\n");
    const done = commitAll(wt("t1", "web"), "the run's work");
    const steps: string[] = [];
    const out = await worktreeIsolation.finish(ports, {
      root,
      taskId: "t1",
      sources: ["api", "web"],
      onExit: "remove",
      lease: t.lease as HeldLease,
      onLeg: (source, action) => steps.push(`${source}: ${action}`),
    });
    expect(out).toEqual([
      {
        source: "api",
        outcome: "kept",
        reason: "dirty",
        fields: { code: "ERR_DIRTY", message: `${wt("t1", "api")} has uncommitted changes: work.txt` },
      },
      { source: "web", outcome: "removed" },
    ]);
    expect(steps).toEqual(["api: removing worktree", "web: removing worktree"]);
    expect(git(join(root, "api"), "worktree", "list", "--porcelain")).toBe(withLeg("api", "t1"));
    expect(readFileSync(join(wt("t1", "api"), "work.txt"), "utf8")).toBe("uncommitted");
    expect(git(join(root, "web"), "worktree", "list", "--porcelain")).toBe(mainOnly("web"));
    expect(existsSync(wt("t1", "web"))).toBe(false);
    expect(git(join(root, "web"), "rev-parse", "refs/heads/ariel/t1")).toBe(done);
    expect(legStates("t1")).toEqual([
      ["api", "active", null],
      ["web", "removed", null],
    ]);
  });

  /** Work left in a leg, and the start of the refusal's message after the worktree's path. */
  it.each<[string, (leg: string) => string, string, string]>([
    [
      "a staged file",
      (leg) => {
        command(
          leg,
          "require('fs').writeFileSync('s.txt','s');require('child_process').execFileSync('git',['add','s.txt'])",
        );
        return "has uncommitted changes: s.txt";
      },
      "dirty",
      "ERR_DIRTY",
    ],
    [
      "an edited overlay file (.env, ignored)",
      (leg) => {
        command(leg, "require('fs').writeFileSync('.env','SECRET=rotated\\n')");
        return "";
      },
      "overlay-changed",
      "ERR_OVERLAY_CHANGED",
    ],
    [
      "a commit only HEAD's reflog holds (committed, then reset away)",
      (leg) => {
        writeFile(join(leg, "lost.txt"), "lost\n");
        const lost = commitAll(leg, "lost");
        git(leg, "reset", "-q", "--hard", "HEAD~1");
        return `hold 1 commit(s) no other ref and not HEAD reaches (left by a detached HEAD, a reset, a rebase, a bisect or a deleted branch): ${lost.slice(0, 12)}`;
      },
      "reflog",
      "ERR_REFLOG_COMMITS",
    ],
    [
      "a commit on a detached HEAD",
      (leg) => {
        git(leg, "switch", "-q", "--detach");
        commitAll(leg, "detached");
        return "has a detached HEAD checked out, not ariel/t1";
      },
      "branch-mismatch",
      "ERR_BRANCH_MISMATCH",
    ],
    [
      "a repository made in it, with a commit of its own",
      (leg) => {
        // Dirty too (its sub/ is untracked), but the refusal named is the one --snapshot does not answer.
        initRepo(join(leg, "sub"), { "s.txt": "s\n" });
        return "sub/";
      },
      "nested-work",
      "ERR_NESTED_WORK",
    ],
  ])("%s: kept as it is", async (_name, work, reason, code) => {
    const ports = setUp(["api"]);
    const t = await create(ports, { sources: ["api"], taskId: "t1" });
    const leg = wt("t1", "api");
    const tail = work(leg);
    const state = () => ({
      git: gitPicture(join(root, "api")),
      status: gitRaw(leg, "status", "--porcelain", "--ignored").stdout,
      head: git(leg, "rev-parse", "HEAD"),
    });
    const before = state();
    const [r] = await finish(ports, t, "remove");
    const message =
      {
        "overlay-changed": `overlay files changed in ${leg}: .env`,
        reflog: `HEAD's reflog or per-worktree refs of ${leg} ${tail}`,
        "nested-work": `git repositories nested in ${leg} hold work that exists only there: ${tail}`,
      }[reason] ?? `${leg} ${tail}`;
    expect(r).toEqual({ source: "api", outcome: "kept", reason, fields: { code, message } });
    expect(state()).toEqual(before);
    expect(legStates("t1")).toEqual([["api", "active", null]]);
  });

  it("the legs of one task finished at once (parallel workers): each removed, the record written one leg after the other", async () => {
    const ports = setUp();
    const t = await create(ports, { sources: ["api", "web"], taskId: "t1" });
    const out = await Promise.all(["api", "web"].map((s) => finish(ports, t, "remove", [s])));
    expect(out).toEqual([[{ source: "api", outcome: "removed" }], [{ source: "web", outcome: "removed" }]]);
    expect([worktrees("api"), worktrees("web")]).toEqual([mainOnly("api"), mainOnly("web")]);
    const rec = JSON.parse(record("t1")) as { state: string; version: number };
    expect([rec.state, legStates("t1")]).toEqual([
      "closed",
      [
        ["api", "removed", null],
        ["web", "removed", null],
      ],
    ]);
  });

  it("--keep: every leg kept (reason keep), clean or not, nothing looked at or changed", async () => {
    const ports = setUp();
    const t = await create(ports, { sources: ["api", "web"], taskId: "t1" });
    const before = { ...picture(), record: record("t1") };
    expect(await finish(ports, t, "keep")).toEqual([
      { source: "api", outcome: "kept", reason: "keep" },
      { source: "web", outcome: "kept", reason: "keep" },
    ]);
    expect({ ...picture(), record: record("t1") }).toEqual(before);
  });

  it("--snapshot: the local work saved under refs/ariel/snapshots/<task>/<leg>, then removed; a clean leg just removed", async () => {
    const ports = setUp();
    const t = await create(ports, { sources: ["api", "web"], taskId: "t1" });
    command(wt("t1", "api"), "require('fs').writeFileSync('work.txt', 'uncommitted')");
    const out = await finish(ports, t, "snapshot");
    const ref = "refs/ariel/snapshots/t1/api";
    const commit = git(join(root, "api"), "rev-parse", ref);
    expect(out).toEqual([
      { source: "api", outcome: "snapshotted", fields: { ref, commit } },
      { source: "web", outcome: "removed" },
    ]);
    expect(git(join(root, "api"), "show", `${ref}:work.txt`)).toBe("uncommitted");
    expect(git(join(root, "web"), "for-each-ref", "refs/ariel/")).toBe("");
    expect([mainOnly("api"), mainOnly("web")]).toEqual([
      git(join(root, "api"), "worktree", "list", "--porcelain"),
      git(join(root, "web"), "worktree", "list", "--porcelain"),
    ]);
    expect(legStates("t1")).toEqual([
      ["api", "snapshotted", null],
      ["web", "removed", null],
    ]);
  });

  it("--snapshot of a leg holding a repository with work of its own (a snapshot leaves it out): kept, no snapshot written", async () => {
    const ports = setUp(["api"]);
    const t = await create(ports, { sources: ["api"], taskId: "t1" });
    const leg = wt("t1", "api");
    const sub = initRepo(join(leg, "sub"), { "s.txt": "only here\n" });
    const before = gitPicture(join(root, "api"));
    expect(await finish(ports, t, "snapshot")).toEqual([
      {
        source: "api",
        outcome: "kept",
        reason: "nested-work",
        fields: {
          code: "ERR_NESTED_WORK",
          message: `git repositories nested in ${leg} hold work that exists only there: sub/`,
        },
      },
    ]);
    expect(gitPicture(join(root, "api"))).toEqual(before);
    expect([
      readFileSync(join(leg, "sub/s.txt"), "utf8"),
      git(join(leg, "sub"), "rev-parse", "HEAD"),
    ]).toEqual(["only here\n", sub]);
    expect(legStates("t1")).toEqual([["api", "active", null]]);
  });

  it("the lease was taken over while the command ran: every leg kept (ERR_FENCED), a clean one too, nothing touched", async () => {
    const ports = setUp();
    const t = await create(ports, { sources: ["api", "web"], taskId: "t1" });
    stealLease(root, "t1");
    const before = { ...picture(), record: record("t1") };
    const message = `lost the lease ${join(root, ".ariel/leases/t1.json")} (ours was token 1, now token 2 of successor)`;
    expect(await finish(ports, t, "remove")).toEqual([
      { source: "api", outcome: "kept", reason: "ERR_FENCED", fields: { message } },
      { source: "web", outcome: "kept", reason: "ERR_FENCED", fields: { message } },
    ]);
    expect({ ...picture(), record: record("t1") }).toEqual(before);
  });

  it("a lease another command holds for a moment: the removal tried again and done", async () => {
    const made = setUp(["api"]);
    // Without the run's lease (a monitor settling a run, say): another command holds the task
    // for the first try; it is done by the second.
    const t = await create(made, { sources: ["api"], taskId: "t1" });
    await t.lease?.release();
    const pid = otherProcess();
    const leasePath = leaseHeldBy("t1", pid, "gc");
    let tries = 0;
    const fs = faultyFs(nodeFs, [
      {
        op: "readFileNoFollow",
        path: leasePath,
        before: () => {
          tries++;
          // Read once by the first try (held: ERR_LEASE_HELD, exit 75); the holder is gone before the next.
          if (tries === 2)
            writeFileSync(leasePath, readFileSync(leasePath, "utf8").replace(`"pid":${pid}`, '"pid":0'));
        },
      },
    ]);
    const out = await worktreeIsolation.finish(
      { ...made, fs },
      { root, taskId: "t1", sources: ["api"], onExit: "remove" },
    );
    expect(out).toEqual([{ source: "api", outcome: "removed" }]);
    // Two tries, each opening the workspace afresh: the first met the holder, the second removed.
    expect(fs.log.filter((l) => l === `realpath ${root}`)).toHaveLength(2);
    expect(tries).toBeGreaterThan(2);
    expect(git(join(root, "api"), "worktree", "list", "--porcelain")).toBe(mainOnly("api"));
  });

  it("an unknown task is not tried again: ERR_TASK_NOT_FOUND at once, nothing written", async () => {
    const ports = setUp(["api"]);
    const fs = faultyFs(nodeFs);
    const before = picture(["api"]);
    const e = await arielErrorOf(
      worktreeIsolation.finish({ ...ports, fs }, { root, taskId: "t9", sources: ["api"], onExit: "remove" }),
    );
    expect([e.code, e.exit]).toEqual(["ERR_TASK_NOT_FOUND", 66]);
    expect(fs.log.filter((l) => l === `realpath ${root}`)).toHaveLength(1);
    expect(picture(["api"])).toEqual(before);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });
});
