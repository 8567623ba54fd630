import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ArielError, type FleetRun, workspaceHash } from "@ariel/core";
import { addTask, createRun, hostPorts, type KnownWorkspace, loadRun, writeExitOnce } from "@ariel/core/host";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import {
  commitAll,
  GIT_TEST_ENV,
  git,
  removeDir,
  tempDir,
  writeFile,
} from "../../../core/src/host/_fixture.ts";
import { runFields } from "../../../core/src/host/runs/_fixture.ts";
import { makeRoot } from "../../../core/src/host/worktree/_fixture.ts";
import type { NewRunRequest } from "../model/form.ts";
import { exited as exitRecord, until, useLiveRuns } from "./_fixture.ts";
import { Actions, failed } from "./actions.ts";

// Each key's action through the real host operation, on a workspace of real repositories in a
// temp dir: the outcome lines the status line and dialogs show, refusals as the CLI's error
// record says them (code, message, hint, exit). Recorded runs (run.json written here, no
// process) where the action allows; live runs through a real monitor (ariel-spawn's bundle)
// where it needs one, every process of which is killed after each test.

const A = "20261202T110943Z-aaaaaa";
const B = "20261202T110944Z-bbbbbb";
const C = "20261202T110945Z-cccccc";
const ENDED_AT = "2026-12-02T11:10:00.000Z";

// git runs with this process's environment (host/git.ts), so a land's commits take their author
// from here, not from a HOME that may have none (the mutation runs give each its own HOME).
Object.assign(process.env, GIT_TEST_ENV);

let root: string;
let state: string;
let env: NodeJS.ProcessEnv;
let ws: KnownWorkspace;
let act: Actions;

async function world(sources: string[]): Promise<void> {
  root = makeRoot(sources);
  state = tempDir("ariel-tui-actions-state-");
  env = { ...process.env, ...GIT_TEST_ENV, ARIEL_STATE_HOME: state, ARIEL_OWNER: "tester" };
  ws = { root, hash: await workspaceHash(root), origin: "flag", exists: true };
  act = new Actions(env);
}

function dispose(): void {
  removeDir(root);
  removeDir(state);
}

/** A fresh workspace of `sources` for each test of the describe that calls this. */
function useWorld(sources: string[]): void {
  beforeEach(() => world(sources));
  afterEach(dispose);
}

const runsDir = () => join(root, ".ariel/runs");
const record = (id: string) =>
  JSON.parse(readFileSync(join(runsDir(), id, "run.json"), "utf8")) as Record<string, unknown>;
const runIds = () =>
  existsSync(runsDir())
    ? readdirSync(runsDir())
        .filter((n) => !n.endsWith(".ndjson"))
        .sort()
    : [];

const view = async (id: string): Promise<FleetRun> => (await loadRun(ws, id))!.view;

/** A detached run's run.json (local, no monitor: lost unless an exit is written). */
async function recorded(id: string, more: Record<string, unknown> = {}): Promise<FleetRun> {
  await createRun(root, runFields(ws, id, { cwd: join(root, "api"), ...more }));
  return view(id);
}

async function exited(id: string): Promise<FleetRun> {
  await writeExitOnce(root, exitRecord(id));
  return view(id);
}

/** A foreground run: its history only, as ariel-spawn writes it. */
async function foreground(id: string): Promise<FleetRun> {
  mkdirSync(runsDir(), { recursive: true });
  const started = { v: 1, type: "event", event: "run.started", runId: id, ts: ENDED_AT, source: "api" };
  writeFileSync(
    join(runsDir(), `${id}.ndjson`),
    `${JSON.stringify({ ...started, argv: ["make"], targets: ["api"] })}\n`,
  );
  return view(id);
}

describe("failed", () => {
  // An error as the CLI's error record says it: code and message, the hint when there is one, its exit.
  it.each([
    [
      "an ArielError with a hint",
      new ArielError("ERR_REFUSED", "no", { hint: "try again" }),
      { ok: false, message: "ERR_REFUSED: no", lines: ["ERR_REFUSED: no", "hint: try again"], exit: 3 },
    ],
    [
      "its code's default hint and exit",
      new ArielError("ERR_USAGE", "bad"),
      {
        ok: false,
        message: "ERR_USAGE: bad",
        lines: ["ERR_USAGE: bad", "hint: run with --help to see the flags"],
        exit: 64,
      },
    ],
    [
      "an empty hint: no hint line; an exit of its own",
      new ArielError("ERR_USAGE", "bad", { hint: "", exit: 9 }),
      { ok: false, message: "ERR_USAGE: bad", lines: ["ERR_USAGE: bad"], exit: 9 },
    ],
    ["any other error: its message, 70", new Error("boom"), { ok: false, message: "error: boom", exit: 70 }],
  ])("%s", (_name, e, want) => expect(failed(e)).toEqual(want));
});

