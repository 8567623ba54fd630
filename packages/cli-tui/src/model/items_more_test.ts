/**
 * More of items.ts: the keys, a task's group from the runs that work in it, and the order of
 * the rows (whole rows) when clusters tie, when runs share a spawn call, when ended runs sort by
 * their end, and when a run is under a task or beside it; what the filter searches.
 */
import type { FleetRun } from "@ariel/core";
import { describe, expect, it } from "vitest";
import { fleetRun } from "./_fixture.ts";
import {
  buildRows,
  type Group,
  type Item,
  matches,
  type Row,
  type RunItem,
  runKey,
  type TaskItem,
  taskGroup,
  taskKey,
} from "./items.ts";

const WS = { root: "/w", hash: "h" };
const at = (m: number) => `2026-12-04T00:${String(m).padStart(2, "0")}:00.000Z`;

function run(id: string, over: Partial<FleetRun> = {}): FleetRun {
  return fleetRun({
    runId: `20261204T000000Z-${id}`,
    workspace: WS,
    name: id,
    sources: ["a"],
    argv: ["sleep", "1"],
    startedAt: at(0),
    ...over,
  });
}

const item = (r: FleetRun): RunItem => ({
  kind: "run",
  key: runKey(r),
  run: r,
  attention: null,
  tool: null,
  fresh: false,
});

function task(taskId: string, createdAt = at(0)): TaskItem {
  return {
    kind: "task",
    key: taskKey("h", taskId),
    workspace: WS,
    taskId,
    state: "active",
    legs: [{ source: "a", branch: `ariel/${taskId}`, state: "active" }],
    createdAt,
  };
}

const header = (group: Group, count: number): Row => ({ kind: "header", group, count });
const row = (i: Item, depth: 0 | 1 = 0): Row => ({ kind: "item", item: i, depth });
const noneWaits: Row[] = [header("needs", 0), { kind: "empty", text: "Nothing is waiting for you." }];

describe("keys", () => {
  // Pinned: the exact key strings.
  it("a run's key and a task's key", () => {
    expect(runKey({ workspace: WS, runId: "r1" })).toBe("run:h/r1");
    expect(taskKey("h2", "login")).toBe("task:h2/login");
  });
});

describe("taskGroup: any waiting live run makes it need you", () => {
  // Pinned: the group for runs that disagree.
  it.each<[string, FleetRun[], Group]>([
    [
      "a waiting run and a busy one",
      [run("w", { activity: "waiting" }), run("b", { activity: "busy" })],
      "needs",
    ],
    [
      "a busy run and a waiting one",
      [run("b", { activity: "busy" }), run("w", { activity: "waiting" })],
      "needs",
    ],
    [
      "an ended run that was waiting, and a live one",
      [run("e", { state: "exited", activity: "waiting" }), run("b")],
      "running",
    ],
    ["a starting run", [run("s", { state: "starting" })], "running"],
  ])("%s: %s", (_n, runs, want) => expect(taskGroup(runs)).toBe(want));
});

describe("buildRows: a task and the runs that work in it", () => {
  // Pinned: whole rows; a task's group comes from its own runs only, its runs under it.
  it("a task with a live run is running, its run under it", () => {
    const t = task("t");
    const r = item(run("in-t", { task: "t", startedAt: at(3) }));
    expect(buildRows([r], [t], "")).toEqual([...noneWaits, header("running", 2), row(t), row(r, 1)]);
  });

  it("two live runs of one task: the task once, both runs under it, newest first", () => {
    const t = task("t", at(1));
    const r1 = item(run("r1", { task: "t", startedAt: at(2) }));
    const r2 = item(run("r2", { task: "t", startedAt: at(5) }));
    expect(buildRows([r1, r2], [t], "")).toEqual([
      ...noneWaits,
      header("running", 3),
      row(t),
      row(r2, 1),
      row(r1, 1),
    ]);
  });

  it("a run outside the task is beside it, not under it", () => {
    const t = task("t", at(9));
    const loose = item(run("loose", { state: "failed", status: 1, endedAt: at(1) }));
    const r = item(run("in-t", { task: "t", activity: "waiting", startedAt: at(2) }));
    expect(buildRows([loose, r], [t], "")).toEqual([header("needs", 3), row(t), row(r, 1), row(loose)]);
  });

  it("a task named null is not given the runs without a task", () => {
    const t = task("null");
    const loose = item(run("loose", { startedAt: at(1) }));
    expect(buildRows([loose], [t], "")).toEqual([
      header("needs", 1),
      row(t),
      header("running", 1),
      row(loose),
    ]);
  });
});

