import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { workspaceHash } from "../../hash.ts";
import type { Ports } from "../../ports.ts";
import { runPaths } from "../../runs/paths.ts";
import { taskRecordPath } from "../../state_paths.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { selfIdentity } from "../proc.ts";
import { faultyPorts, makeRoot } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { gatherFleet, gatherWorkspace, workspaceSources, workspaceTasks } from "./gather.ts";
import type { KnownWorkspace } from "./workspaces.ts";

const dirs: string[] = [];
let state: string;
let ports: Ports;

beforeEach(() => {
  state = tempDir("ariel-fleet-gather-state-");
  dirs.push(state);
  const p = faultyPorts();
  ports = { ...p, env: { ...p.env, ARIEL_STATE_HOME: state } };
});
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function root(sources: readonly string[] = ["api", "web"]): string {
  const r = makeRoot(sources);
  dirs.push(r);
  return r;
}

async function known(r: string, more: Partial<KnownWorkspace> = {}): Promise<KnownWorkspace> {
  return { root: r, hash: await workspaceHash(r), origin: "registry", exists: true, ...more };
}

/** Task `id`'s record rewritten with these fields (as another ariel process would leave it). */
function rewriteTask(r: string, id: string, from: string, fields: Record<string, unknown>): void {
  const rec = JSON.parse(readFileSync(taskRecordPath(r, from), "utf8")) as Record<string, unknown>;
  writeFileSync(taskRecordPath(r, id), `${JSON.stringify({ ...rec, taskId: id, ...fields })}\n`);
}

const TS = "2026-12-02T11:09:44.120Z";
const RUN_A = "20261202T110943Z-aaaaaa";
const RUN_B = "20261202T110944Z-bbbbbb";
const ev = (runId: string, event: string, f: Record<string, unknown> = {}) =>
  `${JSON.stringify({ v: 1, type: "event", event, runId, ts: TS, source: "api", ...f })}\n`;

describe("workspaceSources", () => {
  it("the root's direct children that are repositories", async () => {
    const r = root(["api", "web", "docs"]);
    mkdirSync(join(r, "plain"));
    expect((await workspaceSources(r)).map((s) => s.name).sort()).toEqual(["api", "docs", "web"]);
  });
});

describe("workspaceTasks", () => {
  it("no tasks directory: none, no problem", async () => {
    const r = root();
    expect(await workspaceTasks(await known(r))).toEqual({ tasks: [], problems: 0 });
  });

  it("every readable task record by id (bytewise), the unreadable ones counted; other files ignored", async () => {
    const r = root();
    const ws = await known(r);
    await addTask(ports, { root: r, taskId: "m2", sources: ["api"] });
    // more records than the directory could list in order by chance
    const states: Record<string, string> = { m2: "active" };
    for (const [i, id] of ["z9", "a0", "T0", "q1", "b7", "x3", "c5", "n4", "e8"].entries()) {
      const state = ["cleaning", "closed", "unknown"][i % 3] as string;
      rewriteTask(r, id, "m2", { state });
      states[id] = state;
    }
    // corrupt, and another task's record under this name
    writeFileSync(taskRecordPath(r, "broken"), "{ torn");
    rewriteTask(r, "foreign", "m2", { taskId: "someone-else" });
    // not task records: a hidden file, a non-JSON file; a link that leads nowhere cannot be read
    writeFileSync(join(r, ".ariel/tasks/.t9.json"), "{}");
    writeFileSync(join(r, ".ariel/tasks/notes.txt"), "hi");
    symlinkSync(join(r, "nowhere.json"), join(r, ".ariel/tasks/ghost.json"));
    const got = await workspaceTasks(ws);
    expect(got.problems).toBe(3);
    const ids = Object.keys(states).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(ids[0]).toBe("T0");
    expect(got.tasks.map((t) => [t.taskId, t.state])).toEqual(ids.map((id) => [id, states[id]]));
  });
});

