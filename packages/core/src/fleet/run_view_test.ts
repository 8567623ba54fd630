import { describe, expect, it } from "vitest";
import { type FleetEvent, normalizeEvent } from "./events.ts";
import { countRuns, foregroundRun } from "./run_view.ts";

const W = "ae89cb2b620ea8fc";
const WS = { root: "/w", hash: W };
const R = "20261202T110943Z-k3x9a2";
function events(...list: [string, Record<string, unknown>?][]): FleetEvent[] {
  return list.map(([event, f], i) => {
    const ts = new Date(Date.UTC(2026, 11, 2, 11, 0, i)).toISOString();
    const e = normalizeEvent(
      { v: 1, type: "event", event, runId: R, ts, source: "api", ...f },
      { workspace: W, runId: R, seq: i + 1 },
    );
    if (!e) throw new Error(`not an event: ${event}`);
    return e;
  });
}

const started = ["run.started", { argv: ["make", "test"], targets: ["api"] }] as [
  string,
  Record<string, unknown>,
];

describe("foregroundRun", () => {
  it.each([
    ["only started, owner alive", [started], true, "starting", null],
    ["process started", [started, ["process.started", { pid: 1 }]], true, "running", null],
    ["owner died before the end", [started, ["process.started", { pid: 1 }]], false, "lost", null],
    [
      "finished with exit 0",
      [
        started,
        ["process.started"],
        ["process.exited", { status: 0 }],
        ["run.finished", { summary: { exit: 0 } }],
      ],
      false,
      "exited",
      0,
    ],
    [
      "finished with exit 2",
      [started, ["process.exited", { status: 2 }], ["run.finished", { summary: { exit: 2 } }]],
      false,
      "failed",
      2,
    ],
    [
      "interrupted",
      [started, ["run.finished", { summary: { exit: 130 }, interrupted: "SIGINT" }]],
      false,
      "killed",
      130,
    ],
    ["lost event", [started, ["run.lost"]], true, "lost", null],
  ] as const)("%s", (_n, list, alive, state, exit) => {
    const view = foregroundRun(WS, R, events(...(list as unknown as [string, Record<string, unknown>?][])), {
      alive: () => alive,
    });
    expect([view.state, view.status]).toEqual([state, exit]);
  });

  it("takes argv, sources, times and the last seq from the events", () => {
    const view = foregroundRun(WS, R, events(started, ["run.finished", { summary: { exit: 0 } }]), {
      alive: () => false,
    });
    expect(view).toEqual({
      v: 1,
      type: "run",
      runId: R,
      workspace: WS,
      kind: "foreground",
      name: null,
      group: null,
      state: "exited",
      sources: ["api"],
      task: null,
      branch: null,
      argv: ["make", "test"],
      startedAt: "2026-12-02T11:00:00.000Z",
      endedAt: "2026-12-02T11:00:01.000Z",
      status: 0,
      respawnOf: null,
      lastSeq: 2,
      lastLine: null,
      kept: null,
    });
  });

  it("takes its task and branch from the legs it made, and its last line from its output", () => {
    const leg = (source: string, task: string, branch: string) =>
      ["worktree.created", { source, task, branch }] as [string, Record<string, unknown>];
    const output = (line: string, partial = false) =>
      ["output", { stream: "stdout", line, partial }] as [string, Record<string, unknown>];
    const one = foregroundRun(
      WS,
      R,
      events(
        started,
        leg("api", "t1", "ariel/t1"),
        output("compiling"),
        output("done \x1b[32mok\x1b[0m"),
        output("  "),
      ),
      { alive: () => true },
    );
    expect([one.task, one.branch, one.lastLine]).toEqual(["t1", "ariel/t1", "done ok"]);
    const two = foregroundRun(
      WS,
      R,
      events(started, leg("api", "t1", "ariel/t1"), leg("web", "t1", "ariel/t1-web"), output("half", true)),
      { alive: () => true },
    );
    expect([two.task, two.branch, two.lastLine]).toEqual(["t1", null, "half"]);
  });

  it("counts runs by state, every state present", () => {
    expect(countRuns([{ state: "running" }, { state: "running" }, { state: "lost" }])).toEqual({
      starting: 0,
      running: 2,
      exited: 0,
      failed: 0,
      killed: 0,
      lost: 1,
      crashed: 0,
    });
  });
});
