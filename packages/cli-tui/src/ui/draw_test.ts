import type { FleetRun } from "@ariel/core";
import type { LegDiff } from "@ariel/core/host";
import { describe, expect, it } from "vitest";
import { fleetRun } from "../model/_fixture.ts";
import { newForm } from "../model/form.ts";
import { runLine, taskLine } from "../model/format.ts";
import type { Item, Row, RunItem, TaskItem } from "../model/items.ts";
import { fit, type Paint, painter, type StyleName } from "../text.ts";
import { colourDiff, draw, type Frame, layout, type PreviewView, previewBackMax, wrap } from "./draw.ts";
import { initialState, type UiState } from "./state.ts";

const C = painter(true);
const N = painter(false);
const NOW = Date.parse("2026-12-04T00:05:00.000Z");
const WS = { root: "/w", hash: "h" };

function run(over: Partial<FleetRun> = {}, more: Partial<RunItem> = {}): RunItem {
  const r = fleetRun({ workspace: WS, name: "agent-a", lastLine: "Working", ...over });
  return { kind: "run", key: `run:h/${r.runId}`, run: r, attention: null, tool: null, fresh: false, ...more };
}

const task = (over: Partial<TaskItem> = {}): TaskItem => ({
  kind: "task",
  key: "task:h/t1",
  workspace: WS,
  taskId: "t1",
  state: "active",
  legs: [{ source: "api", branch: "ariel/t1", state: "active" }],
  createdAt: null,
  ...over,
});

const itemRow = (item: Item, depth: 0 | 1 = 0): Row => ({ kind: "item", item, depth });
const header = (group: "needs" | "running" | "ended", count: number): Row => ({
  kind: "header",
  group,
  count,
});
const EMPTY: Row = { kind: "empty", text: "Nothing is waiting for you." };

function frame(over: Partial<Frame> = {}, state: Partial<UiState> = {}): Frame {
  return {
    cols: 60,
    rows: 8,
    now: NOW,
    state: { ...initialState(), ...state },
    list: [header("needs", 0), EMPTY],
    taskRuns: () => 0,
    preview: { kind: "text", lines: [] },
    workspaces: 1,
    colour: false,
    ...over,
  };
}

/** Each row as draw leaves it: exactly `cols` wide. */
const rows = (cols: number, ...r: string[]) => r.map((s) => fit(s, cols));
const titleRow = (text: string, cols = 60) => N("inverse", fit(text, cols));
const KEYS_ROW = (p: Paint) =>
  ` ${[
    ["Enter", "attach"],
    ["n", "new"],
    ["s", "send"],
    ["k", "kill"],
    ["d", "diff"],
    ["L", "land"],
    ["/", "filter"],
    ["?", "help"],
    ["q", "quit"],
  ]
    .map(([l, s]) => `${p("bold", l!)} ${s}`)
    .join("  ")}`;
const RULE = "─".repeat(60);

describe("layout", () => {
  // The list takes 45% of the rows between the title, the preview's title, the message and the keys.
  it.each([
    [0, { list: 1, preview: 1 }],
    [5, { list: 1, preview: 1 }],
    [6, { list: 1, preview: 1 }],
    [7, { list: 1, preview: 2 }],
    [8, { list: 2, preview: 2 }],
    [10, { list: 3, preview: 3 }],
    [24, { list: 9, preview: 11 }],
    [50, { list: 21, preview: 25 }],
  ])("%d rows: %j", (n, want) => expect(layout(n)).toEqual(want));
});

