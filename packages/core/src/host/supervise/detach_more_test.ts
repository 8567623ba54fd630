/**
 * Starting detached runs from the CLI's side (detach.ts), beyond detach_test.ts: canDetach, the
 * refusals of startDetached before anything is made (not a workspace, no --detach on this
 * platform, a checkout in use, a broken config, the disk floor) and the files each leaves; the
 * plan of a dry run (records, units, tasks, warnings, sandboxes); startPlanned against a fake
 * backend (history line, fsyncs, what the backend is handed); runStartedEvent; and a few live
 * starts under the local backend's monitor (the bundled ariel-spawn): started, could not start
 * (with and without a record), and a monitor that never starts (the task's lease let go).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { defaultConfig } from "../../config.ts";
import { workspaceHash } from "../../hash.ts";
import type { FsPort, Ports } from "../../ports.ts";
import type { RunBackend, StartRequest, StartResult } from "../../runs/backend.ts";
import type { PlannedRun } from "../../runs/plan.ts";
import { resolveWorkspaceRoot } from "../../workspace.ts";
import { GIT_TEST_ENV, git, processGone, removeDir, tempDir } from "../_fixture.ts";
import type { Reporter } from "../cli/mod.ts";
import { blockingFs } from "../fs.ts";
import { acquireLease } from "../lease-store.ts";
import { hostPorts } from "../ports.ts";
import { runFields } from "../runs/_fixture.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { createRun } from "../runs/store.ts";
import { worktreeIsolation } from "../spawn/isolation.ts";
import type { IsolationDriver } from "../spawn/run.ts";
import { createTasks, releaseTasks } from "../spawn/tasks.ts";
import { makeRoot, names } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import {
  canDetach,
  type DetachIo,
  type DetachRequest,
  runStartedEvent,
  startDetached,
  startPlanned,
} from "./detach.ts";

/** The bundled ariel-spawn: a monitor this process starts is `node <argv[1]> --ariel-run-monitor`. */
const SPAWN_BIN = fileURLToPath(new URL("../../../../cli-spawn/dist/ariel-spawn.cjs", import.meta.url));
const PLATFORM = Object.getOwnPropertyDescriptor(process, "platform") as PropertyDescriptor;
/** The clock of planned-only runs: ids `20261202T110943Z-<n six times>`, n counting the ids made. */
const T0 = Date.UTC(2026, 11, 2, 11, 9, 43);
const AT = "2026-12-02T11:09:43.000Z";
const id = (n: number) => `20261202T110943Z-${String(n).repeat(6)}`;
const HUGE = Number.MAX_SAFE_INTEGER;

let root = "";
let home = "";
let hash = "";
/** Workspaces whose monitor a test started; process groups of the runs it started. */
const monitored: string[] = [];
const groups: number[] = [];

afterEach(async () => {
  Object.defineProperty(process, "platform", PLATFORM);
  for (const pgid of groups.splice(0)) killGroup(pgid);
  for (const ws of monitored.splice(0)) await endMonitor(ws);
  for (const dir of [root, home]) if (dir) removeDir(dir);
  root = "";
  home = "";
});

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {}
}

