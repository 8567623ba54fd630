import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { httpStatusOf, sseFrame } from "./http.ts";
import { fleetSnapshot, workspaceView } from "./snapshot.ts";

const H = "ae89cb2b620ea8fc";
const run = (state: "running" | "lost") => ({ state }) as never;

describe("workspaceView health", () => {
  it.each([
    ["gone", { exists: false }, "gone"],
    ["unreadable", { exists: true, readable: false }, "unreadable"],
    ["ok", { exists: true, sources: 2, runs: [run("running")] }, "ok"],
    ["a corrupt task record", { exists: true, problems: 1 }, "degraded"],
    ["a lost run", { exists: true, runs: [run("lost")] }, "degraded"],
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
});
