import { ArielError, type FleetRun } from "@ariel/core";
import type { LegDiff } from "@ariel/core/host";
import { describe, expect, it } from "vitest";
import type { Actions, Outcome } from "./data/actions.ts";
import type { FleetSource } from "./data/fleet.ts";
import type { Preview } from "./data/preview.ts";
import { runAction, taskAction, type Ui } from "./flows.ts";
import { fleetRun as baseRun } from "./model/_fixture.ts";
import type { Item, RunItem, TaskItem } from "./model/items.ts";
import { initialState } from "./ui/state.ts";

const WS = { root: "/w", hash: "h" };
const T = { root: "/w", hash: "h", taskId: "t1" };
const OK: Outcome = { ok: true, message: "done", exit: 0 };

function fleetRun(over: Partial<FleetRun> = {}): FleetRun {
  return baseRun({ workspace: WS, name: "agent-a", ...over });
}
const runItem = (r: FleetRun): RunItem => ({
  kind: "run",
  key: "k",
  run: r,
  attention: null,
  tool: null,
  fresh: false,
});
const TASK: TaskItem = {
  kind: "task",
  key: "task:h/t1",
  workspace: WS,
  taskId: "t1",
  state: "active",
  legs: [],
  createdAt: null,
};

/** What the fake actions answer: each an outcome, or an error to throw. */
interface Answers {
  diff?: LegDiff[] | Error;
  landPlan?: Outcome | Error;
  outcome?: Outcome;
}

/** A Ui of plain objects: every call it gets, in order, in `calls`. */
function fakeUi(answers: Answers = {}, selected: Item | null = null) {
  const calls: unknown[][] = [];
  const answer = <T>(a: T | Error | undefined, dflt: T): T => {
    if (a instanceof Error) throw a;
    return a ?? dflt;
  };
  const o = answers.outcome ?? OK;
  /** `entry` noted, then `v` answered. */
  const call = <T>(entry: unknown[], v: T): T => {
    calls.push(entry);
    return v;
  };
  const actions = {
    send: async (run: FleetRun, text: string) => call(["send", run, text], o),
    kill: async (run: FleetRun) => call(["kill", run], o),
    respawn: async (run: FleetRun, resume: boolean) => call(["respawn", run, resume], o),
    diff: async (ws: unknown, taskId: string) => {
      calls.push(["diff", ws, taskId]);
      return answer(answers.diff, []);
    },
    landPlan: async (ws: unknown, taskId: string) => {
      calls.push(["landPlan", ws, taskId]);
      return { plan: {}, outcome: answer(answers.landPlan, OK) };
    },
    land: async (ws: unknown, taskId: string) => call(["land", ws, taskId], o),
    remove: async (ws: unknown, taskId: string) => call(["remove", ws, taskId], o),
  };
  const ui: Ui = {
    state: initialState(),
    actions: actions as unknown as Actions,
    fleet: {
      touchTasks: (hash: string, taskId?: string) => void calls.push(["touchTasks", hash, taskId]),
    } as unknown as FleetSource,
    preview: {
      show: async (item: Item | null, force?: boolean) => void calls.push(["preview.show", item, force]),
    } as unknown as Preview,
    selected: () => call(["selected"], selected),
    redraw: () => void calls.push(["redraw"]),
    say: (m, ok) => void calls.push(["say", m, ok]),
    show: (m) => void calls.push(["show", m]),
    after: async (m, run) => void calls.push(["after", m, run]),
    busy: async (title, f) => {
      calls.push(["busy", title]);
      await f();
      calls.push(["busy done"]);
    },
  };
  return { ui, calls };
}

/** The question or prompt up now, its function run, and the calls it made. */
async function answer(ui: Ui, calls: unknown[][], text = "hello"): Promise<unknown[][]> {
  const m = ui.state.mode;
  calls.length = 0;
  if (m.kind === "confirm") await m.yes();
  else if (m.kind === "input") await m.submit(text);
  else throw new Error(`no question: ${m.kind}`);
  return calls;
}

describe("runAction without a run", () => {
  // Each says what to select, as a refusal, and opens nothing.
  it.each([
    ["send", "select a run to send a line to"],
    ["kill", "select a run to kill"],
    ["respawn", "select a run to respawn"],
    ["resume", "select a run to respawn"],
  ] as const)("%s: %s", async (action, text) => {
    const { ui, calls } = fakeUi();
    await runAction(ui, action, null);
    expect(calls).toEqual([["say", text, false]]);
    expect(ui.state.mode).toEqual({ kind: "list" });
  });
});