/** Runs and a task, one selected, with colour: the whole frame, and what draw asked of the frame. */
function runsAndATask(): void {
  const a = run(
    { runId: "20261204T000000Z-aaaaaa", activity: "waiting" },
    { attention: { to: "waiting", reason: "Allow?" } },
  );
  const b = run({
    runId: "20261204T000000Z-bbbbbb",
    name: "agent-b",
    task: "t1",
    tty: { cols: 80, rows: 24 },
  });
  const t = task();
  const asked: [number, number][] = [];
  const counted: Item[] = [];
  const f = frame(
    {
      rows: 12,
      colour: true,
      list: [header("needs", 1), itemRow(a), header("running", 2), itemRow(t), itemRow(b, 1)],
      taskRuns: (i) => {
        counted.push(i);
        return 2;
      },
      preview: {
        kind: "screen",
        live: true,
        lines: (c, r) => {
          asked.push([c, r]);
          return ["\x1b[32m$ ls\x1b[0m", "a b", "", "\x1b[0;9m  ", "  "];
        },
      },
      workspaces: 2,
    },
    { selected: b.key, scroll: 1, message: { text: "done\x07", ok: true } },
  );
  expect(draw(f)).toEqual(
    rows(
      60,
      C("inverse", fit(" ariel  2 runs · 1 needs you · 2 workspaces", 60)),
      runLine(a, 0, 60, NOW, C),
      C("header", "Running (2)"),
      taskLine(t, 2, 60, C),
      C("selected", fit(runLine(b, 1, 60, NOW, N), 60)),
      C("dim", `── agent-b · live screen · 20261204T000000Z-bbbbbb ${RULE}`),
      "\x1b[32m$ ls\x1b[0m",
      "a b",
      "",
      "",
      C("green", "done"),
      KEYS_ROW(C),
    ),
  );
  expect(asked).toEqual([[60, 500]]);
  expect(counted).toEqual([t]);
}

describe("draw: whole frames", () => {
  // Whole frames of the list and the preview, with colour and without.
  it("nothing yet, without colour", () =>
    expect(draw(frame({ preview: { kind: "text", lines: ["hello"] } }))).toEqual(
      rows(
        60,
        titleRow(" ariel  0 runs · 0 need you · 1 workspace"),
        "Needs you (0)",
        "  Nothing is waiting for you.",
        `── nothing selected ${RULE}`,
        "hello",
        "",
        "",
        KEYS_ROW(N),
      ),
    ));

  it("runs and a task, one selected, with colour", runsAndATask);

  it("the selected run in the preview's focus is underlined, its title bold", () => {
    const a = run();
    const f = frame({ list: [header("running", 1), itemRow(a)] }, { selected: a.key, focus: "preview" });
    expect(draw(f)).toEqual(
      rows(
        60,
        titleRow(" ariel  1 run · 0 need you · 1 workspace"),
        "Running (1)",
        N("underline", fit(runLine(a, 0, 60, NOW, N), 60)),
        N("bold", `── ▶ agent-a · log · 20261204T000000Z-aaaaaa ${RULE}`),
        "",
        "",
        "",
        KEYS_ROW(N),
      ),
    );
  });
});

describe("draw: the list's columns, and the terminal's edges", () => {
  // A run's and a task's line as they read; rows cut to the width, a frame to the height.
  it("the literal columns of a run and a task, without colour", () => {
    const a = run({ name: "x", lastLine: "hi" }, { fresh: true });
    const b = run({
      runId: "b",
      name: null,
      state: "exited",
      status: 0,
      endedAt: "2026-12-04T00:02:00.000Z",
    });
    const f = frame({ rows: 10, list: [itemRow(a), itemRow(task(), 0), itemRow(b, 1)], taskRuns: () => 1 });
    expect(draw(f).slice(1, 4)).toEqual(
      rows(
        60,
        "● x              api            running    5m    hi",
        fit(`▸ ${N("bold", "task t1")}  api  1 run`, 60), // the task's own line, then the frame's row
        "    b            api            exited 0   2m    Working",
      ),
    );
  });

  it("only the rows that fit: a frame is never taller than the terminal", () =>
    expect(draw(frame({ rows: 3 }))).toEqual(
      rows(
        60,
        titleRow(" ariel  0 runs · 0 need you · 1 workspace"),
        "Needs you (0)",
        `── nothing selected ${RULE}`,
      ),
    ));

  it("a narrow terminal cuts every row", () =>
    expect(draw(frame({ cols: 10 }))).toEqual(
      rows(
        10,
        N("inverse", fit(" ariel  0 runs", 10)),
        "Needs you ",
        "  Nothing ",
        "── n… ────",
        "",
        "",
        "",
        " \x1b[1mEnter\x1b[0m att",
      ),
    ));
});

