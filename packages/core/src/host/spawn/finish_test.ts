/**
 * WorktreeFinisher (the end of each process of an isolated ariel-spawn run) on real repositories,
 * with the real driver: what each leg's outcome becomes as `worktree.*` events, the
 * WARN_WORKTREE_KEPT warning (message, hint: the command that deals with it, context) for a leg
 * kept with local work, what the summary line is told (`kept`), the progress line; a task that
 * existed before the run, a driver that fails, a lost lease, a failing pre-remove hook.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import type { SpawnUnit } from "../../spawn/plan.ts";
import { commitAll, GIT_TEST_ENV, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { Reporter } from "../cli/reporter.ts";
import type { HeldLease } from "../lease-store.ts";
import { hostPorts } from "../ports.ts";
import { ProgressLine } from "../progress.ts";
import { git, gitPicture, makeRoot, names, stealLease } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { type FinisherOptions, WorktreeFinisher } from "./finish.ts";
import { worktreeIsolation } from "./isolation.ts";
import type { IsolatedTask, IsolationDriver } from "./run.ts";

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
  home = tempDir("ariel-finish-home-");
  return hostPorts({
    env: { PATH: process.env.PATH, ...GIT_TEST_ENV, ARIEL_STATE_HOME: home, ARIEL_OWNER: "tester" },
    cwd: root,
  });
}

const wt = (task: string, s: string) => join(root, ".ariel/worktrees", task, s);
const head = (s: string) => git(join(root, s), "rev-parse", "HEAD");
const mainOnly = (s: string) => `worktree ${join(root, s)}\nHEAD ${head(s)}\nbranch refs/heads/main`;
const worktrees = (s: string) => git(join(root, s), "worktree", "list", "--porcelain");
const legStates = (task: string) =>
  (
    JSON.parse(readFileSync(join(root, ".ariel/tasks", `${task}.json`), "utf8")) as {
      legs: { source: string; state: string }[];
    }
  ).legs.map((l) => [l.source, l.state]);

/** Make a task as a run does (its lease kept until the test ends). */
async function made(ports: Ports, taskId: string, sources: string[], noHooks = false): Promise<IsolatedTask> {
  const t = await worktreeIsolation.create(ports, {
    root,
    taskId,
    sources: sources.map((name) => ({ name, path: join(root, name), checkout: true })),
    dryRun: false,
    ...(noHooks ? { noHooks: true } : {}),
  });
  if (t.lease) leases.push(t.lease);
  return t;
}

/** The run's command in `cwd`: a real child process. */
function command(cwd: string, script: string): void {
  const r = spawnSync(process.execPath, ["-e", script], { cwd, env: { ...process.env, ...GIT_TEST_ENV } });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
}

/** The process of a unit: only its sources matter to the finisher. */
const unit = (sources: string[]): SpawnUnit => ({
  source: sources.length === 1 ? (sources[0] as string) : null,
  sources,
  cwd: root,
  worktree: null,
  branch: null,
  overlay: [],
  legs: [],
  argv: ["true"],
  env: {},
});

/** A finisher with everything it says captured: events, stderr records (--json), the progress line. */
function finisher(
  ports: Ports,
  task: IsolatedTask,
  over: Partial<FinisherOptions> = {},
): {
  f: WorktreeFinisher;
  events: [string, string | null, Record<string, unknown>][];
  warnings: () => Record<string, unknown>[];
  progress: () => string;
} {
  const events: [string, string | null, Record<string, unknown>][] = [];
  let stderr = "";
  let bar = "";
  const f = new WorktreeFinisher({
    ports,
    root,
    task,
    onExit: "remove",
    driver: worktreeIsolation,
    emit: (event, source, fields = {}) => void events.push([event, source, fields]),
    log: new Reporter("ariel-spawn", true, {
      write: (t) => {
        stderr += t;
      },
    }),
    progress: new ProgressLine(
      {
        write: (t) => {
          bar += t;
        },
      },
      true,
    ),
    rootArg: {},
    legs: { settled: 0, total: task.legs.size },
    ...over,
  });
  const warnings = () =>
    stderr
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { f, events, warnings, progress: () => bar };
}

/** A WARN_WORKTREE_KEPT record as the run prints it with --json. */
const keptWarning = (source: string, task: string, reason: string, why: string, hint: string) => ({
  v: 1,
  type: "warning",
  code: "WARN_WORKTREE_KEPT",
  message: `kept the worktree of "${source}" (${reason}): ${why}`,
  hint,
  source,
  worktree: wt(task, source),
  reason,
});