describe("runAction send and kill", () => {
  // The prompt or question, by name (else id), then the action on that run and its outcome after it.
  it.each([
    ["by name", "agent-a"],
    ["by id", null],
  ])("send %s: a prompt, then the line sent", async (_n, name) => {
    const run = fleetRun({ name });
    const { ui, calls } = fakeUi();
    await runAction(ui, "send", run);
    expect(ui.state.mode).toEqual({
      kind: "input",
      title: `send a line to ${name ?? run.runId}`,
      text: "",
      submit: expect.any(Function),
    });
    expect(calls).toEqual([["redraw"]]);
    expect(await answer(ui, calls, "go on")).toEqual([
      ["send", run, "go on"],
      ["after", OK, run],
    ]);
  });

  it.each([
    ["by name", "agent-a"],
    ["by id", null],
  ])("kill %s: a question, then the kill", async (_n, name) => {
    const run = fleetRun({ name });
    const who = name ?? run.runId;
    const { ui, calls } = fakeUi();
    await runAction(ui, "kill", run);
    expect(ui.state.mode).toEqual({
      kind: "confirm",
      title: `kill ${who}?`,
      lines: [`TERM to its process group, KILL after 10 s (ariel-runs kill ${who})`],
      yes: expect.any(Function),
    });
    expect(calls).toEqual([["redraw"]]);
    expect(await answer(ui, calls)).toEqual([
      ["kill", run],
      ["after", OK, run],
    ]);
  });
});

describe("runAction respawn and resume", () => {
  // An ended run is respawned at once (busy); a live one asks first, as it is killed.
  it.each([
    ["respawn an exited run", "respawn", "exited", false],
    ["resume a failed run", "resume", "failed", true],
    ["respawn a killed run", "respawn", "killed", false],
  ] as const)("%s: at once", async (_n, action, state, resume) => {
    const run = fleetRun({ state });
    const { ui, calls } = fakeUi();
    await runAction(ui, action, run);
    expect(calls).toEqual([
      ["busy", "respawning"],
      ["respawn", run, resume],
      ["after", OK, run],
      ["busy done"],
    ]);
    expect(ui.state.mode).toEqual({ kind: "list" });
  });

  it.each([
    [
      "respawn a running run",
      "respawn",
      "running",
      "agent-a",
      false,
      "respawn agent-a? it is live: it is killed first",
    ],
    [
      "resume a starting run",
      "resume",
      "starting",
      "agent-a",
      true,
      "respawn agent-a --resume? it is live: it is killed first",
    ],
    [
      "respawn a live run without a name",
      "respawn",
      "running",
      null,
      false,
      "respawn 20261204T000000Z-aaaaaa? it is live: it is killed first",
    ],
  ] as const)("%s: a question first", async (_n, action, state, name, resume, title) => {
    const run = fleetRun({ state, name });
    const { ui, calls } = fakeUi();
    await runAction(ui, action, run);
    expect(ui.state.mode).toEqual({ kind: "confirm", title, lines: [], yes: expect.any(Function) });
    expect(calls).toEqual([["redraw"]]);
    expect(await answer(ui, calls)).toEqual([
      ["respawn", run, resume],
      ["after", OK, run],
    ]);
  });
});

describe("taskAction without a task", () => {
  // Nothing selected, or a run in no task: what to select, as a refusal.
  it.each([
    ["diff", null, "select a task (or a run in one) to see its diff"],
    ["land", null, "select a task (or a run in one) to land"],
    ["remove", null, "select a task (or a run in one) to remove"],
    ["diff", runItem(fleetRun()), "select a task (or a run in one) to see its diff"],
    ["land", runItem(fleetRun()), "select a task (or a run in one) to land"],
  ] as const)("%s of %j", async (action, item, text) => {
    const { ui, calls } = fakeUi();
    await taskAction(ui, action, item);
    expect(calls).toEqual([["say", text, false]]);
    expect(ui.state.mode).toEqual({ kind: "list" });
  });
});

const leg = (over: Partial<LegDiff>): LegDiff => ({
  v: 1,
  type: "diff",
  task: "t1",
  source: "api",
  branch: "ariel/t1",
  base: "0123456789abcdef0123",
  head: "f".repeat(40),
  path: "/w/.wt/t1/api",
  state: "active",
  commits: [],
  files: [],
  uncommitted: [],
  ...over,
});
const legs = [
  leg({
    commits: [{ commit: "aaaaaaaaaaaaaaaa", subject: "one" }],
    files: [{ path: "a", status: "M", added: 1, deleted: 0 }],
    uncommitted: ["x", "y"],
    patch: "diff --git a/a b/a\n+x",
  }),
  leg({ source: "web", branch: "ariel/t1-web" }),
];