describe("Actions on a foreground run", () => {
  // Refused before any host call: only a detached run is controlled from here.
  useWorld(["api"]);

  const hint =
    "hint: stop it where it runs (Ctrl-C); start runs with ariel-spawn --detach (or n here) to control them";
  it.each([
    ["kill", (r: FleetRun) => act.kill(r), "killed"],
    ["respawn", (r: FleetRun) => act.respawn(r, false), "respawned"],
    ["send", (r: FleetRun) => act.send(r, "hi"), "sent input"],
  ])("%s of a foreground run: ERR_REFUSED, where to stop it", async (_name, action, what) => {
    const run = await foreground(A);
    expect(run.kind).toBe("foreground");
    const message = `ERR_REFUSED: run ${A} is a foreground ariel-spawn: it cannot be ${what} from here`;
    expect(await action(run)).toEqual({ ok: false, message, lines: [message, hint], exit: 3 });
  });
});

describe("Actions on recorded runs (no process)", () => {
  // The host's own answer for a run that ended or was lost: nothing to signal, nothing to type into.
  useWorld(["api"]);

  it("kill of an ended run: nothing signalled, by its name, or its id without one", async () => {
    await recorded(B);
    expect(await act.kill(await exited(B))).toEqual({
      ok: true,
      message: "agent had already ended; nothing was signalled",
      exit: 0,
    });
    const lost = await recorded(C, { name: null });
    expect(lost.state).toBe("lost");
    expect(await act.kill(lost)).toEqual({
      ok: true,
      message: `${C} had already ended; nothing was signalled`,
      exit: 0,
    });
  });

  it("send to a run without a terminal: ERR_USAGE (64); to an ended tty run: ERR_REFUSED naming respawn", async () => {
    const piped = await recorded(B);
    const usage = `ERR_USAGE: run ${B} takes no input: it was started without --tty or --interactive`;
    expect(await act.send(piped, "hi")).toEqual({
      ok: false,
      message: usage,
      lines: [usage, "hint: run with --help to see the flags"],
      exit: 64,
    });
    const tty = await recorded(C, { tty: { cols: 80, rows: 24 } });
    const refused = `ERR_REFUSED: run ${C} is lost: nothing reads what is typed`;
    expect(await act.send(tty, "hi")).toEqual({
      ok: false,
      message: refused,
      lines: [refused, `hint: ariel-runs respawn ${C} starts it again`],
      exit: 3,
    });
  });

  it("respawn --resume of an agent without a resume form; respawn of a run whose directory is gone", async () => {
    const generic = await exited((await recorded(B)).runId);
    const usage = `ERR_USAGE: run agent (${B}): its agent preset (generic) has no resume form`;
    expect(await act.respawn(generic, true)).toEqual({
      ok: false,
      message: usage,
      lines: [
        usage,
        "hint: respawn without --resume starts it afresh; presets with one: claude, codex, aider",
      ],
      exit: 64,
    });
    const gone = await recorded(C, { cwd: join(root, "gone") });
    const message = `ERR_SOURCE_NOT_FOUND: cannot respawn ${C}: its directory ${JSON.stringify(join(root, "gone"))} is gone; the run was left as it is`;
    expect(await act.respawn(gone, false)).toEqual({
      ok: false,
      message,
      lines: [message, "hint: check the source, or start a new run with ariel-spawn --detach"],
      exit: 66,
    });
    expect(runIds()).toEqual([B, C]);
  });
});

const leg = (task: string, source: string) => join(root, ".ariel/worktrees", task, source);
const main = (source: string) => git(join(root, source), "rev-parse", "main");

/** Task `taskId` over `sources`, made by the host's addTask. */
async function task(taskId: string, sources: string[]): Promise<void> {
  await addTask(hostPorts({ env, cwd: root }), { root, taskId, sources, noHooks: true });
}

/** Commit `file` in the task's leg of `source`; the new head. */
function commit(taskId: string, source: string, file: string, text: string): string {
  writeFile(join(leg(taskId, source), file), text);
  return commitAll(leg(taskId, source), `${taskId}: ${file}`);
}