describe("WorktreeFinisher: a task this run made", () => {
  it("a clean leg: worktree.removed, nothing kept, no warning; the branch keeps the commit the run made", async () => {
    const ports = setUp(["api"]);
    const t = await made(ports, "t1", ["api"]);
    command(wt("t1", "api"), "require('fs').writeFileSync('done.txt', 'done')");
    const done = commitAll(wt("t1", "api"), "the run's work");
    const { f, events, warnings, progress } = finisher(ports, t);
    await f.finish(unit(["api"]));
    expect(events).toEqual([
      ["worktree.removed", "api", { task: "t1", worktree: wt("t1", "api"), branch: "ariel/t1" }],
    ]);
    expect(f.kept).toEqual([]);
    expect(warnings()).toEqual([]);
    expect(progress()).toBe("\r\x1b[K[1/1] api: removing worktree\r\x1b[K");
    expect(worktrees("api")).toBe(mainOnly("api"));
    expect(existsSync(wt("t1", "api"))).toBe(false);
    expect(git(join(root, "api"), "rev-parse", "refs/heads/ariel/t1")).toBe(done);
    expect(legStates("t1")).toEqual([["api", "removed"]]);
  });

  /** Work the run's command leaves in the leg; returns the refusal's message. */
  it.each<[string, string, string, (leg: string) => string]>([
    [
      "an untracked file",
      "dirty",
      "ERR_DIRTY",
      (leg) => {
        command(leg, "require('fs').writeFileSync('new.txt', 'x')");
        return `${leg} has uncommitted changes: new.txt`;
      },
    ],
    [
      "an edited tracked file",
      "dirty",
      "ERR_DIRTY",
      (leg) => {
        command(leg, "require('fs').writeFileSync('README.md', 'edited')");
        return `${leg} has uncommitted changes: README.md`;
      },
    ],
    [
      "a commit made on a detached HEAD, left behind",
      "reflog",
      "ERR_REFLOG_COMMITS",
      (leg) => {
        git(leg, "switch", "-q", "--detach");
        const left = commitAll(leg, "left");
        git(leg, "switch", "-q", "ariel/t1");
        return `HEAD's reflog or per-worktree refs of ${leg} hold 1 commit(s) no other ref and not HEAD reaches (left by a detached HEAD, a reset, a rebase, a bisect or a deleted branch): ${left.slice(0, 12)}`;
      },
    ],
  ])(
    "%s: kept (%s), the work in place; WARN_WORKTREE_KEPT names the command that saves it",
    async (_n, reason, code, work) => {
      const ports = setUp(["api"]);
      const t = await made(ports, "t1", ["api"]);
      const leg = wt("t1", "api");
      const message = work(leg);
      const state = () => ({
        git: gitPicture(join(root, "api")),
        files: names(leg),
        reflog: git(leg, "reflog", "--format=%H"),
      });
      const before = state();
      const { f, events, warnings } = finisher(ports, t);
      await f.finish(unit(["api"]));
      expect(events).toEqual([
        ["worktree.kept", "api", { task: "t1", worktree: leg, branch: "ariel/t1", reason, code, message }],
      ]);
      expect(warnings()).toEqual([
        keptWarning("api", "t1", reason, message, "ariel-worktree remove --task t1 --source api --snapshot"),
      ]);
      expect(f.kept).toEqual([{ source: "api", reason, task: "t1" }]);
      expect(state()).toEqual(before);
      expect(legStates("t1")).toEqual([["api", "active"]]);
    },
  );

  it("the exact kept event and warning of a dirty leg; the hint names the root with -C when the run was given one", async () => {
    const ports = setUp(["api"]);
    const t = await made(ports, "t1", ["api"]);
    command(wt("t1", "api"), "require('fs').writeFileSync('new.txt', 'x')");
    const { f, events, warnings } = finisher(ports, t, { rootArg: { root } });
    await f.finish(unit(["api"]));
    const message = `${wt("t1", "api")} has uncommitted changes: new.txt`;
    expect(events).toEqual([
      [
        "worktree.kept",
        "api",
        {
          task: "t1",
          worktree: wt("t1", "api"),
          branch: "ariel/t1",
          reason: "dirty",
          code: "ERR_DIRTY",
          message,
        },
      ],
    ]);
    expect(warnings()).toEqual([
      keptWarning(
        "api",
        "t1",
        "dirty",
        message,
        `ariel-worktree remove -C ${root} --task t1 --source api --snapshot`,
      ),
    ]);
    expect(readFileSync(join(wt("t1", "api"), "new.txt"), "utf8")).toBe("x");
  });

  it("a commit on a detached HEAD: kept (branch-mismatch); a snapshot cannot settle it, so the hint has no --snapshot", async () => {
    const ports = setUp(["api"]);
    const t = await made(ports, "t1", ["api"]);
    const leg = wt("t1", "api");
    git(leg, "switch", "-q", "--detach");
    const c = commitAll(leg, "on a detached HEAD");
    const { f, warnings } = finisher(ports, t);
    await f.finish(unit(["api"]));
    expect(warnings()).toEqual([
      keptWarning(
        "api",
        "t1",
        "branch-mismatch",
        `${leg} has a detached HEAD checked out, not ariel/t1`,
        "ariel-worktree remove --task t1 --source api",
      ),
    ]);
    expect(f.kept).toEqual([{ source: "api", reason: "branch-mismatch", task: "t1" }]);
    expect(git(leg, "rev-parse", "HEAD")).toBe(c);
  });

  // docs/spawn.md: a kept worktree comes with "the command that deals with it", and that command
  // is `ariel-worktree remove --task T --snapshot` only "when every kept leg holds only work a
  // snapshot saves ... else the same without --snapshot, which shows what stands in the way".
  // A repository made in the leg (with a commit and a file of its own) is dirty (its `sub/` is
  // untracked) AND nested-work, which a snapshot does not save (docs/worktree.md). The finisher
  // only hears the first refusal (dirty) and hints `--snapshot`; that command then refuses
  // (nested-work), so nothing is lost, but the hint names the wrong next step.
  it("a repository made in the leg with work of its own: the hint has no --snapshot (a snapshot leaves it out)", async () => {
    const ports = setUp(["api"]);
    const t = await made(ports, "t1", ["api"]);
    initRepo(join(wt("t1", "api"), "sub"), { "s.txt": "only here\n" });
    const { f, warnings } = finisher(ports, t);
    await f.finish(unit(["api"]));
    expect(readFileSync(join(wt("t1", "api"), "sub/s.txt"), "utf8")).toBe("only here\n");
    expect(warnings().map((w) => w.hint)).toEqual(["ariel-worktree remove --task t1 --source api"]);
  });

  it("--keep: worktree.kept (keep) for every leg, no warning (asked for), each counted for the summary", async () => {
    const ports = setUp();
    const t = await made(ports, "t1", ["api", "web"]);
    const before = { api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) };
    const { f, events, warnings, progress } = finisher(ports, t, { onExit: "keep" });
    await f.finish(unit(["api", "web"]));
    expect(events).toEqual(
      ["api", "web"].map((s) => [
        "worktree.kept",
        s,
        { task: "t1", worktree: wt("t1", s), branch: "ariel/t1", reason: "keep" },
      ]),
    );
    expect(warnings()).toEqual([]);
    expect(progress()).toBe("");
    expect(f.kept).toEqual([
      { source: "api", reason: "keep", task: "t1" },
      { source: "web", reason: "keep", task: "t1" },
    ]);
    expect({ api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) }).toEqual(before);
  });

  it("--snapshot: worktree.snapshotted with the ref and commit that hold the work; a clean leg worktree.removed; nothing kept", async () => {
    const ports = setUp();
    const t = await made(ports, "t1", ["api", "web"]);
    command(wt("t1", "api"), "require('fs').writeFileSync('work.txt', 'uncommitted')");
    const { f, events, warnings } = finisher(ports, t, { onExit: "snapshot" });
    await f.finish(unit(["api", "web"]));
    const ref = "refs/ariel/snapshots/t1/api";
    const commit = git(join(root, "api"), "rev-parse", ref);
    expect(events).toEqual([
      [
        "worktree.snapshotted",
        "api",
        { task: "t1", worktree: wt("t1", "api"), branch: "ariel/t1", ref, commit },
      ],
      ["worktree.removed", "web", { task: "t1", worktree: wt("t1", "web"), branch: "ariel/t1" }],
    ]);
    expect(git(join(root, "api"), "show", `${commit}:work.txt`)).toBe("uncommitted");
    expect([worktrees("api"), worktrees("web")]).toEqual([mainOnly("api"), mainOnly("web")]);
    expect([f.kept, warnings()]).toEqual([[], []]);
  });

  it("--span: each leg on its own, the dirty one kept and warned about, the clean one removed; the progress counts both", async () => {
    const ports = setUp();
    const t = await made(ports, "t1", ["api", "web"]);
    command(wt("t1", "api"), "require('fs').writeFileSync('work.txt', 'x')");
    const { f, events, warnings, progress } = finisher(ports, t);
    await f.finish(unit(["api", "web"]));
    const message = `${wt("t1", "api")} has uncommitted changes: work.txt`;
    expect(events.map(([e, s, x]) => [e, s, x.reason ?? null])).toEqual([
      ["worktree.kept", "api", "dirty"],
      ["worktree.removed", "web", null],
    ]);
    expect(warnings()).toEqual([
      keptWarning("api", "t1", "dirty", message, "ariel-worktree remove --task t1 --source api --snapshot"),
    ]);
    expect(f.kept).toEqual([{ source: "api", reason: "dirty", task: "t1" }]);
    expect(progress()).toBe(
      "\r\x1b[K[1/2] api: removing worktree\r\x1b[K[2/2] web: removing worktree\r\x1b[K",
    );
    expect(existsSync(join(wt("t1", "api"), "work.txt"))).toBe(true);
    expect(worktrees("web")).toBe(mainOnly("web"));
  });

  it("a fan-out: the finishers of the run's tasks count the legs together on one progress line", async () => {
    const ports = setUp();
    const a = await made(ports, "t1-api", ["api"]);
    const w = await made(ports, "t1-web", ["web"]);
    const legs = { settled: 0, total: 2 };
    let bar = "";
    const progress = new ProgressLine(
      {
        write: (t) => {
          bar += t;
        },
      },
      true,
    );
    await finisher(ports, a, { legs, progress }).f.finish(unit(["api"]));
    await finisher(ports, w, { legs, progress }).f.finish(unit(["web"]));
    expect(bar).toBe(
      "\r\x1b[K[1/2] api: removing worktree\r\x1b[K\r\x1b[K[2/2] web: removing worktree\r\x1b[K",
    );
    expect(legs).toEqual({ settled: 2, total: 2 });
  });
});

