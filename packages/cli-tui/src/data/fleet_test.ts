import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FleetRun, runPaths, workspaceHash } from "@ariel/core";
import {
  addTask,
  createRun,
  hostPorts,
  type KnownWorkspace,
  loadRun,
  registerWorkspace,
  removeTask,
  selfMonitorRef,
  writeExitOnce,
} from "@ariel/core/host";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GIT_TEST_ENV, removeDir, tempDir } from "../../../core/src/host/_fixture.ts";
import { runFields } from "../../../core/src/host/runs/_fixture.ts";
import { makeRoot } from "../../../core/src/host/worktree/_fixture.ts";
import type { RunItem } from "../model/items.ts";
import { exited } from "./_fixture.ts";
import { type FleetChange, FleetSource } from "./fleet.ts";

// The fleet source on real workspaces in temp dirs (a state home of their own for the registry):
// which workspaces, runs and tasks it lists after start, and what it reads again, and emits, when
// a watched directory changes, an event is appended, or the UI asks (touch, touchTasks,
// touchLive, resume). Runs are records written here (run.json, exit.json, histories): no process.

const A = "20261202T110943Z-aaaaaa";
const B = "20261202T110944Z-bbbbbb";
const C = "20261202T110945Z-cccccc";
const D = "20261202T110946Z-dddddd";
const ENDED_AT = "2026-12-02T11:10:00.000Z";

let dirs: string[];
let state: string;
let env: NodeJS.ProcessEnv;
let source: FleetSource | null;
let changes: FleetChange[];

beforeEach(() => {
  dirs = [];
  state = tempDir("ariel-tui-fleet-state-");
  env = { ...process.env, ...GIT_TEST_ENV, ARIEL_STATE_HOME: state, ARIEL_OWNER: "tester" };
  source = null;
  changes = [];
});
afterEach(() => {
  vi.useRealTimers();
  source?.close();
  for (const d of dirs) removeDir(d);
  removeDir(state);
});

/** A workspace of repositories `sources` (none: an empty directory), as the fleet knows it. */
async function workspace(sources: string[] = ["api"]): Promise<KnownWorkspace> {
  const root = sources.length > 0 ? makeRoot(sources) : tempDir("ariel-tui-fleet-ws-");
  dirs.push(root);
  return { root, hash: await workspaceHash(root), origin: "flag", exists: true };
}

/** Start a source over `only` (null: the registry's workspaces), recording its change events. */
async function started(only: KnownWorkspace | null, cwd = state): Promise<FleetSource> {
  const s = new FleetSource({ env, cwd, only });
  source = s;
  s.on("change", (c: FleetChange) => changes.push(c));
  await s.start();
  return s;
}

/** Wait until `check` holds, polling; an error naming `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Wait for the next change event; what it said. */
async function nextChange(what: string): Promise<FleetChange> {
  const n = changes.length;
  await until(() => changes.length > n, what);
  return changes[n]!;
}

/** Write a file into `dir` and wait until a watch of our own hears it: every earlier event of `dir` was delivered. */
async function fence(dir: string): Promise<void> {
  let heard = false;
  const name = `fence-${Math.random().toString(36).slice(2)}`;
  const control = watch(dir, (_e, file) => {
    if (String(file) === name) heard = true;
  });
  try {
    writeFileSync(join(dir, name), "");
    await until(() => heard, `the fence in ${dir}`);
  } finally {
    control.close();
    rmSync(join(dir, name), { force: true });
  }
}

/** A detached run's record (local, no process): lost, ended with `exit`, or live with `live`. */
async function detached(
  ws: KnownWorkspace,
  id: string,
  o: { exit?: boolean; live?: boolean; fields?: Record<string, unknown> } = {},
): Promise<void> {
  const more = { ...(o.live ? { monitor: selfMonitorRef() } : {}), ...o.fields };
  await createRun(ws.root, runFields(ws, id, more));
  if (o.exit) {
    await writeExitOnce(ws.root, exited(id));
  }
}