/** t1 over api and web; its api leg conflicts with main, its web leg would land. */
async function conflicting(): Promise<void> {
  await task("t1", ["api", "web"]);
  commit("t1", "api", "README.md", "t1's readme\n");
  commit("t1", "web", "w.txt", "w\n");
  writeFile(join(root, "api", "README.md"), "main's readme\n");
  commitAll(join(root, "api"), "main moves on");
}

const conflict = () => ({
  ok: false,
  message: "nothing landed: api (conflict) refused; ariel-worktree diff --task t1 shows the task",
  lines: [
    "ERR_LAND_CONFLICT: api: ariel/t1 does not merge cleanly into main: README.md",
    "  hint: merge the target into the task's branch and resolve the conflicts there, then land again; nothing was changed",
    "nothing landed: api (conflict) refused; ariel-worktree diff --task t1 shows the task",
  ],
  exit: 3,
});

describe("Actions.diff", () => {
  // A task's diff, each leg with its patch.
  useWorld(["api", "web"]);

  it("diff: each leg with its commits, files and patch (no --stat)", async () => {
    await task("t1", ["api", "web"]);
    const head = commit("t1", "api", "f.txt", "one\n");
    const diff = await act.diff(ws, "t1");
    // With the patch, without --stat's text.
    const keys = "base branch commits files head patch path source state task type uncommitted v".split(" ");
    expect(diff.map((d) => Object.keys(d).sort())).toEqual([keys, keys]);
    expect(diff.map((d) => [d.source, d.head, d.commits, d.files, d.patch])).toEqual([
      [
        "api",
        head,
        [{ commit: head, subject: "t1: f.txt" }],
        [{ path: "f.txt", status: "A", added: 1, deleted: 0 }],
        `diff --git a/f.txt b/f.txt\nnew file mode 100644\nindex 0000000..5626abf\n--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+one\n`,
      ],
      ["web", main("web"), [], [], ""],
    ]);
  });
});

describe("Actions.landPlan", () => {
  // The land's plan, per leg, with nothing moved.
  useWorld(["api", "web"]);

  it("landPlan: per leg what moves where, commits counted; nothing moves", async () => {
    await task("t1", ["api", "web"]);
    await task("t2", ["web"]);
    commit("t1", "api", "a.txt", "a\n");
    commit("t1", "api", "b.txt", "b\n");
    commit("t2", "web", "c.txt", "c\n");
    const before = [main("api"), main("web")];
    const one = await act.landPlan(ws, "t1");
    expect(one.plan.legs.map((l) => [l.source, l.action, l.commits])).toEqual([
      ["api", "land", 2],
      ["web", "skip", 0],
    ]);
    expect(one.outcome).toEqual({
      ok: true,
      message: "land t1: 1 leg(s) move",
      lines: [
        "land  api: ariel/t1 → main  2 commits (merge)",
        "skip  web: ariel/t1 → main  0 commits (merge)",
      ],
      exit: 0,
    });
    expect((await act.landPlan(ws, "t2")).outcome).toEqual({
      ok: true,
      message: "land t2: 1 leg(s) move",
      lines: ["land  web: ariel/t2 → main  1 commit (merge)"],
      exit: 0,
    });
    expect([main("api"), main("web")]).toEqual(before);
  });
});

describe("Actions.land", () => {
  // Every leg or none: a refusal names the refused legs; a land says each leg's outcome.
  useWorld(["api", "web"]);

  it("a conflicting leg: the plan and the land are refused, naming only that leg; nothing moves", async () => {
    await conflicting();
    const before = [main("api"), main("web")];
    const plan = await act.landPlan(ws, "t1");
    expect(plan.plan.refused).toBe(true);
    expect(plan.outcome).toEqual(conflict());
    expect(await act.land(ws, "t1")).toEqual(conflict());
    expect([main("api"), main("web")]).toEqual(before);
  });

  it("land: each leg's outcome and new head, a merge commit; uncommitted paths said to stay", async () => {
    await task("t1", ["api", "web"]);
    const head = commit("t1", "api", "a.txt", "a\n");
    writeFile(join(leg("t1", "web"), "dirty.txt"), "x\n");
    const web = main("web");
    const out = await act.land(ws, "t1");
    const api = main("api");
    expect(out).toEqual({
      ok: true,
      message: "landed t1: api landed, web up-to-date",
      lines: [
        `api: landed → main ${api.slice(0, 12)}`,
        `web: up-to-date → main ${web.slice(0, 12)}`,
        "web: 1 uncommitted path(s) in the leg were not landed",
      ],
      exit: 0,
    });
    expect(git(join(root, "api"), "rev-list", "--parents", "-n1", "main").split(" ").slice(2)).toEqual([
      head,
    ]);
    expect(main("web")).toBe(web);
  });
});