describe("WorktreeFinisher: a task that existed before the run", () => {
  it("every leg worktree.kept (existing-task), clean or not; the driver is not asked, nothing warned", async () => {
    const ports = setUp();
    await addTask(ports, { root, taskId: "t1", sources: ["api", "web"] });
    const t = await made(ports, "t1", ["api", "web"]);
    expect(t.created).toBe(false);
    const before = { api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) };
    const asked: string[] = [];
    const driver: IsolationDriver = {
      create: () => Promise.reject(new Error("not here")),
      finish: async (_p, o) => {
        asked.push(o.taskId);
        return [];
      },
    };
    const { f, events, warnings, progress } = finisher(ports, t, { driver });
    await f.finish(unit(["api", "web"]));
    expect(events).toEqual(
      ["api", "web"].map((s) => [
        "worktree.kept",
        s,
        { task: "t1", worktree: wt("t1", s), branch: "ariel/t1", reason: "existing-task" },
      ]),
    );
    expect([asked, warnings(), progress()]).toEqual([[], [], ""]);
    // The user's own task: not a worktree the run left behind.
    expect(f.kept).toEqual([]);
    expect({ api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) }).toEqual(before);
  });
});

describe("WorktreeFinisher: when the removal cannot be done", () => {
  it.each<[string, unknown, string, string]>([
    [
      "an ArielError",
      new ArielError("ERR_GIT", "git worktree remove failed: boom"),
      "ERR_GIT",
      "git worktree remove failed: boom",
    ],
    ["anything else", new Error("kaput"), "ERR_INTERNAL", "kaput"],
  ])(
    "the driver throws %s: every leg of the unit kept with its code, warned about, the progress line erased",
    async (_n, thrown, reason, message) => {
      const ports = setUp();
      const t = await made(ports, "t1", ["api", "web"]);
      const before = { api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) };
      const driver: IsolationDriver = {
        create: () => Promise.reject(new Error("not here")),
        finish: async (_p, o) => {
          o.onLeg?.("api", "removing worktree");
          throw thrown;
        },
      };
      const { f, events, warnings, progress } = finisher(ports, t, { driver });
      await f.finish(unit(["api", "web"]));
      expect(events).toEqual(
        ["api", "web"].map((s) => [
          "worktree.kept",
          s,
          { task: "t1", worktree: wt("t1", s), branch: "ariel/t1", reason, message },
        ]),
      );
      expect(warnings()).toEqual(
        ["api", "web"].map((s) =>
          keptWarning(s, "t1", reason, message, `ariel-worktree remove --task t1 --source ${s}`),
        ),
      );
      expect(f.kept).toEqual([
        { source: "api", reason, task: "t1" },
        { source: "web", reason, task: "t1" },
      ]);
      expect(progress()).toBe("\r\x1b[K[1/2] api: removing worktree\r\x1b[K");
      expect({ api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) }).toEqual(before);
    },
  );

  it("the lease was taken over while the command ran: every leg kept (ERR_FENCED), a clean one too, warned about", async () => {
    const ports = setUp();
    const t = await made(ports, "t1", ["api", "web"]);
    stealLease(root, "t1");
    const before = { api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) };
    const { f, events, warnings } = finisher(ports, t);
    await f.finish(unit(["api", "web"]));
    const message = `lost the lease ${join(root, ".ariel/leases/t1.json")} (ours was token 1, now token 2 of successor)`;
    expect(events).toEqual(
      ["api", "web"].map((s) => [
        "worktree.kept",
        s,
        { task: "t1", worktree: wt("t1", s), branch: "ariel/t1", reason: "ERR_FENCED", message },
      ]),
    );
    expect(warnings()).toEqual(
      ["api", "web"].map((s) =>
        keptWarning(s, "t1", "ERR_FENCED", message, `ariel-worktree remove --task t1 --source ${s}`),
      ),
    );
    expect({ api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) }).toEqual(before);
    expect(legStates("t1")).toEqual([
      ["api", "active"],
      ["web", "active"],
    ]);
  });

  it("a pre-remove hook fails: kept (pre-remove, ERR_HOOK_REFUSED); with --no-hooks none runs and the leg is removed", async () => {
    const ports = setUp(["api"]);
    writeFile(join(root, "ariel.config.json"), '{"hooks":{"pre-remove":"exit 3"}}\n');
    const t = await made(ports, "t1", ["api"]);
    const { f, events, warnings } = finisher(ports, t);
    await f.finish(unit(["api"]));
    const message = 'api: pre-remove hook "exit 3" exited 3; nothing was removed';
    expect(events).toEqual([
      [
        "worktree.kept",
        "api",
        {
          task: "t1",
          worktree: wt("t1", "api"),
          branch: "ariel/t1",
          reason: "pre-remove",
          code: "ERR_HOOK_REFUSED",
          message,
        },
      ],
    ]);
    expect(warnings()).toEqual([
      keptWarning("api", "t1", "pre-remove", message, "ariel-worktree remove --task t1 --source api"),
    ]);
    expect(existsSync(wt("t1", "api"))).toBe(true);

    const quiet = await made(ports, "t2", ["api"], true);
    expect(quiet.noHooks).toBe(true);
    const second = finisher(ports, quiet);
    await second.f.finish(unit(["api"]));
    expect(second.events.map(([e]) => e)).toEqual(["worktree.removed"]);
    expect(existsSync(wt("t2", "api"))).toBe(false);
  });
});