/** One history line of run `id`, dated now unless `ts` says. */
function historyLine(id: string, fields: Record<string, unknown>, ts = new Date().toISOString()): string {
  return `${JSON.stringify({ v: 1, type: "event", runId: id, ts, source: "api", ...fields })}\n`;
}

/** A foreground run whose ariel-spawn is this process (so it runs). */
function foreground(ws: KnownWorkspace, id: string): void {
  mkdirSync(join(ws.root, ".ariel/runs"), { recursive: true });
  const started = { event: "run.started", argv: ["make"], targets: ["api"], pid: process.pid };
  appendFileSync(runPaths(ws.root, id).history, historyLine(id, started, ENDED_AT));
}

/** Rewrite a run's run.json with `fields` (no event: only a re-read sees it). */
function rewrite(ws: KnownWorkspace, id: string, fields: Record<string, unknown>): void {
  const path = runPaths(ws.root, id).record;
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), ...fields }));
}

const view = async (ws: KnownWorkspace, id: string): Promise<FleetRun> => (await loadRun(ws, id))!.view;
const key = (ws: KnownWorkspace, id: string) => `run:${ws.hash}/${id}`;
const item = (run: FleetRun, over: Partial<RunItem> = {}): RunItem => ({
  kind: "run",
  key: `run:${run.workspace.hash}/${run.runId}`,
  run,
  attention: null,
  tool: null,
  fresh: false,
  ...over,
});
const names = (s: FleetSource) => [...s.runs.values()].map((r) => [r.run.runId, r.run.name]);

/** Append an event of run `id` to its history, dated now. */
const event = (ws: KnownWorkspace, id: string, fields: Record<string, unknown>) =>
  appendFileSync(runPaths(ws.root, id).history, historyLine(id, fields));

/** What a tty run's monitor writes: its activity, who said so and why, the agent's last tool. */
function attention(
  ws: KnownWorkspace,
  id: string,
  a: Record<string, unknown>,
  tool: string | null = null,
): void {
  const agent = {
    name: "claude",
    via: "hooks",
    turns: 1,
    tools: 1,
    toolCalls: {},
    lastTool: tool === null ? null : { name: tool, phase: "post", ok: true, ts: ENDED_AT },
    lastNotice: null,
  };
  writeFileSync(runPaths(ws.root, id).attention, JSON.stringify({ v: 1, since: ENDED_AT, ...a, agent }));
}

describe("FleetSource.start with -C", () => {
  // The one workspace: its runs (each as its view says) and its active tasks, nothing else.
  it("lists every run of the workspace with its view, and its active tasks only", async () => {
    const ws = await workspace(["api", "web"]);
    foreground(ws, A);
    await detached(ws, B, { exit: true });
    await detached(ws, C);
    const ports = hostPorts({ env, cwd: ws.root });
    const t1 = await addTask(ports, { root: ws.root, taskId: "t1", sources: ["api", "web"], noHooks: true });
    await addTask(ports, { root: ws.root, taskId: "t2", sources: ["api"], noHooks: true });
    await removeTask(ports, { root: ws.root, taskId: "t2", allow: [], snapshot: false, dryRun: false });
    const s = await started(ws);
    expect(s.workspaces).toEqual([ws]);
    expect(s.runs).toEqual(
      new Map([
        [key(ws, A), item(await view(ws, A))],
        [key(ws, B), item(await view(ws, B))],
        [key(ws, C), item(await view(ws, C))],
      ]),
    );
    expect([...s.runs.values()].map((r) => [r.run.kind, r.run.state])).toEqual([
      ["foreground", "starting"],
      ["detached", "exited"],
      ["detached", "lost"],
    ]);
    expect(s.tasks).toEqual(
      new Map([
        [
          `task:${ws.hash}/t1`,
          {
            kind: "task",
            key: `task:${ws.hash}/t1`,
            workspace: { root: ws.root, hash: ws.hash },
            taskId: "t1",
            state: "active",
            legs: [
              { source: "api", branch: "ariel/t1", state: "active" },
              { source: "web", branch: "ariel/t1", state: "active" },
            ],
            createdAt: t1.record.createdAt,
          },
        ],
      ]),
    );
    expect(changes).toEqual([]);
  });

  it("a workspace whose root is gone: nothing", async () => {
    const ws = await workspace([]);
    foreground(ws, A);
    const s = await started({ ...ws, exists: false });
    expect([s.workspaces, s.runs.size, s.tasks.size]).toEqual([[], 0, 0]);
  });
});