/** The monitor's pid once its monitor.json is written (polled, 10 s at most), else null. */
async function monitorPid(ws: string): Promise<number | null> {
  for (const end = Date.now() + 10_000; Date.now() < end; ) {
    try {
      return (JSON.parse(readFileSync(join(ws, ".ariel/monitor.json"), "utf8")) as { pid: number }).pid;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return null;
}

async function endMonitor(ws: string): Promise<void> {
  const pid = await monitorPid(ws);
  if (pid === null) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
  await processGone(pid);
}

/**
 * Ports over the workspace: a fixed clock and counting random bytes (planned-only runs), or,
 * `live`, the real ones (leases and monitors go by the real time).
 */
function portsOf(live = false): Ports {
  let n = 0;
  return hostPorts({
    env: {
      PATH: process.env.PATH,
      ...GIT_TEST_ENV,
      ARIEL_STATE_HOME: home,
      ARIEL_OWNER: "tester",
      HOME: home,
    },
    cwd: root,
    ...(live
      ? {}
      : { clock: { now: () => T0 }, random: { bytes: (k: number) => new Uint8Array(k).fill(++n) } }),
  });
}

/** A workspace of the git checkouts `sources` (not itself a checkout), and its ports. */
async function setUp(sources: readonly string[] = ["api", "web"], live = false): Promise<Ports> {
  root = makeRoot(sources);
  home = tempDir("ariel-detach-home-");
  hash = await workspaceHash(root);
  return portsOf(live);
}

/** The io of a start: a log that keeps what it is told, in order; the real worktree driver. */
function recorder(isolation = true): { said: unknown[][]; io: DetachIo } {
  const said: unknown[][] = [];
  const log = {
    warn: (...a: unknown[]) => void said.push(["warn", ...a]),
    info: (...a: unknown[]) => void said.push(["info", ...a]),
  } as unknown as Reporter;
  return { said, io: { log, stderrTerminal: false, ...(isolation ? { isolation: worktreeIsolation } : {}) } };
}

const DETACH: DetachRequest["detach"] = {
  name: null,
  restart: { policy: "no", max: 0, count: 0 },
  timeoutMs: null,
  graceMs: 5000,
  onExit: null,
  interactive: false,
};
const source = (name: string) => ({ kind: "name" as const, name, origin: "--source" });

/** A dry run of `true` in source api of the workspace (-C root); `over` changes any of it. */
function ask(over: Partial<DetachRequest> = {}): DetachRequest {
  return {
    workspaceRoot: root,
    targets: [source("api")],
    argv: ["true"],
    graceMs: 5000,
    dryRun: true,
    detach: DETACH,
    ...over,
  };
}

const iso = (over: Partial<NonNullable<DetachRequest["isolate"]>> = {}) => ({
  isolate: { span: false, onExit: "remove" as const, ...over },
});

async function plan(ports: Ports, request: DetachRequest, io: DetachIo) {
  const r = await startDetached(ports, request, io);
  if (r.kind !== "plan") throw new Error(`expected a plan, got ${r.kind}`);
  return r;
}

/** An error as a caller sees it: code, exit, message, hint, context. */
async function refusal(p: Promise<unknown>) {
  const e = await arielErrorOf(p);
  return { code: e.code, exit: e.exit, message: e.message, hint: e.hint, context: e.context };
}

/** The run record a dry run plans for `src` in its checkout; `over` for the rest. */
function record(runId: string, group: string, src: string, over: Partial<PlannedRun> = {}): PlannedRun {
  return {
    v: 1,
    type: "run",
    runId,
    name: null,
    group,
    backend: "local",
    workspace: { root, hash },
    source: src,
    cwd: join(root, src),
    task: null,
    worktree: null,
    branch: null,
    argv: ["true"],
    createdAt: AT,
    startedAt: null,
    endedAt: null,
    monitor: null,
    child: null,
    restart: { policy: "no", max: 0, count: 0 },
    respawnOf: null,
    exit: null,
    timeoutMs: null,
    graceMs: 5000,
    onExit: null,
    interactive: false,
    isolate: null,
    kill: null,
    worktreeOutcome: null,
    ...over,
  };
}

/** The fields of a record planned in the worktree of `src` in task `task`. */
function inTask(task: string, src: string, isolate: PlannedRun["isolate"]): Partial<PlannedRun> {
  const worktree = join(root, ".ariel/worktrees", task, src);
  const branch = `ariel/${task}`;
  return { cwd: worktree, task, worktree, branch, legs: [{ source: src, worktree, branch }], isolate };
}

/** The unit a dry run plans for `src`: in its checkout, or in task `task`'s worktree. */
function unit(runId: string, src: string, task?: string) {
  const worktree = task ? join(root, ".ariel/worktrees", task, src) : null;
  const branch = task ? `ariel/${task}` : null;
  return {
    source: src,
    sources: [src],
    cwd: worktree ?? join(root, src),
    worktree,
    branch,
    overlay: task ? [".env"] : [],
    legs: worktree && branch ? [{ source: src, worktree, branch }] : [],
    argv: ["true"],
    env: {
      ARIEL_WORKSPACE_ROOT: root,
      ARIEL_WORKSPACE_HASH: hash,
      ARIEL_RUN_ID: runId,
      ARIEL_SOURCE: src,
      ...(worktree && branch ? { ARIEL_TASK: task, ARIEL_WORKTREE: worktree, ARIEL_BRANCH: branch } : {}),
    },
  };
}

/** A detached run recorded as running (its monitor and child this very process) in `cwd`. */
async function busyRun(runId: string, cwd: string, task: string | null, name: string | null) {
  mkdirSync(join(root, ".ariel/runs", runId), { recursive: true });
  await createRun(
    root,
    runFields({ root, hash }, runId, {
      name,
      cwd,
      task,
      monitor: selfMonitorRef(),
      child: { pid: process.pid, startTime: null, pgid: process.pid },
    }),
  );
}

const CHECKOUT_NOTE = "itself, not in a worktree of its own (--isolate gives it one)";

describe("canDetach", () => {
  // Process sessions and unix sockets: everywhere but Windows.
  it.each([
    ["linux", true],
    ["darwin", true],
    ["win32", false],
  ])("on %s: %s", (platform, can) => {
    Object.defineProperty(process, "platform", { ...PLATFORM, value: platform });
    expect(canDetach()).toBe(can);
  });
});

describe("startDetached: refused before anything is made", () => {
  // Each refusal comes before .ariel/ is made; a dry run plans where only the start is refused.
  it("a directory that is no workspace (found from the cwd): ERR_NOT_A_WORKSPACE, 66; a dry run plans", async () => {
    await setUp();
    const plain = join(home, "plain");
    mkdirSync(plain);
    const ports = hostPorts({ ...portsOf(), cwd: plain });
    const started = ask({ workspaceRoot: undefined, targets: [], dryRun: false });
    expect(await refusal(startDetached(ports, started, recorder().io))).toEqual({
      code: "ERR_NOT_A_WORKSPACE",
      exit: 66,
      message: `"${plain}" is not a workspace: it has no .ariel/ and is not a git checkout`,
      hint: `name it once to make it one: -C ${plain} (or ARIEL_WORKSPACE_ROOT=${plain})`,
      context: { root: plain, via: "cwd" },
    });
    expect(names(plain)).toEqual([]);
    const planned = await plan(ports, { ...started, dryRun: true }, recorder().io);
    expect(planned.planned.map((p) => [p.run.source, p.run.cwd])).toEqual([[".", plain]]);
    expect(names(plain)).toEqual([]);
  });

  it("on Windows: ERR_DETACH_UNAVAILABLE (69), nothing said nor made; a dry run plans", async () => {
    const ports = await setUp();
    Object.defineProperty(process, "platform", { ...PLATFORM, value: "win32" });
    const { said, io } = recorder();
    expect(await refusal(startDetached(ports, ask({ dryRun: false }), io))).toEqual({
      code: "ERR_DETACH_UNAVAILABLE",
      exit: 69,
      message: "--detach is not available on win32: it needs process sessions and unix sockets",
      hint: "run detached runs on Linux or macOS; docs/runs.md says why",
      context: {},
    });
    expect([said, existsSync(join(root, ".ariel"))]).toEqual([[], false]);
    const planned = await plan(ports, ask(), io);
    expect(planned.planned.map((p) => p.run.runId)).toEqual([id(2)]);
  });

  it("a checkout another detached run works in: ERR_CHECKOUT_IN_USE (a dry run too), unless shared or isolated", async () => {
    const ports = await setUp();
    await busyRun("20261201T000000Z-aaaaaa", join(root, "api"), null, "first");
    expect(await refusal(startDetached(ports, ask(), recorder().io))).toEqual({
      code: "ERR_CHECKOUT_IN_USE",
      exit: 75,
      message: `the checkout of "api" is in use by detached run first (20261201T000000Z-aaaaaa, running); nothing was started`,
      hint: "add --isolate for a worktree of its own, wait for it (ariel-runs wait first), or pass --shared to work there too",
      context: { source: "api", path: join(root, "api"), runs: ["20261201T000000Z-aaaaaa"] },
    });
    const cwds = async (r: DetachRequest) =>
      (await plan(ports, r, recorder().io)).planned.map((p) => p.run.cwd.slice(root.length));
    expect(await cwds(ask({ shared: true }))).toEqual(["/api"]);
    expect(await cwds(ask(iso({ taskId: "own" })))).toEqual(["/.ariel/worktrees/own/api"]);
    expect(await cwds(ask({ targets: [source("web")] }))).toEqual(["/web"]);
  });
});

describe("startDetached: a broken config", () => {
  // A shared run goes on without the file; an isolated one fails over it, first.
  it("a broken config: a shared run plans without it; an isolated one is ERR_CONFIG (78), before the disk floor", async () => {
    const ports = await setUp();
    writeFileSync(join(root, "ariel.config.json"), "{");
    const shared = await plan(ports, ask(), recorder().io);
    expect(shared.planned.map((p) => p.run.cwd)).toEqual([join(root, "api")]);
    const file = join(root, "ariel.config.json");
    const broken = {
      code: "ERR_CONFIG",
      exit: 78,
      message: `${file}: invalid JSON at line 1 column 2`,
      hint: "fix the JSON syntax (no comments or trailing commas)",
      context: { file, where: "line 1 column 2" },
    };
    expect(await refusal(startDetached(ports, ask(iso()), recorder().io))).toEqual(broken);
    expect(await refusal(startDetached(ports, ask({ ...iso(), minFreeBytes: HUGE }), recorder().io))).toEqual(
      broken,
    );
  });
});

/** ERR_DISK_LOW of `spawn --detach` on `path` (its free bytes as they are now). */
function diskLow(path: string) {
  return {
    code: "ERR_DISK_LOW",
    exit: 75,
    message: expect.stringMatching(
      new RegExp(`^spawn --detach: only .+ free on ${path}, under the floor of 8 PiB$`),
    ) as unknown as string,
    hint: expect.stringMatching(/^free space first: .*; nothing was changed$/) as unknown as string,
    context: { path, free: expect.any(Number) as unknown as number, minFreeBytes: HUGE },
  };
}

describe("startDetached: the disk floor, and what is said of the checkouts before it", () => {
  // A shared run is told once (not in a dry run) that it works in the checkouts; the floor is
  // checked on the root, or on the worktree root for --isolate; nothing is made.
  it.each<[string, Partial<DetachRequest>, string[]]>([
    ["one source", { dryRun: false }, ["in the checkout {root}/api"]],
    [
      "two sources",
      { dryRun: false, targets: [source("api"), source("web")] },
      ["in the checkouts of 2 sources"],
    ],
    ["a dry run says nothing", {}, []],
  ])("%s", async (_name, over, where) => {
    const ports = await setUp();
    const { said, io } = recorder();
    expect(await refusal(startDetached(ports, ask({ minFreeBytes: HUGE, ...over }), io))).toEqual(
      diskLow(root),
    );
    const told = where.map((w) => ["info", `the run works ${w.replace("{root}", root)} ${CHECKOUT_NOTE}`]);
    expect(said).toEqual(told);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("under a config's worktree root: --isolate checks that one (nothing said), a shared run the root", async () => {
    const ports = await setUp();
    writeFileSync(join(root, "ariel.config.json"), JSON.stringify({ worktreeRoot: "wt" }));
    mkdirSync(join(root, "wt"));
    const { said, io } = recorder();
    const started = ask({ ...iso(), minFreeBytes: HUGE, dryRun: false });
    expect(await refusal(startDetached(ports, started, io))).toEqual(diskLow(join(root, "wt")));
    expect([said, names(join(root, "wt")), existsSync(join(root, ".ariel"))]).toEqual([[], [], false]);
    expect(await refusal(startDetached(ports, ask({ minFreeBytes: HUGE }), io))).toEqual(diskLow(root));
  });

  it("the caller's resolved config is the one read (its minFreeBytes), not the file's", async () => {
    const ports = await setUp();
    const ws = await resolveWorkspaceRoot(ports, root);
    const resolved = { ws, config: { ...defaultConfig(root), minFreeBytes: HUGE } };
    expect(await refusal(startDetached(ports, ask({ resolved }), recorder().io))).toEqual(diskLow(root));
    expect((await plan(ports, ask(), recorder().io)).planned.length).toBe(1);
  });
});

describe("startDetached --dry-run: the runs it would start", () => {
  // One record per unit, all in one group made first; nothing made on disk, nothing said.
  it("one source: its record and unit, named as given; no tasks", async () => {
    const ports = await setUp();
    const { said, io } = recorder();
    const r = await plan(ports, ask({ detach: { ...DETACH, name: "agent" } }), io);
    expect(r).toEqual({
      kind: "plan",
      planned: [{ run: record(id(2), id(1), "api", { name: "agent" }), unit: unit(id(2), "api") }],
      tasks: [],
    });
    expect([said, existsSync(join(root, ".ariel"))]).toEqual([[], false]);
  });

  it("two sources: a run each, named <name>@<source>, in one group", async () => {
    const ports = await setUp();
    const request = ask({ targets: [source("api"), source("web")], detach: { ...DETACH, name: "agent" } });
    const r = await plan(ports, request, recorder().io);
    expect(r.planned).toEqual([
      { run: record(id(2), id(1), "api", { name: "agent@api" }), unit: unit(id(2), "api") },
      { run: record(id(3), id(1), "web", { name: "agent@web" }), unit: unit(id(3), "web") },
    ]);
  });

  it("--isolate over two sources: a task each (planned, not made), each run in its own", async () => {
    const ports = await setUp();
    const request = ask({ ...iso({ taskId: "T" }), targets: [source("api"), source("web")] });
    const r = await plan(ports, request, recorder().io);
    const made = { onExit: "remove" as const, created: true };
    expect(r.planned).toEqual([
      { run: record(id(2), id(1), "api", inTask("T-api", "api", made)), unit: unit(id(2), "api", "T-api") },
      { run: record(id(3), id(1), "web", inTask("T-web", "web", made)), unit: unit(id(3), "web", "T-web") },
    ]);
    expect(r.tasks.map((t) => [t.taskId, t.created, t.lease])).toEqual([
      ["T-api", true, undefined],
      ["T-web", true, undefined],
    ]);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("--join into a task a detached run works in: its record names the runs it joined", async () => {
    await setUp();
    const made = await createTasks(
      worktreeIsolation,
      portsOf(true),
      root,
      [{ name: "api", path: join(root, "api"), checkout: true }],
      { span: false, onExit: "remove", taskId: "J" },
      { dryRun: false },
    );
    await releaseTasks(made);
    await busyRun("20261201T000000Z-bbbbbb", join(root, ".ariel/worktrees/J/api"), "J", null);
    const r = await plan(portsOf(), ask(iso({ taskId: "J", join: true })), recorder().io);
    // The task exists: the plan says what the run records, not created (a new task would be).
    const joined = { onExit: "remove" as const, created: false, joined: ["20261201T000000Z-bbbbbb"] };
    expect(r.planned.map((p) => p.run)).toEqual([record(id(2), id(1), "api", inTask("J", "api", joined))]);
  });
});

describe("startDetached --dry-run: warnings", () => {
  // The tasks' warnings (with their hints), then one per run whose agent cannot be wired.
  const changesLeftOut = [
    "warn",
    "WARN_CHANGES_LEFT_OUT",
    '"api" has uncommitted changes its new worktree starts without: README.md',
    {
      source: "api",
      paths: ["README.md"],
      hint: "pass --with-changes to carry them into the worktree (the source stays as it is), or commit them first",
    },
  ];
  const reportsOff = (who: string, runId: string) => [
    "warn",
    "WARN_AGENT_REPORTS_OFF",
    `${who}: the command gives its own --settings, so ariel does not wire its reports: its screen tells what it does`,
    { runId },
  ];

  it("an uncommitted change left out of the task, and claude with its own --settings (by its run id)", async () => {
    // The task's id is made first (1), then the group (2), then the run (3).
    const ports = await setUp();
    writeFileSync(join(root, "api/README.md"), "changed\n");
    const { said, io } = recorder();
    await plan(ports, ask({ ...iso(), argv: ["claude", "--settings", "mine.json"] }), io);
    expect(said).toEqual([changesLeftOut, reportsOff(id(3), id(3))]);
  });

  it("the agent named for a terminal run (--tty --agent claude), whatever the command: by the run's name", async () => {
    const ports = await setUp();
    const { said, io } = recorder();
    const detach = { ...DETACH, name: "bot", tty: { cols: 80, rows: 24 }, agent: "claude" };
    await plan(ports, ask({ argv: ["node", "--settings", "mine.json"], detach }), io);
    expect(said).toEqual([reportsOff("bot", id(2))]);
  });

  it.each<[string, string[], Partial<DetachRequest["detach"]>]>([
    ["--no-agent-reports", ["claude", "--settings", "mine.json"], { agentReports: false }],
    ["claude without --settings", ["claude", "-p", "go"], {}],
    ["a command of no agent", ["node", "--settings", "mine.json"], {}],
  ])("%s: nothing said", async (_name, argv, over) => {
    const ports = await setUp();
    const { said, io } = recorder();
    await plan(ports, ask({ argv, detach: { ...DETACH, ...over } }), io);
    expect(said).toEqual([]);
  });
});

describe("startDetached --dry-run: another worktree driver", () => {
  // Whatever driver makes the tasks: a task it gives without warnings says nothing, and each run
  // works in its task's leg.
  it("a task given without warnings: nothing said, the run in the task's leg", async () => {
    const ports = await setUp();
    const worktree = join(root, "elsewhere/F/api");
    const leg = { worktree, branch: "f", overlay: [] };
    const driver: IsolationDriver = {
      create: async () => ({
        taskId: "F",
        taskDir: dirname(worktree),
        legs: new Map([["api", leg]]),
        created: true,
      }),
      finish: async () => [],
    };
    const { said, io } = recorder();
    const r = await plan(ports, ask(iso()), { ...io, isolation: driver });
    const legs = [{ source: "api", worktree, branch: "f" }];
    const isolate = { onExit: "remove" as const, created: true };
    const fields = { cwd: worktree, task: "F", worktree, branch: "f", legs, isolate };
    expect(r.planned.map((p) => p.run)).toEqual([record(id(2), id(1), "api", fields)]);
    expect(said).toEqual([]);
  });
});

describe("startDetached --dry-run: a sandbox from the config", () => {
  // config `sandbox` turns it on for every run: the record and the unit carry it, with the config's net.
  it("each run's record and unit carry the config's sandbox", async () => {
    const ports = await setUp();
    writeFileSync(join(root, "ariel.config.json"), JSON.stringify({ sandbox: { net: "none" } }));
    const r = await plan(ports, ask(), recorder().io);
    const [p] = r.planned;
    expect([p?.run.sandbox?.write, p?.run.sandbox?.net]).toEqual([[join(root, "api")], "none"]);
    expect(p?.unit.sandbox).toEqual(p?.run.sandbox);
    expect(p?.run).toEqual(record(id(2), id(1), "api", { sandbox: p?.run.sandbox }));
  });

  it("without it (and no --sandbox): no sandbox", async () => {
    const ports = await setUp();
    const r = await plan(ports, ask(), recorder().io);
    expect(r.planned.map((p) => ["sandbox" in p.run, "sandbox" in p.unit])).toEqual([[false, false]]);
  });
});

/** startPlanned over `root` with a backend that answers `answer`; what happened, in order. */
async function handOver(
  planned: readonly { run: PlannedRun; unit: { env: Record<string, string> } }[],
  env: Record<string, string | undefined>,
  answer: StartResult[] = [],
) {
  const log: string[] = [];
  const asked: StartRequest[][] = [];
  const fs: FsPort = {
    ...blockingFs,
    syncDir: (path) => {
      log.push(`syncDir ${path.slice(root.length)}`);
      return blockingFs.syncDir(path);
    },
  };
  const backend = {
    name: "local",
    start: async (specs: readonly StartRequest[]) => {
      log.push(`start ${specs.length}`);
      asked.push([...specs]);
      return answer;
    },
  } as unknown as RunBackend;
  const ports = hostPorts({ fs, cwd: root, env, clock: { now: () => T0 } });
  const results = await startPlanned(ports, backend, { root, hash }, planned);
  return { log, asked, results };
}

describe("startPlanned", () => {
  // Each run's directory and its run.started line before the backend is asked; .ariel/ fsynced
  // only when runs/ is new, runs/ only when there is a run; the backend's answer as it is.
  const env = { ARIEL_STATE_HOME: "", KEEP: "yes", ARIEL_TASK: "inherited", ARIEL_RUN_ID: "inherited" };

  it("hands each run over with its child's environment (ariel's variables its own), after its run.started", async () => {
    await setUp();
    const run = record(id(2), id(1), "api", { name: "agent" });
    const answer: StartResult[] = [{ runId: id(2), ok: false, status: 127, code: "ERR_X", message: "no" }];
    const unitEnv = { ARIEL_RUN_ID: id(2), ARIEL_SOURCE: "api" };
    const r = await handOver([{ run, unit: { env: unitEnv } }], { ...env, ARIEL_STATE_HOME: home }, answer);
    expect(r.results).toBe(answer);
    expect(r.asked).toEqual([
      [{ runId: id(2), env: { ARIEL_STATE_HOME: home, KEEP: "yes", ...unitEnv }, record: run }],
    ]);
    expect(r.log.slice(-3)).toEqual(["syncDir /.ariel", "syncDir /.ariel/runs", "start 1"]);
    const started = {
      v: 1,
      type: "event",
      event: "run.started",
      runId: id(2),
      ts: AT,
      source: "api",
      argv: ["true"],
      workspace: { root, hash },
      targets: ["api"],
      mode: "detached",
      name: "agent",
      group: id(1),
    };
    const history = join(root, ".ariel/runs", `${id(2)}.ndjson`);
    expect(readFileSync(history, "utf8")).toBe(`${JSON.stringify(started)}\n`);
    expect(names(join(root, ".ariel/runs", id(2)))).toEqual([]);
  });

  it("a run whose directory is there already: only .ariel/runs/ is fsynced", async () => {
    await setUp();
    mkdirSync(join(root, ".ariel/runs", id(2)), { recursive: true });
    const r = await handOver([{ run: record(id(2), id(1), "api"), unit: { env: {} } }], {
      ...env,
      ARIEL_STATE_HOME: home,
    });
    expect(r.log.filter((l) => l.startsWith("syncDir /.ariel"))).toEqual(["syncDir /.ariel/runs"]);
  });

  it("no runs: no fsync of runs/, the backend asked for none", async () => {
    await setUp();
    const r = await handOver([], { ...env, ARIEL_STATE_HOME: home });
    expect([r.log.filter((l) => l.startsWith("syncDir /.ariel")), r.asked, r.results]).toEqual([
      [],
      [[]],
      [],
    ]);
    expect(names(join(root, ".ariel/runs"))).toEqual([]);
  });
});

/** runStartedEvent's cases: the record's fields, what a backend adds, the event's fields after `ts`. */
const EVENT_WS = { root: "/w", hash: "0123456789abcdef" };
const EVENT_RUN = {
  runId: id(2),
  source: "api",
  argv: ["true"],
  workspace: EVENT_WS,
  task: null,
  name: null,
};
const EVENT_HEAD = { v: 1, type: "event", event: "run.started", runId: id(2), ts: AT };
const SPAN_LEGS = [
  { source: "api", worktree: "/w/.ariel/worktrees/t/api", branch: "ariel/t" },
  { source: "web", worktree: "/w/.ariel/worktrees/t/web", branch: "ariel/t" },
];
const STARTED_CASES: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
  [
    "a run in a checkout, in a group",
    { group: id(1) },
    {},
    {
      source: "api",
      argv: ["true"],
      workspace: EVENT_WS,
      targets: ["api"],
      mode: "detached",
      name: null,
      group: id(1),
    },
  ],
  [
    "a run in a task's worktree, named, without a group; a token in its argv redacted",
    {
      task: "t-api",
      legs: [SPAN_LEGS[0]],
      name: "agent",
      argv: ["git", "push", "https://me:s3cret@example.com/r.git"],
    },
    {},
    {
      source: "api",
      argv: ["git", "push", "https://example.com/r.git"],
      workspace: EVENT_WS,
      targets: ["api"],
      mode: "detached",
      task: "t-api",
      legs: [SPAN_LEGS[0]],
      name: "agent",
      group: null,
    },
  ],
  [
    "a --span run: no source, its legs are its targets",
    { source: null, task: "t", legs: SPAN_LEGS, group: id(1) },
    {},
    {
      source: null,
      argv: ["true"],
      workspace: EVENT_WS,
      targets: ["api", "web"],
      mode: "detached",
      task: "t",
      legs: SPAN_LEGS,
      name: null,
      group: id(1),
    },
  ],
  [
    "a respawn, with what its backend adds",
    { respawnOf: id(9), group: null },
    { job: "ariel-run-x" },
    {
      source: "api",
      argv: ["true"],
      workspace: EVENT_WS,
      targets: ["api"],
      mode: "detached",
      name: null,
      group: null,
      respawnOf: id(9),
      job: "ariel-run-x",
    },
  ],
];

describe("runStartedEvent", () => {
  // The first line of a detached run's history: its argv redacted, its targets (a --span run's
  // legs), its task and legs when it has them, its group (null without), what a backend adds.
  it.each(STARTED_CASES)("%s", (_name, over, extra, fields) => {
    const run = { ...EVENT_RUN, ...over } as unknown as PlannedRun;
    const event = runStartedEvent(run, T0, extra);
    expect(JSON.stringify(event)).toBe(JSON.stringify({ ...EVENT_HEAD, ...fields }));
  });
});

/**
 * `fn` with a monitor started from `bin` (what a CLI starts: `node <argv[1]> --ariel-run-monitor`),
 * which ends 1.5 s after its last run and keeps its user state under `home`; afterEach ends it.
 */
async function withMonitorFrom<T>(bin: string, fn: () => Promise<T>): Promise<T> {
  const saved = {
    argv1: process.argv[1] as string,
    idle: process.env.ARIEL_MONITOR_IDLE_MS,
    state: process.env.ARIEL_STATE_HOME,
  };
  process.argv[1] = bin;
  process.env.ARIEL_MONITOR_IDLE_MS = "1500";
  process.env.ARIEL_STATE_HOME = home;
  if (bin === SPAWN_BIN) monitored.push(root);
  try {
    return await fn();
  } finally {
    process.argv[1] = saved.argv1;
    for (const [k, v] of [
      ["ARIEL_MONITOR_IDLE_MS", saved.idle],
      ["ARIEL_STATE_HOME", saved.state],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

async function startLive(ports: Ports, request: DetachRequest, io: DetachIo) {
  const r = await withMonitorFrom(SPAWN_BIN, () => startDetached(ports, request, io));
  if (r.kind !== "started") throw new Error(`expected started runs, got ${r.kind}`);
  for (const res of r.results) if (res.ok) groups.push(res.child.pgid);
  return r;
}

/** Whether another owner could take task `task`'s lease now (taken and let go at once). */
async function leaseFree(task: string): Promise<boolean> {
  try {
    const l = await acquireLease(root, task, { owner: "someone-else" });
    await l.release();
    return true;
  } catch {
    return false;
  }
}

const historyOf = (runId: string) =>
  readFileSync(join(root, ".ariel/runs", `${runId}.ndjson`), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("startDetached: live starts under the workspace's monitor", () => {
  // The real local backend, its monitor the bundled ariel-spawn: a run it started comes back
  // with its result and its view, its history begun by run.started.
  const detach = { ...DETACH, timeoutMs: 60_000 };

  // Within 12 s: waiting for a started run to settle (the failed ones' wait, 15 s) would not be.
  it("a started run: its result, its view (running), its run.started, the note on stderr", {
    timeout: 12_000,
  }, async () => {
    const ports = await setUp(["api"], true);
    const { said, io } = recorder();
    const r = await startLive(ports, ask({ dryRun: false, argv: ["sleep", "30"], detach }), io);
    const run = r.planned[0]?.run as PlannedRun;
    const child = { pid: expect.any(Number), pgid: expect.any(Number), startTime: expect.any(String) };
    expect(r.results).toEqual([{ runId: run.runId, ok: true, child }]);
    const started = r.results[0]?.ok ? r.results[0].child : null;
    expect(r.views.map((v) => [v.state, v.exit])).toEqual([["running", null]]);
    expect(r.views[0]?.record).toEqual({
      ...run,
      startedAt: expect.any(String),
      monitor: { pid: expect.any(Number), startTime: expect.any(String), bootId: expect.any(String) },
      child: started,
      version: 1,
      fencingToken: 0,
    });
    expect([run.argv, run.cwd, run.timeoutMs]).toEqual([["sleep", "30"], join(root, "api"), 60_000]);
    expect(said).toEqual([["info", `the run works in the checkout ${join(root, "api")} ${CHECKOUT_NOTE}`]]);
    expect(historyOf(run.runId)[0]).toEqual({
      v: 1,
      type: "event",
      event: "run.started",
      runId: run.runId,
      ts: expect.any(String),
      source: "api",
      argv: ["sleep", "30"],
      workspace: { root, hash },
      targets: ["api"],
      mode: "detached",
      name: null,
      group: run.group,
    });
    expect(names(join(root, ".ariel/runs", run.runId))).toEqual(["run.json", "stderr", "stdout"]);
  });
});

describe("startDetached: live runs that could not start", () => {
  // Its view when its monitor recorded it (settled first), none when refused; a monitor that
  // never starts lets the task's lease go and leaves the rest.
  const detach = { ...DETACH, timeoutMs: 60_000 };

  it("an isolated run whose command is not found: 127, its view once its worktree is settled, the lease let go", async () => {
    const ports = await setUp(["api"], true);
    const { said, io } = recorder();
    const request = ask({ ...iso({ taskId: "nf" }), dryRun: false, argv: ["ariel-no-such-command"], detach });
    const r = await startLive(ports, request, io);
    const runId = r.planned[0]?.run.runId as string;
    expect(r.results).toEqual([
      {
        runId,
        ok: false,
        status: 127,
        code: "ERR_COMMAND_NOT_FOUND",
        message: "command not found: ariel-no-such-command",
      },
    ]);
    expect(
      r.views.map((v) => [v.record.runId, v.state, v.exit?.status, v.exit?.reason, v.record.child]),
    ).toEqual([[runId, "failed", 127, "spawn", null]]);
    expect(r.views[0]?.record.worktreeOutcome).toEqual({ outcome: "removed", reason: null });
    expect([said, names(join(root, ".ariel/worktrees")), await leaseFree("nf")]).toEqual([[], [], true]);
  });

  it("a run its monitor refuses (an invalid record): no view, its directory and run.started left, no run.json", async () => {
    const ports = await setUp(["api"], true);
    const { io } = recorder();
    const r = await startLive(ports, ask({ dryRun: false, detach: { ...DETACH, timeoutMs: 0 } }), io);
    const runId = r.planned[0]?.run.runId as string;
    expect(r.results).toEqual([
      {
        runId,
        ok: false,
        status: 125,
        code: "ERR_MONITOR",
        message: "the run record is not valid (timeoutMs)",
      },
    ]);
    expect(r.views).toEqual([]);
    expect(names(join(root, ".ariel/runs"))).toEqual([runId, `${runId}.ndjson`]);
    expect(names(join(root, ".ariel/runs", runId))).toEqual([]);
    expect(historyOf(runId).map((e) => e.event)).toEqual(["run.started"]);
  });

  it("a monitor that never starts: ERR_MONITOR (69); the run's directory and history go, the new task's clean worktree is removed, its lease let go", async () => {
    const ports = await setUp(["api"], true);
    const { said, io } = recorder();
    const request = ask({ ...iso({ taskId: "nm" }), dryRun: false });
    const failed = withMonitorFrom(join(home, "no-such-cli.cjs"), () => startDetached(ports, request, io));
    expect(await refusal(failed)).toEqual({
      code: "ERR_MONITOR",
      exit: 69,
      message: `the run monitor for ${root} did not start: it exited with status 1`,
      hint: `see ${root}/.ariel/monitor.log`,
      context: { root, socket: join(root, ".ariel/monitor.sock") },
    });
    expect([
      said,
      names(join(root, ".ariel/runs")),
      names(join(root, ".ariel/worktrees")),
      await leaseFree("nm"),
    ]).toEqual([[], [], [], true]);
    // Its branch is kept, as every removal keeps one (docs/lifecycle.md).
    expect(git(join(root, "api"), "branch", "--list", "ariel/nm")).toBe("ariel/nm");
  });

  it("a monitor that never starts, in a task that existed: its worktree kept as it was", async () => {
    const ports = await setUp(["api"], true);
    const { io } = recorder();
    await addTask(ports, { root, taskId: "old", sources: ["api"] });
    writeFileSync(join(root, ".ariel/worktrees/old/api/kept.txt"), "work\n");
    const request = ask({ ...iso({ taskId: "old" }), dryRun: false });
    const failed = withMonitorFrom(join(home, "no-such-cli.cjs"), () => startDetached(ports, request, io));
    expect((await refusal(failed)).code).toBe("ERR_MONITOR");
    expect([
      names(join(root, ".ariel/worktrees/old")),
      readFileSync(join(root, ".ariel/worktrees/old/api/kept.txt"), "utf8"),
      await leaseFree("old"),
    ]).toEqual([["api"], "work\n", true]);
  });
});