describe("buildRows: order", () => {
  // Pinned: whole rows in order; clusters by their newest item, then by name; ties by key.
  it("a spawn call's runs stay together where its newest is", () => {
    const g1 = item(run("g1", { group: "G", startedAt: at(1) }));
    const x = item(run("x", { startedAt: at(2) }));
    const g2 = item(run("g2", { group: "G", startedAt: at(3) }));
    expect(buildRows([g1, x, g2], [], "")).toEqual([
      ...noneWaits,
      header("running", 3),
      row(g2),
      row(g1),
      row(x),
    ]);
  });

  it("clusters whose newest tie go by their name, each kept together", () => {
    const b1 = item(run("b1", { group: "B", startedAt: at(5) }));
    const a1 = item(run("a1", { group: "A", startedAt: at(5) }));
    const a2 = item(run("a2", { group: "A", startedAt: at(1) }));
    const b2 = item(run("b2", { group: "B", startedAt: at(3) }));
    const want = [...noneWaits, header("running", 4), row(a1), row(a2), row(b1), row(b2)];
    expect(buildRows([b1, a1, a2, b2], [], "")).toEqual(want);
    expect(buildRows([a1, a2, b1, b2], [], "")).toEqual(want);
    expect(buildRows([b2, b1, a2, a1], [], "")).toEqual(want);
  });

  it("two clusters tied on time, the later named one first in the input", () => {
    const z = item(run("0", { group: "Z", startedAt: at(4) }));
    const a = item(run("9", { group: "A", startedAt: at(4) }));
    const want = [...noneWaits, header("running", 2), row(a), row(z)];
    expect(buildRows([a, z], [], "")).toEqual(want);
    expect(buildRows([z, a], [], "")).toEqual(want);
  });

  it("runs of one call started at the same time go by key, whatever the input order", () => {
    const r1 = item(run("r1", { group: "G", startedAt: at(2) }));
    const r2 = item(run("r2", { group: "G", startedAt: at(2) }));
    const want = [...noneWaits, header("running", 2), row(r1), row(r2)];
    expect(buildRows([r1, r2], [], "")).toEqual(want);
    expect(buildRows([r2, r1], [], "")).toEqual(want);
  });

  it("ended runs by when they ended; one without an end by its start", () => {
    const ran = (id: string, startedAt: string, endedAt: string | null) =>
      item(run(id, { state: endedAt ? "exited" : "killed", status: 0, startedAt, endedAt }));
    const long = ran("long", at(0), at(9));
    const short = ran("short", at(5), at(6));
    const noEnd = ran("no-end", at(7), null);
    expect(buildRows([short, noEnd, long], [], "")).toEqual([
      ...noneWaits,
      header("ended", 3),
      row(long),
      row(noEnd),
      row(short),
    ]);
  });
});

describe("matches: what the filter searches", () => {
  // Pinned: true or false for each field on its own, and for fields a run lacks.
  const named = item(
    run("zeta", { name: "zeta-fix", argv: ["npm", "run", "lint"], task: "login", activity: "idle" }),
  );
  const bare = item(run("aaaaaa", { name: null, task: null, argv: ["sleep", "1"] }));
  it.each<[string, Item, string, boolean]>([
    ["by name alone", named, "ZETA-F", true],
    ["by the command with its spaces", named, "run lint", true],
    ["by task", named, "logi", true],
    ["by activity", named, "idle", true],
    ["by run id", bare, "t000000z-aa", true],
    ["a letter no field of a bare run holds", bare, "w", false],
    ["another", bare, "h", false],
    ["not across two words of the command", named, "npmrun", false],
    ["an empty filter matches", bare, "", true],
  ])("%s: %s %j", (_n, i, filter, want) => expect(matches(i, filter)).toBe(want));
});