describe("FleetSource.start without -C", () => {
  // The registry's workspaces that still exist, each with its runs; a new entry is read as it comes.
  it("every registered workspace that exists; one registered later is listed with its runs", async () => {
    const [one, two, gone, later] = await Promise.all([
      workspace([]),
      workspace([]),
      workspace([]),
      workspace([]),
    ]);
    for (const ws of [one, two, gone]) await registerWorkspace(hostPorts({ env, cwd: ws.root }), ws);
    removeDir(gone.root);
    foreground(one, A);
    foreground(two, B);
    const s = await started(null);
    const byRoot = [one, two]
      .sort((a, b) => (a.root < b.root ? -1 : 1))
      .map((w) => ({ ...w, origin: "registry" }));
    expect(s.workspaces).toEqual(byRoot);
    expect([...s.runs.keys()].sort()).toEqual([key(one, A), key(two, B)].sort());
    foreground(later, C);
    await registerWorkspace(hostPorts({ env, cwd: later.root }), later);
    await until(() => s.runs.has(key(later, C)), "the new workspace's run");
    expect(s.workspaces.map((w) => w.root).sort()).toEqual([one.root, two.root, later.root].sort());
    expect(s.runs.get(key(later, C))).toEqual(item(await view(later, C)));
  });
});

describe("FleetSource: what a watched directory's change reads again", () => {
  // Runs appear, go and change as their files do; tasks too; each refresh is one change event.
  it("a run written, a history begun, a run directory removed", async () => {
    const ws = await workspace([]);
    await detached(ws, A, { exit: true });
    const s = await started(ws);
    await detached(ws, B, { exit: true });
    expect(await nextChange("the new run")).toEqual({ waiting: [] });
    await until(() => s.runs.has(key(ws, B)), "run B");
    expect(s.runs.get(key(ws, B))).toEqual(item(await view(ws, B)));
    foreground(ws, C);
    await until(() => s.runs.has(key(ws, C)), "the foreground run C");
    expect(s.runs.get(key(ws, C))).toEqual(item(await view(ws, C)));
    rmSync(runPaths(ws.root, A).dir, { recursive: true });
    await until(() => !s.runs.has(key(ws, A)), "run A gone");
    expect([...s.runs.keys()]).toEqual([key(ws, B), key(ws, C)]);
  });

  it("the state directory made after the start, runs in it: every one is read", async () => {
    const ws = await workspace([]);
    const s = await started(ws);
    expect(s.runs.size).toBe(0);
    // Made elsewhere and moved in at once: the directory and its runs appear together.
    const elsewhere = tempDir("ariel-tui-fleet-made-");
    dirs.push(elsewhere);
    await createRun(elsewhere, runFields(ws, A));
    await createRun(elsewhere, runFields(ws, B));
    renameSync(join(elsewhere, ".ariel"), join(ws.root, ".ariel"));
    await until(() => s.runs.size === 2, "runs A and B");
    expect([...s.runs.values()]).toEqual([item(await view(ws, A)), item(await view(ws, B))]);
  });
});