describe("Actions.remove, and a task that does not exist", () => {
  // remove refuses to lose work and names the next command; a pre-remove hook can keep the task.
  useWorld(["api", "web"]);

  it("land and remove of a task that does not exist: ERR_TASK_NOT_FOUND (66)", async () => {
    const message = `ERR_TASK_NOT_FOUND: no task "nope" in ${root}`;
    const want = {
      ok: false,
      message,
      lines: [message, "hint: run ariel-worktree list --all to see the tasks (closed ones too)"],
      exit: 66,
    };
    expect(await act.land(ws, "nope")).toEqual(want);
    expect(await act.remove(ws, "nope")).toEqual(want);
    await expect(act.diff(ws, "nope")).rejects.toMatchObject({ code: "ERR_TASK_NOT_FOUND" });
    await expect(act.landPlan(ws, "nope")).rejects.toMatchObject({ code: "ERR_TASK_NOT_FOUND" });
  });

  it("remove refused: every standing refusal of each refused leg, then the summary naming the next command", async () => {
    await task("t1", ["api", "web"]);
    writeFile(join(leg("t1", "web"), "dirty.txt"), "x\n");
    writeFile(join(leg("t1", "web"), ".env"), "SECRET=changed\n");
    const summary = `refused, nothing changed: web (dirty); next: ariel-worktree remove -C ${root} --task t1 --snapshot`;
    expect(await act.remove(ws, "t1")).toEqual({
      ok: false,
      message: summary,
      lines: [
        `ERR_DIRTY: ${leg("t1", "web")} has uncommitted changes: dirty.txt`,
        `ERR_OVERLAY_CHANGED: overlay files changed in ${leg("t1", "web")}: .env`,
        summary,
      ],
      exit: 3,
    });
    expect([existsSync(leg("t1", "api")), existsSync(leg("t1", "web"))]).toEqual([true, true]);
  });

  it("remove: a pre-remove hook that fails keeps the task and names --no-hooks; one that passes removes every leg", async () => {
    await task("t1", ["api", "web"]);
    writeFile(join(root, "ariel.config.json"), '{"hooks":{"pre-remove":"exit 3"}}\n');
    expect(await act.remove(ws, "t1")).toEqual({
      ok: false,
      message: `kept t1: the pre-remove hook of api failed; log: ${join(root, ".ariel/hooks/t1.log")}`,
      lines: ["to remove without hooks: ariel-worktree remove --task t1 --no-hooks"],
      exit: 3,
    });
    expect([existsSync(leg("t1", "api")), existsSync(leg("t1", "web"))]).toEqual([true, true]);
    writeFile(join(root, "ariel.config.json"), '{"hooks":{"pre-remove":"exit 0"}}\n');
    expect(await act.remove(ws, "t1")).toEqual({ ok: true, message: "removed t1: api, web", exit: 0 });
    expect([existsSync(leg("t1", "api")), existsSync(leg("t1", "web"))]).toEqual([false, false]);
  });
});

/** The `n` form's request: a tty run of `true` in the workspace root, unless `over` says. */
const request = (over: Partial<NewRunRequest> = {}): NewRunRequest => ({
  source: "",
  task: "",
  name: "",
  agent: "",
  argv: ["true"],
  isolate: false,
  span: false,
  keep: false,
  sandbox: false,
  ...over,
});

/** Process groups of runs whose records a test removed (killed after it). */
const groups: number[] = [];

/**
 * Live runs for each test of the describe that calls this: a fresh workspace whose monitor is
 * ariel-spawn's bundle (run by this process as `process.argv[1]`); after each test every run's
 * process group and the monitor are killed.
 */
function useMonitor(): void {
  beforeEach(() => world(["api", "web", "docs"]));
  afterEach(dispose);
  useLiveRuns(
    () => [root],
    () => groups.splice(0),
  );
}

const stdout = (id: string) => {
  try {
    return readFileSync(join(runsDir(), id, "stdout"), "utf8");
  } catch {
    return "";
  }
};
const ended = (id: string) => until(async () => (await view(id)).state !== "running", `${id} to end`);