describe("WorktreeFinisher: the progress line on a terminal", () => {
  it("a message still queued (not --json) is written before the progress line, which is erased after", async () => {
    let stderr = "";
    const sink = {
      write: (t: string) => {
        stderr += t;
      },
    };
    const log = new Reporter("ariel-spawn", false, sink);
    const task: IsolatedTask = {
      taskId: "t1",
      taskDir: "/w/.ariel/worktrees/t1",
      legs: new Map([["api", { worktree: "/w/.ariel/worktrees/t1/api", branch: "ariel/t1", overlay: [] }]]),
      created: true,
    };
    const driver: IsolationDriver = {
      create: () => Promise.reject(new Error("not here")),
      finish: async (_p, o) => {
        o.onLeg?.("api", "removing worktree");
        return [{ source: "api", outcome: "removed" }];
      },
    };
    const events: string[] = [];
    const f = new WorktreeFinisher({
      ports: hostPorts(),
      root: "/w",
      task,
      onExit: "remove",
      driver,
      emit: (event) => void events.push(event),
      log,
      progress: new ProgressLine(sink, true),
      rootArg: {},
      legs: { settled: 0, total: 1 },
    });
    log.warn("WARN_X", "said before the worktrees are settled");
    await f.finish(unit(["api"]));
    expect(stderr).toBe(
      "ariel-spawn: warning: said before the worktrees are settled\n\r\x1b[K[1/1] api: removing worktree\r\x1b[K",
    );
    expect([events, f.kept]).toEqual([["worktree.removed"], []]);
  });
});