describe("taskAction diff", () => {
  // The task's legs in a pager: a header line per leg, its commits, its patch; a failure shown.
  it.each([
    ["of a task", TASK],
    ["of the task a run works in", runItem(fleetRun({ task: "t1" }))],
  ])("%s", async (_n, item) => {
    const { ui, calls } = fakeUi({ diff: legs });
    await taskAction(ui, "diff", item);
    expect(calls).toEqual([["busy", "reading the diff"], ["diff", T, "t1"], ["busy done"]]);
    expect(ui.state.mode).toEqual({
      kind: "pager",
      title: "diff of task t1",
      scroll: 0,
      lines: [
        "── api · ariel/t1 · 1 commit(s) ahead of 0123456789ab, 1 file(s) changed, 2 uncommitted",
        "commit aaaaaaaaaaaa one",
        "diff --git a/a b/a",
        "+x",
        "── web · ariel/t1-web · 0 commit(s) ahead of 0123456789ab, 0 file(s) changed, 0 uncommitted",
        "",
      ],
    });
  });

  it.each([
    [
      "an ariel error: its code, message and hint",
      new ArielError("ERR_REFUSED", "no", { hint: "try x", exit: 3 }),
      { ok: false, message: "ERR_REFUSED: no", lines: ["ERR_REFUSED: no", "hint: try x"], exit: 3 },
    ],
    ["another error", new Error("boom"), { ok: false, message: "error: boom", exit: 70 }],
  ])("it fails: %s", async (_n, e, shown) => {
    const { ui, calls } = fakeUi({ diff: e });
    await taskAction(ui, "diff", TASK);
    expect(calls).toEqual([["busy", "reading the diff"], ["diff", T, "t1"], ["show", shown], ["busy done"]]);
    expect(ui.state.mode).toEqual({ kind: "list" });
  });
});

describe("taskAction remove", () => {
  // A question with the command it stands for; yes: the removal, the task read again, the outcome.
  it("asks, then removes", async () => {
    const refused: Outcome = { ok: false, message: "refused", lines: ["a", "b"], exit: 3 };
    const { ui, calls } = fakeUi({ outcome: refused });
    await taskAction(ui, "remove", runItem(fleetRun({ task: "t1" })));
    expect(ui.state.mode).toEqual({
      kind: "confirm",
      title: "remove task t1's worktrees?",
      lines: [
        "branches are kept; a leg with work that would be lost is refused",
        "(ariel-worktree remove --task t1)",
      ],
      yes: expect.any(Function),
    });
    expect(calls).toEqual([["redraw"]]);
    expect(await answer(ui, calls)).toEqual([
      ["remove", T, "t1"],
      ["touchTasks", "h", "t1"],
      ["show", refused],
    ]);
  });
});

describe("taskAction land", () => {
  // The plan first (busy); a plan refused is shown; else a question with its lines, then the land.
  it("plans, asks, lands, reads the task and the preview again, shows the outcome", async () => {
    const plan: Outcome = { ok: true, message: "plan", lines: ["api: merge 2 commits"], exit: 0 };
    const landed: Outcome = { ok: true, message: "landed", exit: 0 };
    const { ui, calls } = fakeUi({ landPlan: plan, outcome: landed }, TASK);
    await taskAction(ui, "land", TASK);
    expect(calls).toEqual([["busy", "planning the land"], ["landPlan", T, "t1"], ["busy done"]]);
    expect(ui.state.mode).toEqual({
      kind: "confirm",
      title: "land task t1? every leg or none (merge)",
      lines: ["api: merge 2 commits"],
      yes: expect.any(Function),
    });
    expect(await answer(ui, calls)).toEqual([
      ["land", T, "t1"],
      ["touchTasks", "h", "t1"],
      ["selected"],
      ["preview.show", TASK, true],
      ["show", landed],
    ]);
  });

  it("a plan without lines asks with none", async () => {
    const { ui } = fakeUi({ landPlan: { ok: true, message: "plan", exit: 0 } });
    await taskAction(ui, "land", TASK);
    expect(ui.state.mode).toEqual(expect.objectContaining({ kind: "confirm", lines: [] }));
  });

  it.each([
    [
      "a refused plan is shown",
      { ok: false, message: "ERR_X: no", lines: ["x"], exit: 3 },
      { ok: false, message: "ERR_X: no", lines: ["x"], exit: 3 },
    ],
    ["a plan that throws", new Error("gone"), { ok: false, message: "error: gone", exit: 70 }],
  ] as [string, Outcome | Error, Outcome][])("%s, and nothing is asked", async (_n, landPlan, shown) => {
    const { ui, calls } = fakeUi({ landPlan });
    await taskAction(ui, "land", TASK);
    expect(calls).toEqual([
      ["busy", "planning the land"],
      ["landPlan", T, "t1"],
      ["show", shown],
      ["busy done"],
    ]);
    expect(ui.state.mode).toEqual({ kind: "list" });
  });
});