describe("draw: the title line", () => {
  // Runs counted, what needs you as its header counts it, workspaces, the filter; singular or plural.
  const a = run();
  const b = run({ runId: "b" });
  it.each([
    ["nothing", [], 0, "", " ariel  0 runs · 0 need you · 0 workspaces"],
    [
      "one run, one workspace",
      [header("running", 1), itemRow(a)],
      1,
      "",
      " ariel  1 run · 0 need you · 1 workspace",
    ],
    [
      "two runs, a task, one needs you",
      [header("needs", 1), itemRow(task()), header("running", 2), itemRow(a), itemRow(b)],
      3,
      "",
      " ariel  2 runs · 1 needs you · 3 workspaces",
    ],
    ["two need you", [header("needs", 2)], 1, "", " ariel  0 runs · 2 need you · 1 workspace"],
    [
      "the ended group is not what needs you",
      [header("ended", 4)],
      1,
      "",
      " ariel  0 runs · 0 need you · 1 workspace",
    ],
    ["a filter", [], 1, "api", " ariel  0 runs · 0 need you · 1 workspace  filter: api"],
  ] as [string, Row[], number, string, string][])("%s", (_n, list, workspaces, filter, want) =>
    expect(draw(frame({ list, workspaces, cols: 70 }, { filter }))[0]).toBe(fit(titleRow(want, 70), 70)),
  );
});

describe("draw: the list's rows", () => {
  // Group headers (what needs you stands out), the empty group's line, padding to the list's height.
  it.each([
    ["nothing needs you: a plain header", [header("needs", 0), EMPTY], ["header", "Needs you (0)"]],
    ["something needs you: it stands out", [header("needs", 2)], ["waiting", "Needs you (2)"]],
    ["another group is a plain header", [header("running", 3)], ["header", "Running (3)"]],
    ["the ended group", [header("ended", 1)], ["header", "Ended (1)"]],
  ] as [string, Row[], [StyleName, string]][])("%s", (_n, list, [style, text]) =>
    expect(draw(frame({ list, colour: true }))[1]).toBe(fit(C(style, text), 60)),
  );
  it("the empty group's line is dim", () =>
    expect(draw(frame({ colour: true }))[2]).toBe(fit(C("dim", "  Nothing is waiting for you."), 60)));

  it("an empty list: blank rows, then the rest in place", () =>
    expect(draw(frame({ list: [], workspaces: 0 }))).toEqual(
      rows(
        60,
        titleRow(" ariel  0 runs · 0 need you · 0 workspaces"),
        "",
        "",
        `── nothing selected ${RULE}`,
        "",
        "",
        "",
        KEYS_ROW(N),
      ),
    ));

  it("scrolled: the rows from the scroll on, as many as the list's height", () => {
    const list = [header("needs", 0), EMPTY, header("running", 2), header("ended", 1)];
    expect(draw(frame({ list }, { scroll: 1 })).slice(1, 3)).toEqual(
      rows(60, "  Nothing is waiting for you.", "Running (2)"),
    );
  });
});

