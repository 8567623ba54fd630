import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { httpStatusOf, sseFrame } from "./http.ts";
import { fleetSnapshot, workspaceView } from "./snapshot.ts";

const H = "ae89cb2b620ea8fc";
const run = (state: "running" | "lost" | "crashed") => ({ state }) as never;
const EMPTY = {
  v: 1,
  type: "workspace",
  root: "/w",
  hash: H,
  origin: "registry",
  health: "ok",
  sources: 0,
  tasks: { active: 0, cleaning: 0, closed: 0, unknown: 0 },
  runs: { starting: 0, running: 0, exited: 0, failed: 0, killed: 0, lost: 0, crashed: 0 },
  kept: 0,
  sandboxed: 0,
  problems: 0,
  skipped: 0,
};

describe("workspaceView health", () => {
  it.each([
    ["gone", { exists: false }, "gone"],
    ["unreadable", { exists: true, readable: false }, "unreadable"],
    ["ok", { exists: true, sources: 2, runs: [run("running")] }, "ok"],
    ["a corrupt task record", { exists: true, problems: 1 }, "degraded"],
    ["a lost run", { exists: true, runs: [run("lost")] }, "degraded"],
    ["a crashed run", { exists: true, runs: [run("crashed")] }, "degraded"],
    ["skipped history lines alone", { exists: true, skipped: 3 }, "ok"],
  ])("%s", (_n, facts, health) => {
    expect(workspaceView({ root: "/w", hash: H, origin: "registry", ...facts }).health).toBe(health);
  });

  it("counts tasks by state, unknown states as unknown", () => {
    const v = workspaceView({
      root: "/w",
      hash: H,
      origin: "flag",
      exists: true,
      taskStates: ["active", "closed", "weird"],
    });
    expect(v.tasks).toEqual({ active: 1, cleaning: 0, closed: 1, unknown: 1 });
  });

  it("is all zeros for a workspace with nothing in it", () => {
    expect(workspaceView({ root: "/w", hash: H, origin: "registry", exists: true })).toEqual(EMPTY);
  });

  it("counts kept worktrees and live sandboxed runs", () => {
    const kept = {
      task: "t",
      source: "api",
      reason: "dirty",
      next: "ariel-worktree remove --task t --source api",
    };
    const sandbox = { write: ["/w"], hide: [], net: "none" as const };
    const v = workspaceView({
      root: "/w",
      hash: H,
      origin: "registry",
      exists: true,
      sources: 2,
      skipped: 3,
      runs: [
        { state: "running", kept: null, sandbox },
        { state: "running", kept: null, sandbox },
        { state: "starting", kept: null },
        { state: "exited", kept, sandbox },
        { state: "failed", kept },
      ],
    });
    expect(v).toEqual({
      ...EMPTY,
      sources: 2,
      runs: { ...EMPTY.runs, starting: 1, running: 2, exited: 1, failed: 1 },
      kept: 2,
      sandboxed: 2,
      skipped: 3,
    });
  });
});

describe("fleetSnapshot", () => {
  it("sorts by root and keeps one entry per hash", () => {
    const s = fleetSnapshot("box", 0, [
      { root: "/b", hash: "bbbbbbbbbbbbbbbb", origin: "registry", exists: true },
      { root: "/a", hash: H, origin: "flag", exists: true },
      { root: "/a2", hash: H, origin: "registry", exists: true },
    ]);
    expect([s.host, s.generatedAt, s.workspaces.map((w) => w.root)]).toEqual([
      "box",
      "1970-01-01T00:00:00.000Z",
      ["/a", "/b"],
    ]);
  });
});

describe("http", () => {
  eachMaps(
    httpStatusOf,
    [
      [64, 400],
      [65, 400],
      [66, 404],
      [3, 409],
      [77, 403],
      [75, 503],
      [69, 503],
      [70, 500],
      [1, 500],
    ],
    "exit %i is HTTP %i",
  );

  it("frames SSE with one data line per line and no newline in the id", () => {
    expect(sseFrame({ id: "1\n2", event: "output", data: "a\nb" })).toBe(
      "id: 12\nevent: output\ndata: a\ndata: b\n\n",
    );
  });

  it("frames SSE with only the fields given", () => {
    expect(sseFrame({ data: "x" })).toBe("data: x\n\n");
    expect(sseFrame({ id: "7\r\0", event: "run\r\n.state", retry: 3000, data: "a\r\nb\rc" })).toBe(
      "id: 7\nevent: run.state\nretry: 3000\ndata: a\ndata: b\ndata: c\n\n",
    );
  });
});