describe("FleetSource: tasks and live runs' directories", () => {
  // A task made or removed is read again; a live run's own directory is watched while it lives.
  it("a task made, then removed", async () => {
    const ws = await workspace(["api"]);
    const ports = hostPorts({ env, cwd: ws.root });
    await addTask(ports, { root: ws.root, taskId: "t0", sources: ["api"], noHooks: true });
    const s = await started(ws);
    expect([...s.tasks.keys()]).toEqual([`task:${ws.hash}/t0`]);
    await addTask(ports, { root: ws.root, taskId: "t1", sources: ["api"], noHooks: true });
    await until(() => s.tasks.size === 2, "task t1");
    await removeTask(ports, { root: ws.root, taskId: "t0", allow: [], snapshot: false, dryRun: false });
    await until(() => s.tasks.size === 1, "task t0 gone");
    expect([...s.tasks.keys()]).toEqual([`task:${ws.hash}/t1`]);
  });

  it.each([
    ["starting", {}],
    ["running", { child: { pid: process.pid, pgid: process.pid, startTime: selfMonitorRef().startTime } }],
  ])(
    "a live run's own directory (%s): its attention as its monitor writes it, with the agent's last tool",
    async (runState, child) => {
      const ws = await workspace([]);
      await detached(ws, A, { live: true, fields: { tty: { cols: 80, rows: 24 }, ...child } });
      const s = await started(ws);
      expect(s.runs.get(key(ws, A))?.run.state).toBe(runState);
      expect(s.runs.get(key(ws, A))).toMatchObject({
        attention: { to: "busy", reason: "start", source: "screen" },
        tool: null,
      });
      attention(ws, A, { activity: "waiting", reason: "permission", by: "agent" }, "Bash");
      await until(() => s.runs.get(key(ws, A))?.tool === "Bash", "the re-read");
      expect(s.runs.get(key(ws, A))).toEqual(
        item(await view(ws, A), {
          attention: { to: "waiting", reason: "permission", source: "agent" },
          tool: "Bash",
        }),
      );
      // No reason, no author: the screen said so, for no reason given; the last tool is kept.
      attention(ws, A, { activity: "idle" });
      await until(() => s.runs.get(key(ws, A))?.attention?.to === "idle", "the next re-read");
      expect(s.runs.get(key(ws, A))).toMatchObject({
        attention: { to: "idle", reason: "", source: "screen" },
        tool: "Bash",
      });
    },
  );
});

describe("FleetSource: live runs' attention, and what is no run", () => {
  // A live run's attention as its view says; a stray file; an ended run's directory left alone.
  it("a stray file in the runs directory: read as no run, the list as it was", async () => {
    const ws = await workspace([]);
    await detached(ws, A, { exit: true });
    const s = await started(ws);
    writeFileSync(join(ws.root, ".ariel/runs", "notes.txt"), "x");
    expect(await nextChange("the stray file")).toEqual({ waiting: [] });
    expect([...s.runs.keys()]).toEqual([key(ws, A)]);
  });

  it("a live run that ends: its directory is no longer watched", async () => {
    const ws = await workspace([]);
    await detached(ws, A, { live: true });
    const s = await started(ws);
    await writeExitOnce(ws.root, exited(A));
    await until(() => s.runs.get(key(ws, A))?.run.state === "exited", "A ended");
    rewrite(ws, A, { name: "renamed" });
    await fence(runPaths(ws.root, A).dir);
    await s.refresh();
    expect(names(s)).toEqual([[A, "agent"]]);
  });

  it("a live piped run: its attention by timing (no source)", async () => {
    const ws = await workspace([]);
    await detached(ws, A, { live: true });
    const s = await started(ws);
    expect(s.runs.get(key(ws, A))?.attention).toEqual({ to: "idle", reason: "quiet" });
  });
});