const WAITING = { attention: { to: "waiting", reason: "Allow?" } };
/** What the preview's title says for each selection and preview. */
const PREVIEW_TITLES = [
  ["nothing selected", null, { kind: "text", lines: [] }, "nothing selected"],
  ["a run's log", run(), { kind: "log", lines: [] }, "agent-a · log · 20261204T000000Z-aaaaaa"],
  [
    "a tty run's stored screen",
    run({ tty: { cols: 80, rows: 24 } }),
    { kind: "screen", live: false, lines: () => [] },
    "agent-a · screen · 20261204T000000Z-aaaaaa",
  ],
  [
    "a tty run, its screen not read yet",
    run({ tty: { cols: 80, rows: 24 } }),
    { kind: "text", lines: [] },
    "agent-a · screen · 20261204T000000Z-aaaaaa",
  ],
  [
    "a run without a tty is a log, whatever the preview",
    run(),
    { kind: "screen", live: true, lines: () => [] },
    "agent-a · log · 20261204T000000Z-aaaaaa",
  ],
  [
    "a run without a name: its id",
    run({ name: null }),
    { kind: "log", lines: [] },
    "20261204T000000Z-aaaaaa · log · 20261204T000000Z-aaaaaa",
  ],
  [
    "a waiting run says why",
    run({ activity: "waiting" }, WAITING),
    { kind: "log", lines: [] },
    "agent-a · log · 20261204T000000Z-aaaaaa — waiting: Allow?",
  ],
  [
    "a busy run does not",
    run({ activity: "busy" }, WAITING),
    { kind: "log", lines: [] },
    "agent-a · log · 20261204T000000Z-aaaaaa",
  ],
  [
    "a waiting run without a reason",
    run({ activity: "waiting" }, { attention: { to: "waiting", reason: "" } }),
    { kind: "log", lines: [] },
    "agent-a · log · 20261204T000000Z-aaaaaa",
  ],
  [
    "a waiting run nobody said why",
    run({ activity: "waiting" }),
    { kind: "log", lines: [] },
    "agent-a · log · 20261204T000000Z-aaaaaa",
  ],
  ["a task", task(), { kind: "task", legs: [] }, "task t1 · legs · /w"],
  [
    "control characters go",
    run({ name: "a\x1b[2Jb\x07" }),
    { kind: "log", lines: [] },
    "ab · log · 20261204T000000Z-aaaaaa",
  ],
] as [string, Item | null, PreviewView, string][];

describe("draw: the preview's title", () => {
  // What the preview shows and of which run or task; bold with the focus, dim without.
  const long = "a-very-long-name-that-does-not-fit";
  it.each(PREVIEW_TITLES)("%s", (_n, item, preview, what) => {
    const list = item ? [itemRow(item)] : [];
    const f = frame({ list, preview, cols: 90, colour: true }, { selected: item?.key ?? null });
    expect(draw(f)[3]).toBe(fit(C("dim", `── ${what} ${"─".repeat(90)}`), 90));
  });
  it("a long title is cut with … eight columns short of the edge", () => {
    const f = frame({ list: [itemRow(run({ name: long }))], cols: 30 }, { selected: run().key });
    expect(draw(f)[3]).toBe(fit(`── ${long.slice(0, 21)}… ${"─".repeat(30)}`, 30));
  });
  it("with the focus: ▶ and bold", () => {
    const f = frame({ cols: 30 }, { focus: "preview" });
    expect(draw(f)[3]).toBe(fit(N("bold", `── ▶ nothing selected ${"─".repeat(30)}`), 30));
  });
});

/** A task's legs in the preview: commits, files and uncommitted paths of each. */
function taskLegs(): void {
  const leg = (over: Partial<LegDiff>): LegDiff => ({
    v: 1,
    type: "diff",
    task: "t1",
    source: "api",
    branch: "ariel/t1",
    base: "b".repeat(40),
    head: "c".repeat(40),
    path: "/w/.worktrees/t1/api",
    state: "active",
    commits: [],
    files: [],
    uncommitted: [],
    ...over,
  });
  const legs = [
    leg({
      commits: [
        { commit: "0123456789abcdef", subject: "first\x07" },
        { commit: "fedcba9876543210", subject: "second" },
      ],
      files: [{ path: "src/a\x1b[1m.ts", status: "M", added: 3, deleted: null }],
      uncommitted: ["x.txt", "y\x07.txt"],
    }),
    leg({
      source: "web",
      state: "removed",
      commits: [{ commit: "abcdef0123456789", subject: "only" }],
      files: [
        { path: "b.bin", status: "A", added: null, deleted: 4 },
        { path: "c", status: "D", added: 0, deleted: 1 },
      ],
    }),
  ];
  const f = frame({ rows: 22, cols: 90, colour: true, preview: { kind: "task", legs } });
  expect(draw(f).slice(-12, -2)).toEqual(
    rows(
      90,
      `${C("bold", "api")}  ariel/t1  2 commits ahead, 1 file changed, 2 uncommitted`,
      `  ${C("yellow", "0123456789")} first`,
      `  ${C("yellow", "fedcba9876")} second`,
      `    M src/a.ts ${C("green", "+3")} ${C("red", "--")}`,
      `    ${C("magenta", "uncommitted")} x.txt`,
      `    ${C("magenta", "uncommitted")} y.txt`,
      `${C("bold", "web")}  ariel/t1  1 commit ahead, 2 files changed, 0 uncommitted (removed)`,
      `  ${C("yellow", "abcdef0123")} only`,
      `    A b.bin ${C("green", "+-")} ${C("red", "-4")}`,
      `    D c ${C("green", "+0")} ${C("red", "-1")}`,
    ),
  );
}