/** Start `req`; the ids of the runs it started. */
async function started(req: NewRunRequest, message: string): Promise<string[]> {
  const before = runIds();
  expect(await act.start(ws, req)).toEqual({ ok: true, message, exit: 0 });
  return runIds().filter((id) => !before.includes(id));
}

describe("Actions on live runs: send, kill", () => {
  // Runs started through a real monitor: what start records, what send and kill do to them.
  useMonitor();

  it("start: a tty run as ariel-spawn --detach records it; send types a line into it; kill ends it", async () => {
    const [id] = await started(
      request({ source: "api", name: "sleeper", argv: ["sleep", "60"] }),
      "started sleeper",
    );
    expect(record(id!)).toMatchObject({
      name: "sleeper",
      source: "api",
      cwd: join(root, "api"),
      argv: ["sleep", "60"],
      task: null,
      isolate: null,
      restart: { policy: "no", max: 0, count: 0 },
      timeoutMs: null,
      graceMs: 10_000,
      onExit: null,
      interactive: false,
      tty: { cols: 80, rows: 24 },
      agent: "generic",
    });
    const run = await view(id!);
    expect(await act.send(run, 'say "hi"')).toEqual({
      ok: true,
      message: 'sent "say \\"hi\\"" to sleeper',
      exit: 0,
    });
    await until(() => stdout(id!).includes('say "hi"\r\n'), "the line echoed with its Enter");
    expect(await act.kill(run)).toEqual({ ok: true, message: "killed sleeper (killed)", exit: 0 });
    expect((await view(id!)).state).toBe("killed");
    expect(record(id!).kill).toMatchObject({ signal: "SIGTERM", reason: "kill" });
  });

  it("kill of a run whose record goes while it is killed: (removed)", async () => {
    const argv = ["sh", "-c", 'trap "" TERM; echo ready; sleep 60'];
    const [id] = await started(request({ source: "api", name: "stubborn", argv }), "started stubborn");
    await until(() => stdout(id!).includes("ready"), "the run to ignore SIGTERM");
    groups.push((record(id!).child as { pgid: number }).pgid);
    const killing = act.kill(await view(id!));
    await until(() => record(id!).kill !== null, "the kill recorded");
    rmSync(join(runsDir(), id!), { recursive: true, force: true });
    expect(await killing).toEqual({ ok: true, message: "killed stubborn (removed)", exit: 0 });
  });
});

describe("Actions.respawn", () => {
  // A new run under a new id; with --resume, the agent's resume form; a start that fails, its status.
  useMonitor();

  it("respawn: a new run under a new id; --resume with the agent's resume form", async () => {
    const [id] = await started(request({ source: "docs", name: "c1", agent: "claude" }), "started c1");
    expect(record(id!).agent).toBe("claude");
    await ended(id!);
    const old = await view(id!);
    const again = await act.respawn(old, false);
    const [second] = runIds().filter((x) => x !== id);
    expect(again).toEqual({ ok: true, message: `respawned c1 as ${second}`, exit: 0 });
    expect(record(second!)).toMatchObject({ respawnOf: id, argv: ["true"] });
    await ended(second!);
    const resumed = await act.respawn(old, true);
    const [third] = runIds().filter((x) => x !== id && x !== second);
    expect(resumed).toEqual({ ok: true, message: `respawned c1 as ${third} (--resume)`, exit: 0 });
    expect(record(third!)).toMatchObject({ respawnOf: id, argv: ["true", "--continue"] });
  });

  it("a command that cannot start: ERR_SPAWN with its status; so is its respawn", async () => {
    const before = runIds();
    const message = "ERR_SPAWN: the run did not start: command not found: /nonexistent/cmd (status 127)";
    expect(await act.start(ws, request({ source: "api", name: "nx", argv: ["/nonexistent/cmd"] }))).toEqual({
      ok: false,
      message,
      lines: [message, "hint: the command could not be started"],
      exit: 127,
    });
    const [id] = runIds().filter((x) => !before.includes(x));
    const out = await act.respawn(await view(id!), false);
    const [second] = runIds().filter((x) => !before.includes(x) && x !== id);
    expect(out).toEqual({ ok: false, message: `respawned nx as ${second}`, exit: 127 });
  });
});