describe("FleetSource: the fleet's events since the start", () => {
  // run.attention moves a run's attention (and rings for `waiting`); agent.tool names its last tool.
  it("into waiting (by the agent): the change names it, fresh; out of it (by timing, no reason): not fresh", async () => {
    const ws = await workspace([]);
    foreground(ws, A);
    foreground(ws, B);
    const s = await started(ws);
    event(ws, A, { event: "run.attention", to: "waiting", reason: "permission", by: "agent" });
    expect(await nextChange("A waits")).toEqual({ waiting: [key(ws, A)] });
    expect(s.runs.get(key(ws, A))).toEqual(
      item(await view(ws, A), {
        attention: { to: "waiting", reason: "permission", source: "agent" },
        fresh: true,
      }),
    );
    expect(s.runs.get(key(ws, B))?.attention).toBe(null);
    event(ws, A, { event: "run.attention", to: "busy", by: "timing" });
    expect(await nextChange("A works")).toEqual({ waiting: [] });
    expect(s.runs.get(key(ws, A))).toMatchObject({ attention: { to: "busy", reason: "" }, fresh: false });
    expect(Object.keys(s.runs.get(key(ws, A))!.attention!)).toEqual(["to", "reason"]);
  });

  it("by the screen: its source; agent.tool: the tool; a move without a state or a tool without a name: nothing", async () => {
    const ws = await workspace([]);
    foreground(ws, A);
    const s = await started(ws);
    event(ws, A, { event: "run.attention", to: "idle", reason: "quiet", by: "screen" });
    event(ws, A, { event: "agent.tool", name: "Edit" });
    expect(await nextChange("the moves")).toEqual({ waiting: [] });
    expect(s.runs.get(key(ws, A))).toMatchObject({
      attention: { to: "idle", reason: "quiet", source: "screen" },
    });
    await until(() => s.runs.get(key(ws, A))?.tool === "Edit", "the tool");
    event(ws, A, { event: "run.attention", to: 3, reason: "x" });
    event(ws, A, { event: "agent.tool", name: null });
    event(ws, A, { event: "run.attention", to: "waiting", reason: 7 });
    expect(await nextChange("more moves")).toEqual({ waiting: [key(ws, A)] });
    expect(s.runs.get(key(ws, A))).toMatchObject({
      attention: { to: "waiting", reason: "" },
      tool: "Edit",
      fresh: true,
    });
  });
});

describe("FleetSource: events that move no attention", () => {
  // A run's other events only have it read again; events from before the start are not applied.
  it("a run.state move is no attention; a run an event names is read again (even paused)", async () => {
    const ws = await workspace([]);
    foreground(ws, A);
    const s = await started(ws);
    s.pause();
    event(ws, A, { event: "run.state", from: "starting", to: "running" });
    event(ws, A, { event: "agent.turn", name: "no tool" });
    await s.refresh();
    expect(changes).toEqual([{ waiting: [] }]);
    expect(s.runs.get(key(ws, A))).toEqual(item(await view(ws, A)));
    expect(s.runs.get(key(ws, A))?.run).toMatchObject({ state: "running", lastSeq: 3 });
  });

  it("events from before the start: not applied", async () => {
    const ws = await workspace([]);
    foreground(ws, A);
    const old = { event: "run.attention", to: "waiting", reason: "permission", by: "agent" };
    appendFileSync(runPaths(ws.root, A).history, historyLine(A, old, "2020-01-01T00:00:00.000Z"));
    const s = await started(ws);
    await s.refresh();
    expect(changes).toEqual([{ waiting: [] }]);
    expect(s.runs.get(key(ws, A))).toEqual(item(await view(ws, A)));
  });
});

describe("FleetSource: events of a run not listed yet, or of another workspace", () => {
  // A run that begins and waits in one refresh still rings and is listed waiting, with its last
  // tool; another workspace's events are not ours.
  it("a run that begins, uses a tool and waits at once: the change names it; it is listed waiting, fresh, with the tool", async () => {
    const ws = await workspace([]);
    foreground(ws, A);
    const s = await started(ws);
    const now = new Date().toISOString();
    const started2 = historyLine(
      B,
      { event: "run.started", argv: ["x"], targets: ["api"], pid: process.pid },
      now,
    );
    const tool = historyLine(B, { event: "agent.tool", name: "Bash" }, now);
    const waits = historyLine(B, { event: "run.attention", to: "waiting", reason: "ask", by: "agent" }, now);
    appendFileSync(runPaths(ws.root, B).history, started2 + tool + waits);
    const change = await nextChange("B");
    expect(change).toEqual({ waiting: [key(ws, B)] });
    await until(() => s.runs.has(key(ws, B)), "B listed");
    expect(s.runs.get(key(ws, B))).toEqual(
      item(await view(ws, B), {
        attention: { to: "waiting", reason: "ask", source: "agent" },
        tool: "Bash",
        fresh: true,
      }),
    );
  });

  it("events of a workspace not shown: ignored", async () => {
    const ws = await workspace([]);
    const other = await workspace([]);
    foreground(ws, A);
    foreground(other, A);
    const s = await started(ws);
    appendFileSync(
      runPaths(other.root, A).history,
      historyLine(A, { event: "run.attention", to: "waiting" }),
    );
    event(ws, A, { event: "agent.tool", name: "Read" });
    await until(() => s.runs.get(key(ws, A))?.tool === "Read", "the tool");
    expect(changes.every((c) => c.waiting.length === 0)).toBe(true);
    expect([...s.runs.keys()]).toEqual([key(ws, A)]);
  });
});