const screen = (...lines: string[]): PreviewView => ({ kind: "screen", live: true, lines: () => lines });
const text = (...lines: string[]): PreviewView => ({ kind: "text", lines });
/** The preview's three rows for each preview and scroll back. */
const PREVIEW_ROWS = [
  ["the last lines, dim", text("a", "b", "c", "d"), 0, [C("dim", "b"), C("dim", "c"), C("dim", "d")]],
  ["scrolled back a line", text("a", "b", "c", "d"), 1, [C("dim", "a"), C("dim", "b"), C("dim", "c")]],
  [
    "scrolled back further than its first line at the top: no further",
    text("a", "b", "c", "d"),
    2,
    [C("dim", "a"), C("dim", "b"), C("dim", "c")],
  ],
  ["scrolled back when it all fits: its end", text("a", "b"), 9, [C("dim", "a"), C("dim", "b"), ""]],
  ["fewer lines than the height", text("a"), 0, [C("dim", "a"), "", ""]],
  [
    "a log's lines made printable, not dim",
    { kind: "log", lines: ["x\x1b[31my", "a\tb"] },
    0,
    ["xy", "a  b", ""],
  ],
  ["a screen without its blank end", screen("a", "", "\x1b[0;9m  ", " "), 0, ["a", "", ""]],
  ["a screen's blank first line stays", screen("", "x"), 0, ["", "x", ""]],
  [
    "a screen all blank keeps its first line",
    screen("\x1b[31m  \x1b[0m", ""),
    0,
    ["\x1b[31m  \x1b[0m", "", ""],
  ],
  ["a screen's styled lines as they are", screen("\x1b[1ma\x1b[0m", "b", "c", "d"), 0, ["b", "c", "d"]],
  ["a task without legs", { kind: "task", legs: [] }, 0, ["the task has no legs", "", ""]],
] as [string, PreviewView, number, string[]][];

describe("draw: the preview's rows", () => {
  // The end of what the preview holds (less what it is scrolled back), padded to its height.
  it.each(PREVIEW_ROWS)("%s", (_n, preview, previewBack, want) =>
    expect(draw(frame({ rows: 9, preview, colour: true }, { previewBack })).slice(4, 7)).toEqual(
      rows(60, ...want),
    ),
  );

  it("a task's legs: commits, files and uncommitted paths of each", taskLegs);

  // How far back it scrolls: its lines less its height (3 rows here), a screen's blank end not counted.
  it.each([
    ["more lines than rows", text("a", "b", "c", "d", "e"), 2],
    ["as many lines as rows", text("a", "b", "c"), 0],
    ["fewer", text("a"), 0],
    ["a screen, its blank end left out", screen("a", "b", "c", "d", "", " "), 1],
  ] as [string, PreviewView, number][])("previewBackMax: %s", (_n, preview, max) =>
    expect([layout(9).preview, previewBackMax(frame({ rows: 9, preview }))]).toEqual([3, max]),
  );
});

