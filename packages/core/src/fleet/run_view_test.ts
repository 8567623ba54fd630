import { describe, expect, it } from "vitest";
import type { ExitRecord, RunRecord } from "../runs/record.ts";
import type { RunState } from "../runs/state.ts";
import { runRecord } from "../testing/run_record.ts";
import { type FleetEvent, normalizeEvent } from "./events.ts";
import {
  countRuns,
  detachedRun,
  type FleetRun,
  foldRunEvents,
  foregroundRun,
  newRunFold,
} from "./run_view.ts";

const W = "ae89cb2b620ea8fc";
const WS = { root: "/w", hash: W };
const R = "20261202T110943Z-k3x9a2";
const at = (s: number) => new Date(Date.UTC(2026, 11, 2, 11, 0, s)).toISOString();
type Step = [string, Record<string, unknown>?];
function events(...list: Step[]): FleetEvent[] {
  return list.map(([event, f], i) => {
    const e = normalizeEvent(
      { v: 1, type: "event", event, runId: R, ts: at(i), source: "api", ...f },
      { workspace: W, runId: R, seq: i + 1 },
    );
    if (!e) throw new Error(`not an event: ${event}`);
    return e;
  });
}

const started: Step = ["run.started", { argv: ["make", "test"], targets: ["api"] }];
const FRESH: FleetRun = {
  v: 1,
  type: "run",
  runId: R,
  workspace: WS,
  kind: "foreground",
  name: null,
  group: null,
  state: "starting",
  sources: [],
  task: null,
  branch: null,
  argv: [],
  startedAt: null,
  endedAt: null,
  status: null,
  respawnOf: null,
  lastSeq: 0,
  lastLine: null,
  kept: null,
};
const BEGUN = { ...FRESH, argv: ["make", "test"], sources: ["api"], startedAt: at(0) };
const view = (list: Step[], alive = true) => foregroundRun(WS, R, events(...list), { alive: () => alive });

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
    const run = view(list as unknown as Step[], alive);
    expect([run.state, run.status]).toEqual([state, exit]);
  });

  it("takes argv, sources, times and the last seq from the events", () => {
    expect(view([started, ["run.finished", { summary: { exit: 0 } }]], false)).toEqual({
      ...BEGUN,
      state: "exited",
      endedAt: at(1),
      status: 0,
      lastSeq: 2,
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

describe("foregroundRun, event by event", () => {
  const sandbox = (net: string) => ({ write: ["/w"], hide: ["~/.ssh"], net });
  const leg = (fields: Record<string, unknown>): Step => ["worktree.created", fields];

  it("is a starting run with nothing known before any event", () => {
    expect(view([])).toEqual(FRESH);
  });

  it("takes the strings of argv and targets, group, name, kind and pid from run.started", () => {
    const first: Step = [
      "run.started",
      { argv: ["make", 3, "test"], targets: "api", group: "g1", name: "build", mode: "detached", pid: 42 },
    ];
    const fold = foldRunEvents(newRunFold(WS, R), events(first));
    expect(fold).toEqual({
      run: {
        ...FRESH,
        kind: "detached",
        name: "build",
        group: "g1",
        argv: ["make", "test"],
        startedAt: at(0),
        lastSeq: 1,
      },
      status: null,
      ownerPid: 42,
      legs: 0,
    });
  });

  it("has no end while running", () => {
    expect(view([started, ["process.started"]])).toEqual({ ...BEGUN, state: "running", lastSeq: 2 });
  });

  it("keeps the first final state, its end and its status", () => {
    const run = view([
      started,
      ["run.finished", { summary: { exit: 2 } }],
      ["run.finished", { state: "killed", status: 143 }],
      ["process.started"],
      ["run.lost"],
    ]);
    expect(run).toEqual({ ...BEGUN, state: "failed", endedAt: at(1), status: 2, lastSeq: 5 });
  });

  it("ignores a run.state without a state to go to, or with an unknown one", () => {
    const ignored: Step[] = [
      started,
      ["run.state", { summary: { exit: 3 } }],
      ["run.state", { to: "paused" }],
    ];
    expect(view(ignored)).toEqual({ ...BEGUN, lastSeq: 3 });
    expect(view([...ignored, ["run.state", { to: "failed" }]]).status).toBeNull();
  });

  it("takes the highest run.exited status when run.finished carries no exit", () => {
    const run = view([
      started,
      ["process.exited", { status: 3 }],
      ["process.exited", { code: null, signal: "SIGTERM" }],
      ["process.exited", { status: 1 }],
      ["run.finished", { state: "failed" }],
    ]);
    expect([run.state, run.status]).toEqual(["failed", 3]);
  });

  it("has no status once lost, whatever its processes exited with", () => {
    const run = view([started, ["process.exited", { status: 1 }], ["run.lost"]]);
    expect(run).toEqual({ ...BEGUN, state: "lost", endedAt: at(2), status: null, lastSeq: 3 });
  });

  it("lists each leg it made and keeps the task and branch they share", () => {
    const api = { source: "api", worktree: "/w/.ariel/t1/api", branch: "ariel/t1" };
    const web = { source: "web", worktree: "/w/.ariel/t1/web", branch: "ariel/t1" };
    const fold = foldRunEvents(
      newRunFold(WS, R),
      events(started, leg({ ...api, task: "t1" }), leg({ ...web, task: "t1" })),
    );
    expect([fold.legs, fold.run.task, fold.run.branch, fold.run.legs]).toEqual([
      2,
      "t1",
      "ariel/t1",
      [api, web],
    ]);
  });

  it("lists no leg that lacks its source, worktree or branch", () => {
    const fold = foldRunEvents(
      newRunFold(WS, R),
      events(
        started,
        leg({ source: null, worktree: "/w/a", branch: "b" }),
        leg({ source: "api", branch: "b" }),
        leg({ source: "api", worktree: "/w/a" }),
      ),
    );
    expect(fold).toEqual({
      run: { ...BEGUN, task: null, branch: null, lastSeq: 4 },
      status: null,
      ownerPid: null,
      legs: 3,
    });
  });

  it("keeps its last line past an output event without data", () => {
    const list = events(
      started,
      ["output", { stream: "stdout", line: "ok" }],
      ["output", { stream: "stdout", line: "x" }],
    );
    const last = { ...list[2]!, data: undefined };
    expect(foregroundRun(WS, R, [list[0]!, list[1]!, last], { alive: () => true }).lastLine).toBe("ok");
  });

  it("takes its sandbox from its first sandboxed process, not from other events", () => {
    const run = view([
      ["run.started", { sandbox: sandbox("on") }],
      ["process.started", { sandbox: sandbox("none") }],
      ["process.started", { sandbox: sandbox("on") }],
    ]);
    expect(run.sandbox).toEqual(sandbox("none"));
  });

  it.each([
    ["net on", sandbox("on"), sandbox("on")],
    ["net none", sandbox("none"), sandbox("none")],
    ["another net", sandbox("host"), undefined],
    ["null", null, undefined],
    ["no write list", { hide: [], net: "on" }, undefined],
    ["no hide list", { write: [], net: "on" }, undefined],
    ["a string", "on", undefined],
  ])("a process sandbox of %s", (_n, given, want) => {
    expect(view([started, ["process.started", { sandbox: given }]]).sandbox).toEqual(want);
  });
});

describe("detachedRun", () => {
  const K = {
    task: "t1",
    source: "api",
    reason: "dirty",
    next: "ariel-worktree remove --task t1 --source api",
  };
  const record = (f: Partial<RunRecord> = {}): RunRecord =>
    runRecord({
      runId: R,
      workspace: WS,
      source: "api",
      cwd: "/w",
      argv: ["claude"],
      createdAt: at(0),
      startedAt: at(1),
      monitor: null,
      child: null,
      ...f,
    });
  const exit: ExitRecord = {
    v: 1,
    type: "exit",
    runId: R,
    state: "failed",
    reason: null,
    code: 3,
    signal: null,
    status: 3,
    endedAt: at(9),
  };
  const DETACHED = { ...FRESH, kind: "detached", name: "agent", argv: ["claude"], startedAt: at(1) };
  const live = (r: RunRecord, state: RunState = "running") =>
    detachedRun(WS, { record: r, exit: null, state }, 0);

  it("shows an ended run's record and exit, its argv redacted", () => {
    const r = record({
      group: "g1",
      task: "t1",
      branch: "ariel/t1",
      respawnOf: "20261202T100000Z-aaaaaa",
      argv: ["git", "clone", "https://user:secret@example.com/r.git"],
      tty: { cols: 80, rows: 24 },
      sandbox: { write: ["/w"], hide: [], net: "none" },
    });
    expect(detachedRun(WS, { record: r, exit, state: "failed" }, 7, K, "done")).toEqual({
      ...DETACHED,
      group: "g1",
      state: "failed",
      sources: ["api"],
      task: "t1",
      branch: "ariel/t1",
      argv: ["git", "clone", "https://example.com/r.git"],
      endedAt: at(9),
      status: 3,
      respawnOf: "20261202T100000Z-aaaaaa",
      lastSeq: 7,
      lastLine: "done",
      kept: K,
      tty: { cols: 80, rows: 24 },
      sandbox: { write: ["/w"], hide: [], net: "none" },
    });
  });

  it("shows a live run over several legs: their sources, a copy of each leg", () => {
    const legs = [
      { source: "api", worktree: "/w/.ariel/t1/api", branch: "ariel/t1" },
      { source: "web", worktree: "/w/.ariel/t1/web", branch: "ariel/t1" },
    ];
    expect(live(record({ source: null, legs, startedAt: null }))).toEqual({
      ...DETACHED,
      state: "running",
      sources: ["api", "web"],
      legs,
      startedAt: at(0),
    });
  });

  it("has no sources without a source or legs, and takes its end from its record", () => {
    const run = live(record({ source: null, group: null, endedAt: at(5) }), "lost");
    expect([run.sources, run.group, run.endedAt, run.status]).toEqual([[], null, at(5), null]);
  });
});