describe("FleetSource: what the UI asks to read again", () => {
  // touch (one run, now), touchTasks (a task's runs), touchLive (the live runs), pause and resume.
  it("touch: the run is listed once it resolves; a workspace not shown: nothing", async () => {
    const ws = await workspace([]);
    const s = await started(ws);
    await detached(ws, A, { exit: true });
    await s.touch({ workspace: { root: ws.root, hash: ws.hash }, runId: A });
    expect(s.runs.get(key(ws, A))).toEqual(item(await view(ws, A)));
    const before = changes.length;
    await s.touch({ workspace: { root: "/nowhere", hash: "0000000000000000" }, runId: B });
    expect([changes.length - before, s.runs.has("run:0000000000000000/" + B)]).toEqual([0, false]);
  });

  it("touchTasks: the task's runs read again, not another task's nor a run of none", async () => {
    const ws = await workspace([]);
    await detached(ws, A, { exit: true, fields: { task: "t1" } });
    await detached(ws, B, { exit: true, fields: { task: "t2" } });
    await detached(ws, C, { exit: true });
    const s = await started(ws);
    for (const id of [A, B, C]) rewrite(ws, id, { name: `renamed-${id.slice(-1)}` });
    s.touchTasks(ws.hash, "t1");
    await nextChange("the task's runs");
    expect(names(s)).toEqual([
      [A, "renamed-a"],
      [B, "agent"],
      [C, "agent"],
    ]);
    s.touchTasks(ws.hash);
    await nextChange("the tasks");
    s.touchTasks("0000000000000000", "t2");
    await nextChange("nothing of a workspace not shown");
    expect(names(s)).toEqual([
      [A, "renamed-a"],
      [B, "agent"],
      [C, "agent"],
    ]);
  });
});

describe("FleetSource.touchLive", () => {
  // The minute tick reads the live runs again, and only those.
  it("touchLive while paused: the starting and running runs read again, the ended and lost ones not", async () => {
    const ws = await workspace([]);
    const me = selfMonitorRef();
    await detached(ws, A, { live: true });
    await detached(ws, B, {
      live: true,
      fields: { child: { pid: process.pid, pgid: process.pid, startTime: me.startTime } },
    });
    await detached(ws, C, { exit: true });
    await detached(ws, D);
    const s = await started(ws);
    expect([...s.runs.values()].map((r) => r.run.state)).toEqual(["starting", "running", "exited", "lost"]);
    s.pause();
    for (const id of [A, B, C, D]) rewrite(ws, id, { name: `renamed-${id.slice(-1)}` });
    s.touchLive();
    await nextChange("the live runs");
    expect(names(s)).toEqual([
      [A, "renamed-a"],
      [B, "renamed-b"],
      [C, "agent"],
      [D, "agent"],
    ]);
  });
});