describe("draw: the message and keys rows", () => {
  // The filter being typed, the busy line, the outcome (green or red), and the keys each mode offers.
  it.each([
    ["nothing to say", {}, ["", KEYS_ROW(C)]],
    ["an outcome", { message: { text: "killed a", ok: true } }, [C("green", "killed a"), KEYS_ROW(C)]],
    [
      "a refusal, made printable",
      { message: { text: "ERR_X:\x1b[2J no", ok: false } },
      [C("red", "ERR_X: no"), KEYS_ROW(C)],
    ],
    [
      "the filter being typed",
      { mode: { kind: "filter", text: "ap" } },
      [`/ap${C("inverse", " ")}  ${C("dim", "Enter keeps it, Esc clears")}`, C("dim", " Esc closes")],
    ],
    [
      "busy",
      { mode: { kind: "busy", title: "landing" } },
      [C("yellow", "landing…"), C("dim", " Esc closes")],
    ],
    [
      "a message under a panel",
      { mode: { kind: "help" }, message: { text: "m", ok: true } },
      [C("green", "m"), C("dim", " Esc closes")],
    ],
  ] as [string, Partial<UiState>, string[]][])("%s", (_n, state, want) =>
    expect(draw(frame({ colour: true, cols: 90 }, state)).slice(-2)).toEqual(rows(90, ...want)),
  );

  it("the filter and busy modes keep the list and the preview", () => {
    for (const mode of [
      { kind: "filter", text: "" },
      { kind: "busy", title: "b" },
    ] as UiState["mode"][])
      expect(draw(frame({ preview: { kind: "text", lines: ["p"] } }, { mode })).slice(0, 6)).toEqual(
        rows(
          60,
          titleRow(" ariel  0 runs · 0 need you · 1 workspace"),
          "Needs you (0)",
          "  Nothing is waiting for you.",
          `── nothing selected ${RULE}`,
          "p",
          "",
        ),
      );
  });
});

const TITLE80 = C("inverse", fit(" ariel  0 runs · 0 need you · 1 workspace", 80));
const panelFrame = (mode: UiState["mode"], rowsN = 10) =>
  draw(frame({ cols: 80, rows: rowsN, colour: true }, { mode }));
/** The first rows of the help: its title, then the first keys. */
const HELP_TOP = [
  C("header", "Keys"),
  "  Enter        attach: be the run's terminal; Ctrl-] comes back here",
  "  n            new run: source or task, agent, command, isolate/span/sandbox",
  "  s            send a line to the run (typed, then Enter)",
  "  k            kill the run (asks): TERM to its group, KILL after 10 s",
];

describe("draw: the help panel", () => {
  // A panel takes the rows of the list, the preview's title and the preview; the keys row says Esc.
  it("help: every key, then how panels and attaching are left", () => {
    const want = [
      TITLE80,
      ...HELP_TOP,
      "  r            respawn: the same spec again (a live run is killed first)",
      "  R            respawn --resume: go on with the agent's conversation",
      "  d            the task's diff: per leg, commits, files, the patch",
      "  L            land the task: the plan, asks, each leg's outcome (all or none)",
      "  x            remove the task's worktrees (asks; refuses to lose work)",
      "  /            filter by name, source, task, command or state",
      "  ↑ K          the previous item (in the preview: scroll up)",
      "  ↓ j          the next item (in the preview: scroll down)",
      "  PgUp         a page up",
      "  PgDn Space   a page down",
      "  Tab          move between the list and the preview",
      "  ?            this help",
      "  q            quit (runs go on; nothing is stopped)",
      "",
      "  In a panel: Esc closes; y answers yes to a question, any other key no.",
      "  Attached: the detach key (Ctrl-] unless --detach-key) comes back to this list.",
      "",
      "",
      C("dim", " Esc closes"),
    ];
    expect(panelFrame({ kind: "help" }, 25)).toEqual(rows(80, ...want));
  });

  it("help cut to the panel's height", () =>
    expect(panelFrame({ kind: "help" }, 8)).toEqual(
      rows(80, TITLE80, ...HELP_TOP, "", C("dim", " Esc closes")),
    ));
});

describe("draw: a question", () => {
  // The title bold, the lines indented, what answers; without colour only bold stays.
  it("a question", () => {
    const mode: UiState["mode"] = {
      kind: "confirm",
      title: "kill a?",
      lines: ["one", "two"],
      yes: async () => {},
    };
    expect(panelFrame(mode)).toEqual(
      rows(
        80,
        TITLE80,
        C("bold", "kill a?"),
        "",
        "  one",
        "  two",
        "",
        `  ${C("waiting", "y")} yes   any other key: no`,
        "",
        "",
        C("dim", " Esc closes"),
      ),
    );
  });

  it("without colour, a panel keeps bold and inverse only", () => {
    const mode: UiState["mode"] = { kind: "confirm", title: "q", lines: [], yes: async () => {} };
    expect(draw(frame({ cols: 80 }, { mode }))).toEqual(
      rows(
        80,
        titleRow(" ariel  0 runs · 0 need you · 1 workspace", 80),
        N("bold", "q"),
        "",
        "",
        "  y yes   any other key: no",
        "",
        "",
        " Esc closes",
      ),
    );
  });
});