describe("Actions.start refused", () => {
  // Refusals as ariel-spawn --detach makes them: nothing is started.
  useMonitor();

  it.each([
    [
      "a task id that is none (checked even without isolate)",
      { task: "Bad Task" },
      'ERR_INVALID_TASK_ID: invalid task id "Bad Task": must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
      'hint: task ids match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, hold no "..", and do not end in "." or ".lock"',
      65,
    ],
    [
      "a name that is none",
      { name: "bad name!" },
      'ERR_INVALID_NAME: invalid run name "bad name!"',
      "hint: use letters, digits, '.', '_' and '-' only",
      65,
    ],
    [
      "a source the workspace has not",
      { source: "nosuch" },
      'ERR_SOURCE_NOT_FOUND: no source "nosuch" in workspace ROOT (--source nosuch)',
      "hint: run ariel-discover to list the workspace's sources",
      66,
    ],
    [
      "a sandbox in the workspace root (no checkout)",
      { sandbox: true },
      "ERR_NOT_A_CHECKOUT: the workspace root ROOT is not a git checkout: a sandboxed run works in a checkout or a task's worktrees",
      "hint: name a source with --source, or pass --isolate (docs/sandbox.md)",
      66,
    ],
  ])("start refused, nothing started: %s", async (_name, over, message, hint, exit) => {
    const m = message.replace("ROOT", root);
    expect(await act.start(ws, request(over))).toEqual({ ok: false, message: m, lines: [m, hint], exit });
    expect(runIds()).toEqual([]);
  });
});

describe("Actions.start: where runs start", () => {
  // A checkout in use, two sources, a task's worktrees (isolate, span), a sandbox.
  useMonitor();

  it("start in a checkout a live run works in: ERR_CHECKOUT_IN_USE; two sources: a run each, named by id", async () => {
    await started(request({ source: "api", name: "sleeper", argv: ["sleep", "60"] }), "started sleeper");
    const busy = `ERR_CHECKOUT_IN_USE: the checkout of "api" is in use by detached run sleeper (${runIds()[0]}, running); nothing was started`;
    expect(await act.start(ws, request({ source: "web, api" }))).toEqual({
      ok: false,
      message: busy,
      lines: [
        busy,
        "hint: add --isolate for a worktree of its own, wait for it (ariel-runs wait sleeper), or pass --shared to work there too",
      ],
      exit: 75,
    });
    const before = runIds();
    const out = await act.start(ws, request({ source: "web docs" }));
    const ids = runIds().filter((x) => !before.includes(x));
    expect(ids.map((id) => record(id).source).sort()).toEqual(["docs", "web"]);
    const byWeb = ids.sort((a, b) => (record(a).source === "web" ? -1 : record(b).source === "web" ? 1 : 0));
    expect(out).toEqual({ ok: true, message: `started ${byWeb.join(", ")}`, exit: 0 });
  });

  it("isolate: the task named (kept at the end), or one made (removed at the end); span: one run over the legs", async () => {
    const [kept] = await started(
      request({ source: "api", isolate: true, task: "t9", keep: true, name: "k" }),
      "started k",
    );
    expect(record(kept!)).toMatchObject({ task: "t9", isolate: { onExit: "keep" } });
    const [made] = await started(request({ source: "web", isolate: true, name: "m" }), "started m");
    expect(record(made!)).toMatchObject({ isolate: { onExit: "remove" } });
    expect(record(made!).task).toMatch(/^web-[a-z0-9]{6}$/);
    const spanned = await started(
      request({ source: "api web", isolate: true, span: true, name: "sp" }),
      "started sp",
    );
    expect(spanned).toHaveLength(1);
    const legs = record(spanned[0]!).legs as { source: string }[];
    expect(legs.map((l) => l.source)).toEqual(["api", "web"]);
  });

  it("sandbox: the agent named in the form gets its state writable", async () => {
    // A home of its own where the agent's state exists (only existing places are made writable).
    // (Not under the state home: the sandbox never makes ariel's own state writable.)
    const home = tempDir("ariel-tui-actions-home-");
    onTestFinished(() => removeDir(home));
    mkdirSync(join(home, ".claude"));
    act = new Actions({ ...env, HOME: home });
    const [plain] = await started(request({ source: "api", sandbox: true, name: "p" }), "started p");
    const [claude] = await started(
      request({ source: "web", sandbox: true, agent: "claude", name: "c" }),
      "started c",
    );
    const writes = (id: string) => (record(id).sandbox as { write: string[] }).write;
    expect(writes(plain!)).not.toContain(join(home, ".claude"));
    expect(writes(claude!)).toContain(join(home, ".claude"));
    expect(writes(claude!)[0]).toBe(join(root, "web"));
  });
});