describe("FleetSource: pause and resume", () => {
  // Paused (a run attached), nothing is watched; resumed, what changed meanwhile is read.
  it("paused, touchTasks: the workspace's tasks read again", async () => {
    const ws = await workspace(["api"]);
    const s = await started(ws);
    s.pause();
    await addTask(hostPorts({ env, cwd: ws.root }), {
      root: ws.root,
      taskId: "t1",
      sources: ["api"],
      noHooks: true,
    });
    s.touchTasks(ws.hash);
    await nextChange("the tasks");
    expect([...s.tasks.keys()]).toEqual([`task:${ws.hash}/t1`]);
  });

  it("paused: nothing watched; resumed: every workspace read again and watched", async () => {
    const ws = await workspace([]);
    await detached(ws, A, { exit: true });
    const s = await started(ws);
    s.pause();
    await detached(ws, B, { exit: true });
    rmSync(runPaths(ws.root, A).dir, { recursive: true });
    await fence(join(ws.root, ".ariel/runs"));
    await s.refresh();
    expect([...s.runs.keys()]).toEqual([key(ws, A)]);
    s.resume();
    await until(() => s.runs.has(key(ws, B)) && !s.runs.has(key(ws, A)), "B in, A out");
    expect([...s.runs.keys()]).toEqual([key(ws, B)]);
    await detached(ws, C, { exit: true });
    await until(() => s.runs.has(key(ws, C)), "C, watched again");
  });

  it("paused: a live run's directory and the tasks are not watched either", async () => {
    const ws = await workspace(["api"]);
    await detached(ws, A, { live: true, fields: { tty: { cols: 80, rows: 24 } } });
    const ports = hostPorts({ env, cwd: ws.root });
    await addTask(ports, { root: ws.root, taskId: "t0", sources: ["api"], noHooks: true });
    const s = await started(ws);
    s.pause();
    attention(ws, A, { activity: "waiting", reason: "permission", by: "agent" });
    await addTask(ports, { root: ws.root, taskId: "t1", sources: ["api"], noHooks: true });
    await fence(runPaths(ws.root, A).dir);
    await fence(join(ws.root, ".ariel/tasks"));
    await s.refresh();
    expect(s.runs.get(key(ws, A))?.attention).toEqual({ to: "busy", reason: "start", source: "screen" });
    expect([...s.tasks.keys()]).toEqual([`task:${ws.hash}/t0`]);
    s.resume();
    await until(() => s.tasks.size === 2, "t1, read on resume");
    await until(() => s.runs.get(key(ws, A))?.attention?.to === "waiting", "A's attention, read on resume");
  });
});

describe("FleetSource: the registry while paused, and a refresh asked for twice", () => {
  // Resumed, a workspace registered meanwhile is read; a refresh asked for while one runs is followed by another.
  it("paused without -C: a workspace registered meanwhile is read on resume", async () => {
    const [one, two] = await Promise.all([workspace([]), workspace([])]);
    await registerWorkspace(hostPorts({ env, cwd: one.root }), one);
    const s = await started(null);
    expect(s.workspaces.map((w) => w.root)).toEqual([one.root]);
    s.pause();
    await registerWorkspace(hostPorts({ env, cwd: two.root }), two);
    await fence(join(state, "workspaces"));
    await s.refresh();
    expect(s.workspaces.map((w) => w.root)).toEqual([one.root]);
    s.resume();
    await until(() => s.workspaces.length === 2, "the second workspace");
    // Watched again: one registered now is read as it comes.
    const three = await workspace([]);
    await registerWorkspace(hostPorts({ env, cwd: three.root }), three);
    await until(() => s.workspaces.length === 3, "the third workspace");
  });

  it("a refresh asked for while one runs: another follows it", async () => {
    const ws = await workspace([]);
    const s = await started(ws);
    await Promise.all([s.refresh(), s.refresh()]);
    expect(changes).toHaveLength(1);
    await until(() => changes.length === 2, "the refresh that follows");
  });
});

describe("FleetSource: timers", () => {
  // A refresh is one timer; pause drops it, and a closed source sets none (fake timers count them).
  it("touchLive sets one timer; pause clears it; closed, none is set", async () => {
    const ws = await workspace([]);
    await detached(ws, A, { live: true });
    const s = await started(ws);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    s.touchLive();
    s.touchLive();
    expect(vi.getTimerCount()).toBe(1);
    s.pause();
    expect(vi.getTimerCount()).toBe(0);
    s.touchLive();
    expect(vi.getTimerCount()).toBe(1);
    s.close();
    expect(vi.getTimerCount()).toBe(0);
    s.touchLive();
    s.touchTasks(ws.hash);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("closed with nothing pending: none is set after", async () => {
    const ws = await workspace([]);
    await detached(ws, A, { live: true });
    const s = await started(ws);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    s.close();
    s.touchLive();
    s.touchTasks(ws.hash);
    expect(vi.getTimerCount()).toBe(0);
  });
});