describe("draw: a prompt", () => {
  // The title bold, the text typed with a cursor, what Enter and Esc do.
  it("a prompt", () => {
    const mode: UiState["mode"] = {
      kind: "input",
      title: "send a line to a",
      text: "hi",
      submit: async () => {},
    };
    expect(panelFrame(mode)).toEqual(
      rows(
        80,
        TITLE80,
        C("bold", "send a line to a"),
        "",
        `  > hi${C("inverse", " ")}`,
        "",
        "  Enter sends (then Enter in the run), Esc cancels",
        "",
        "",
        "",
        C("dim", " Esc closes"),
      ),
    );
  });
});

/** The form's rows: the panel less the title line, the message and the keys. */
const formFrame = (mode: Extract<UiState["mode"], { kind: "form" }>) =>
  draw(frame({ cols: 80, rows: 21, colour: true }, { mode })).slice(1, -2);
/** The toggles' rows: those `on` checked, the one at `here` marked. */
const toggleRows = (on: string[], here: number) =>
  [
    ["isolate", "isolate (own worktree)", "--isolate"],
    ["keep", "keep the worktree when it ends", "--keep"],
    ["span", "span (one task over the sources)", "--span"],
    ["sandbox", "sandbox", "--sandbox"],
  ].map(
    ([id, label, flag], j) =>
      `${j === here ? C("waiting", "▶") : " "} [${on.includes(id!) ? "x" : " "}] ${label}  ${C("dim", flag!)}`,
  );
const FORM_HELP = "  ↑↓ move · type to fill · Space toggles · Enter starts · Esc cancels";

describe("draw: the new-run form", () => {
  // Each field (the cursor's with its completions), each toggle, the command line it stands for.

  it("the cursor on a field: its first six completions, the command line", () => {
    const form = newForm({ agent: "claude", name: "n1" });
    const complete = { source: ["a1", "a2", "a3", "a4", "a5", "a6", "a7"], task: ["t1"] };
    expect(formFrame({ kind: "form", title: "new run", form, complete })).toEqual(
      rows(
        80,
        C("bold", "new run"),
        "",
        `${C("waiting", "▶")} source   ${C("inverse", " ")}${C("dim", "  (Tab completes: a1 a2 a3 a4 a5 a6)")}`,
        "  task     ",
        "  agent    claude",
        "  command  ",
        "  name     n1",
        ...toggleRows([], -1),
        "",
        C("dim", "  ariel-spawn --detach --tty --name n1 -- claude"),
        "",
        FORM_HELP,
        "",
        "",
        "",
      ),
    );
  });

  it("the cursor on a field without completions", () => {
    const form = { ...newForm({ agent: "claude" }), row: 1 };
    expect(
      formFrame({ kind: "form", title: "t", form, complete: { task: [], source: ["s"] } }).slice(2, 4),
    ).toEqual(rows(80, "  source   ", `${C("waiting", "▶")} task     ${C("inverse", " ")}`));
  });
});

describe("draw: the new-run form, on a toggle", () => {
  // The toggle marked and checked; without a command, the placeholder, then the form's error.
  it("the cursor on a toggle, one on, nothing to run: the placeholder and the error", () => {
    const form = { ...newForm(), row: 6, on: ["isolate"], error: "name an agent or a command to run" };
    expect(formFrame({ kind: "form", title: "new run", form, complete: {} })).toEqual(
      rows(
        80,
        C("bold", "new run"),
        "",
        "  source   ",
        "  task     ",
        "  agent    ",
        "  command  ",
        "  name     ",
        ...toggleRows(["isolate"], 1),
        "",
        C("dim", "  (name an agent or a command)"),
        C("red", "  name an agent or a command to run"),
        "",
        FORM_HELP,
        "",
        "",
      ),
    );
  });
});