describe("gatherWorkspace", () => {
  it("a gone root: only that", async () => {
    const r = join(tempDir("ariel-fleet-gather-gone-"), "gone");
    dirs.push(r.slice(0, r.lastIndexOf("/")));
    const ws = await known(r, { exists: false, origin: "flag" });
    expect(await gatherWorkspace(ws)).toEqual({
      facts: { root: r, hash: ws.hash, origin: "flag", exists: false },
      runs: [],
    });
  });

  it("a root that cannot be read: exists, not readable, nothing more", async () => {
    const parent = tempDir("ariel-fleet-gather-file-");
    dirs.push(parent);
    const r = join(parent, "a-file");
    writeFileSync(r, "");
    const ws = await known(r);
    expect(await gatherWorkspace(ws)).toEqual({
      facts: { root: r, hash: ws.hash, origin: "registry", exists: true, readable: false },
      runs: [],
    });
  });

  it("a workspace: its sources, task states, runs and their views, problems and skipped lines", async () => {
    const r = root(["api", "web"]);
    const ws = await known(r);
    await addTask(ports, { root: r, taskId: "t1", sources: ["api"] });
    writeFileSync(taskRecordPath(r, "broken"), "{ torn");
    mkdirSync(join(r, ".ariel/runs"), { recursive: true });
    writeFileSync(
      runPaths(r, RUN_A).history,
      `${ev(RUN_A, "run.started", { pid: selfIdentity().pid })}junk\n${ev(RUN_A, "run.finished", { summary: { exit: 0 } })}`,
    );
    writeFileSync(
      runPaths(r, RUN_B).history,
      `x\ny\n${ev(RUN_B, "run.started", { pid: selfIdentity().pid })}`,
    );
    const g = await gatherWorkspace(ws);
    expect(g.runs.map((x) => [x.view.runId, x.view.state])).toEqual([
      [RUN_A, "exited"],
      [RUN_B, "starting"],
    ]);
    expect(g.facts).toEqual({
      root: r,
      hash: ws.hash,
      origin: "registry",
      exists: true,
      readable: true,
      sources: 2,
      taskStates: ["active"],
      runs: g.runs.map((x) => x.view),
      problems: 1,
      skipped: 3,
    });
  });

  it("an empty workspace: readable, nothing in it", async () => {
    const r = tempDir("ariel-fleet-gather-empty-");
    dirs.push(r);
    const ws = await known(r, { origin: "flag" });
    expect(await gatherWorkspace(ws)).toEqual({
      facts: {
        root: r,
        hash: ws.hash,
        origin: "flag",
        exists: true,
        readable: true,
        sources: 0,
        taskStates: [],
        runs: [],
        problems: 0,
        skipped: 0,
      },
      runs: [],
    });
  });
});

describe("gatherFleet", () => {
  it("the snapshot of these workspaces on this host, at the time given, counted by state", async () => {
    const r = root(["api"]);
    const ws = await known(r);
    await addTask(ports, { root: r, taskId: "t1", sources: ["api"] });
    mkdirSync(join(r, ".ariel/runs"), { recursive: true });
    writeFileSync(
      runPaths(r, RUN_A).history,
      `${ev(RUN_A, "run.started", { pid: selfIdentity().pid })}${ev(RUN_A, "process.started")}`,
    );
    const goneRoot = join(r, "gone-away");
    const gone = await known(goneRoot, { exists: false, origin: "flag" });
    const now = Date.parse("2026-12-02T12:00:00.000Z");
    const snap = await gatherFleet([ws, gone], now);
    expect(snap).toMatchObject({
      v: 1,
      type: "fleet",
      host: selfIdentity().host,
      generatedAt: "2026-12-02T12:00:00.000Z",
    });
    expect(snap.workspaces.map((w) => [w.root, w.origin, w.health, w.sources])).toEqual([
      [r, "registry", expect.any(String), 1],
      [goneRoot, "flag", "gone", 0],
    ]);
    expect(snap.workspaces[0]?.tasks.active).toBe(1);
    expect(snap.workspaces[0]?.runs.running).toBe(1);
    expect(snap.workspaces[0]?.health).not.toBe("gone");
    expect(await gatherFleet([], now)).toMatchObject({ workspaces: [] });
  });
});