describe("draw: the pager", () => {
  // The lines wrapped to the width, a window of them with where it is, diff lines coloured.
  const LINES = ["diff --git a/x b/x", "@@ -1 +1 @@", "-old", "+new", " ctx", "a".repeat(100)];
  const pagerFrame = (lines: string[], scroll: number) =>
    draw(
      frame(
        { cols: 80, rows: 10, colour: true },
        { mode: { kind: "pager", title: "diff of t1", lines, scroll } },
      ),
    );
  const KEYS = C("dim", " ↑↓ j K scroll · PgUp PgDn · ] [ next/previous file · q Esc close");
  const head = (where: string) => C("bold", `diff of t1  ${C("dim", where)}`);

  it("from the top", () =>
    expect(pagerFrame(LINES, 0)).toEqual(
      rows(
        80,
        TITLE80,
        head("1-5 of 7"),
        C("bold", "diff --git a/x b/x"),
        C("cyan", "@@ -1 +1 @@"),
        C("red", "-old"),
        C("green", "+new"),
        " ctx",
        "",
        "",
        KEYS,
      ),
    ));

  it("scrolled to the end", () =>
    expect(pagerFrame(LINES, 3)).toEqual(
      rows(
        80,
        TITLE80,
        head("4-7 of 7"),
        C("green", "+new"),
        " ctx",
        "a".repeat(80),
        "a".repeat(20),
        "",
        "",
        "",
        KEYS,
      ),
    ));

  it("nothing to page", () =>
    expect(pagerFrame([], 0)).toEqual(rows(80, TITLE80, head("0-0 of 0"), "", "", "", "", "", "", "", KEYS)));
});

describe("wrap", () => {
  // Lines cut into rows of `cols` code points, made printable first.
  it.each([
    ["a short line", ["abc"], 5, ["abc"]],
    ["exactly as wide", ["abcde"], 5, ["abcde"]],
    ["one longer", ["abcdef"], 5, ["abcde", "f"]],
    ["two rows exactly", ["abcdef"], 3, ["abc", "def"]],
    ["an empty line stays", ["", "x"], 5, ["", "x"]],
    ["an empty line in no columns", [""], 0, [""]],
    ["code points, not code units", ["😀😀😀"], 2, ["😀😀", "😀"]],
    ["printable first", ["a\tb\x1b[31mc\x07"], 4, ["a  b", "c"]],
  ])("%s", (_n, lines, cols, want) => expect(wrap(lines, cols)).toEqual(want));
});

describe("colourDiff", () => {
  // git's colours: headers bold, hunks cyan, additions green, deletions red, the rest as it is.
  it.each([
    ["a file's header", "diff --git a/x b/x", C("bold", "diff --git a/x b/x")],
    ["a commit", "commit 0123 subject", C("bold", "commit 0123 subject")],
    ["not a commit", "commits", "commits"],
    ["not a diff header", "diff -u", "diff -u"],
    ["a hunk", "@@ -1,2 +1,3 @@ f", C("cyan", "@@ -1,2 +1,3 @@ f")],
    ["one @ is not a hunk", "@ x", "@ x"],
    ["an addition", "+x", C("green", "+x")],
    ["two pluses are an addition", "++x", C("green", "++x")],
    ["the new file's name", "+++ b/x", "+++ b/x"],
    ["a deletion", "-x", C("red", "-x")],
    ["two minuses are a deletion", "--x", C("red", "--x")],
    ["the old file's name", "--- a/x", "--- a/x"],
    ["context", " x", " x"],
    ["empty", "", ""],
    ["printable first", "+a\x1b[31mb\x07", C("green", "+ab")],
  ])("%s", (_n, line, want) => expect(colourDiff(line, C)).toBe(want));
  it("without colour, a header stays bold, the rest plain", () =>
    expect(["commit x", "+y", "-z", "@@ w"].map((l) => colourDiff(l, N))).toEqual([
      N("bold", "commit x"),
      "+y",
      "-z",
      "@@ w",
    ]));
});
