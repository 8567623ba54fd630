import { appendFileSync } from "node:fs";
import { runPaths } from "@ariel/core";
import { createRun, type KnownWorkspace, selfMonitorRef } from "@ariel/core/host";
import { describe, expect, it } from "vitest";
import { runFields } from "../../core/src/host/runs/_fixture.ts";
import {
  A,
  added,
  B,
  blank,
  colourEnv,
  cut,
  ended,
  env,
  event,
  foreground,
  frame24,
  historyLine,
  KEYS_ROW,
  LEAVE,
  listeners,
  RULE,
  render,
  start,
  styledRow,
  type Tui,
  useApp,
  workspace,
} from "./_app_fixture.ts";

const ENTER = "\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J";

useApp();

const listed = (rows: string[]) => !rows.includes("reading the fleet…");

describe("App.run: the terminal taken, the fleet read, the terminal given back", () => {
  // The busy frame first (synchronously, and the first painted), then the list; q ends with 0,
  // the terminal given back and every listener it added gone.
  it("q: 0; reading the fleet, then the list; the terminal given back as it was", async () => {
    const ws = await workspace();
    await ended(ws, A, { stdout: "one\ntwo\n" });
    const before = listeners();
    const t = start(ws);
    const busy = frame24(
      " ariel  0 runs · 0 need you · 1 workspace",
      [],
      "nothing selected",
      [],
      "reading the fleet…",
      " Esc closes",
    );
    expect(t.text()).toEqual(busy);
    expect(Object.values(added(before)).map((l) => l.length)).toEqual([1, 1, 1, 1, 1, 1]);
    const rows = await t.settle((r) => r[12] === "two", "the list and its preview");
    expect(rows).toEqual(
      frame24(
        " ariel  1 run · 0 need you · 1 workspace",
        [
          "Needs you (0)",
          "  Nothing is waiting for you.",
          "Ended (1)",
          "  agent          api            exited 0   <1m   two",
        ],
        `agent · log · ${A}`,
        ["one", "two"],
      ),
    );
    expect(t.output.writes[0]).toBe(ENTER);
    expect(await render(t.output.writes.slice(0, 2))).toEqual(busy);
    expect(t.input.calls.slice(0, 2)).toEqual(["raw true", "resume"]);
    t.type("q");
    expect(await t.code).toBe(0);
    expect(t.synced()).toBe(LEAVE);
    expect(t.input.calls.slice(-2)).toEqual(["raw false", "pause"]);
    expect(listeners()).toEqual(before);
    expect([t.input.listenerCount("data"), t.output.listenerCount("resize")]).toEqual([0, 0]);
  });

  it("keys while the fleet is read: none is acted on, not even ctrl-c", async () => {
    const ws = await workspace();
    const t = start(ws);
    t.type("q?\x03");
    const rows = await t.settle(listed, "the list");
    expect(rows[1]).toBe("Needs you (0)");
    expect(t.exited()).toBe(null);
    t.type("\x03");
    expect(await t.code).toBe(0);
  });

  it.each([
    ["in the list", ""],
    ["in the help", "?"],
    ["in the new-run form", "n"],
    ["in a question", "k"],
    ["in a prompt", "s"],
    ["in the filter", "/"],
  ])("ctrl-c %s: 0", async (_name, first) => {
    const ws = await workspace();
    await ended(ws, A);
    const t = start(ws);
    await t.settle((r) => r[10] === RULE(`agent · log · ${A}`), "the list");
    t.type(first);
    if (first !== "") await t.settle((r) => r[23] === " Esc closes", "the panel");
    t.type("\x03");
    expect(await t.code).toBe(0);
    expect(t.synced()).toBe(LEAVE);
  });
});

describe("App.run: signals and crashes", () => {
  // A signal ends it with the shell's status for it; an error nobody caught with 70, written
  // after the terminal is given back.
  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
    ["SIGINT", 130],
  ] as const)("%s: %i", async (signal, code) => {
    const ws = await workspace();
    const before = listeners();
    const t = start(ws);
    await t.settle(listed, "the list");
    const handlers = added(before)[signal];
    expect(handlers).toHaveLength(1);
    handlers[0]!();
    expect(await t.code).toBe(code);
    expect(t.synced()).toBe(LEAVE);
    expect(listeners()).toEqual(before);
  });

  it.each([
    [
      "an error",
      "uncaughtException",
      Object.assign(new Error("boom"), { stack: "Error: boom\n    at here" }),
      "Error: boom\n    at here",
    ],
    [
      "an error without a stack",
      "unhandledRejection",
      Object.assign(new Error("no stack"), { stack: undefined }),
      "no stack",
    ],
    ["not an error", "uncaughtException", "a string", "a string"],
  ] as const)(
    "%s nobody caught: 70, what it was written after the terminal is given back",
    async (_name, event, error, text) => {
      const ws = await workspace();
      const before = listeners();
      const t = start(ws);
      await t.settle(listed, "the list");
      const n = t.output.writes.length;
      added(before)[event][0]!(error);
      expect(await t.code).toBe(70);
      expect(t.synced()).toBe(LEAVE);
      expect(t.output.writes.slice(n)).toEqual([`ariel-tui: crashed (a bug; the runs go on): ${text}\n`]);
    },
  );

  it("the test crash key with ARIEL_TEST_HOOKS=1: a real uncaught error, 70", async () => {
    const ws = await workspace();
    const theirs = process.listeners("uncaughtException");
    for (const l of theirs) process.off("uncaughtException", l);
    try {
      const t = start(ws, { env: { ...env, ARIEL_TEST_HOOKS: "1", ARIEL_TEST_CRASH_KEY: "!" } });
      await t.settle(listed, "the list");
      t.type("!");
      expect(await t.code).toBe(70);
      expect(t.output.writes.at(-1)).toMatch(
        /^ariel-tui: crashed \(a bug; the runs go on\): Error: test crash\n {4}at .*\n$/s,
      );
    } finally {
      for (const l of theirs) process.on("uncaughtException", l);
    }
  });

  it.each([
    ["the crash key without ARIEL_TEST_HOOKS", { ARIEL_TEST_CRASH_KEY: "!" }, "!"],
    ["ARIEL_TEST_HOOKS=1 and another key", { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_CRASH_KEY: "!" }, "/"],
    ["ARIEL_TEST_HOOKS=2", { ARIEL_TEST_HOOKS: "2", ARIEL_TEST_CRASH_KEY: "!" }, "!"],
  ])("%s: no crash", async (_name, more, key) => {
    const ws = await workspace();
    const theirs = process.listeners("uncaughtException");
    for (const l of theirs) process.off("uncaughtException", l);
    try {
      const t = start(ws, { env: { ...env, ...more } });
      await t.settle(listed, "the list");
      t.type(key);
      await new Promise((r) => setImmediate(r));
      await t.settle((r) => r[22] === (key === "/" ? "/   Enter keeps it, Esc clears" : ""), "the key done");
      expect(t.exited()).toBe(null);
      t.type("\x03");
      expect(await t.code).toBe(0);
    } finally {
      for (const l of theirs) process.on("uncaughtException", l);
    }
  });
});

describe("App: the bell", () => {
  // A run that begins to wait rings once (with bell), never without; other moves do not ring.
  const bells = (t: Tui) => t.output.writes.filter((w) => w.includes("\x07"));

  it.each([
    [true, ["\x07"]],
    [false, []],
  ])(
    "bell %s: a run that begins to wait, after moves that are no wait; selected, it is no longer marked",
    async (bell, want) => {
      const ws = await workspace();
      foreground(ws, B);
      foreground(ws, A);
      const t = start(ws, { bell });
      const line = `${A.slice(0, 14)} api            starting   <1m`;
      await t.settle((r) => r[4] === `  ${line}` && r[5] === `  ${line}`, "the runs");
      t.type("j");
      await t.settle((r) => r[10] === RULE(`${B} · log · ${B}`), "B selected");
      appendFileSync(
        runPaths(ws.root, A).history,
        historyLine(A, { event: "run.attention", to: "busy", by: "timing" }) +
          historyLine(A, { event: "agent.tool", name: "Edit" }),
      );
      await t.settle((r) => r[4] === `  ${line}   tool Edit`, "the tool");
      expect(bells(t)).toEqual([]);
      event(ws, A, { event: "run.attention", to: "waiting", reason: "permission", by: "agent" });
      await t.settle((r) => r[4] === `● ${line}   tool Edit`, "the run marked");
      expect(bells(t)).toEqual(want);
      t.type("K");
      const rows = await t.settle((r) => r[10] === RULE(`${A} · log · ${A}`), "A selected");
      expect(rows.slice(4, 6)).toEqual([`  ${line}   tool Edit`, `  ${line}`]);
    },
  );
});

/** Six ended runs r1…r6 (r6 the newest: listed first). */
async function sixRuns(ws: KnownWorkspace): Promise<void> {
  for (let i = 1; i <= 6; i++) {
    await ended(ws, `20261202T11094${i}Z-rrrrr${i}`, {
      name: `r${i}`,
      endedAt: `2026-12-02T11:10:0${i}.000Z`,
    });
  }
}
const runRow = (name: string) => `  ${name.padEnd(14)} api            exited 0   <1m`;
const ruleOf = (name: string, i: number) => RULE(`${name} · log · 20261202T11094${i}Z-rrrrr${i}`);

describe("App: moving the selection", () => {
  // j/K/↑/↓ by one, PgUp/PgDn/Space by a page (the list's height less one), clamped at both ends;
  // the list scrolls to keep the selection, and a group's header above its first item, in view.
  it("a terminal of 10 rows: three list rows, a page of two", async () => {
    const ws = await workspace();
    await sixRuns(ws);
    const t = start(ws, { rows: 10 });
    const view = (list: string[], name: string, i: number) => (r: string[]) =>
      JSON.stringify(r.slice(1, 5)) === JSON.stringify([...list, ruleOf(name, i)]);
    const steps: [string, string[], string, number][] = [
      ["", ["  Nothing is waiting for you.", "Ended (6)", runRow("r6")], "r6", 6],
      ["K", ["  Nothing is waiting for you.", "Ended (6)", runRow("r6")], "r6", 6],
      ["\x1b[A", ["  Nothing is waiting for you.", "Ended (6)", runRow("r6")], "r6", 6],
      ["j", ["Ended (6)", runRow("r6"), runRow("r5")], "r5", 5],
      [" ", [runRow("r5"), runRow("r4"), runRow("r3")], "r3", 3],
      ["\x1b[6~", [runRow("r3"), runRow("r2"), runRow("r1")], "r1", 1],
      ["j", [runRow("r3"), runRow("r2"), runRow("r1")], "r1", 1],
      ["\x1b[B", [runRow("r3"), runRow("r2"), runRow("r1")], "r1", 1],
      ["\x1b[5~", [runRow("r3"), runRow("r2"), runRow("r1")], "r3", 3],
      ["K", [runRow("r4"), runRow("r3"), runRow("r2")], "r4", 4],
      ["\x1b[5~", ["Ended (6)", runRow("r6"), runRow("r5")], "r6", 6],
      ["\x1b[B\x1b[B\x1b[B", [runRow("r5"), runRow("r4"), runRow("r3")], "r3", 3],
    ];
    for (const [keys, list, name, i] of steps) {
      t.type(keys);
      const rows = await t.settle(view(list, name, i), `${JSON.stringify(keys)} to ${name}`);
      expect(rows).toHaveLength(10);
    }
  });

  it("a terminal of 24 rows: a page of eight", async () => {
    const ws = await workspace();
    for (let i = 1; i <= 12; i++) {
      const n = String(i).padStart(2, "0");
      await ended(ws, `20261202T1109${n}Z-pppp${n}`, {
        name: `p${n}`,
        endedAt: `2026-12-02T11:10:${n}.000Z`,
      });
    }
    const t = start(ws);
    const at = (n: string) => (r: string[]) => r[10] === RULE(`p${n} · log · 20261202T1109${n}Z-pppp${n}`);
    await t.settle(at("12"), "p12");
    const rowsOfP = (ns: string[]) => ns.map((n) => runRow(`p${n}`));
    t.type(" ");
    let rows = await t.settle(at("04"), "a page down");
    expect(rows.slice(1, 10)).toEqual(rowsOfP(["12", "11", "10", "09", "08", "07", "06", "05", "04"]));
    t.type("\x1b[5~");
    rows = await t.settle(at("12"), "a page up");
    expect(rows.slice(1, 10)).toEqual([
      "Ended (12)",
      ...rowsOfP(["12", "11", "10", "09", "08", "07", "06", "05"]),
    ]);
  });
});

describe("App: an empty list", () => {
  // Nothing to select: moving, attaching and the page keys do nothing; the flows say what is missing.
  it("no runs: the keys that move or attach do nothing; s, k, d say what to select; Esc clears it", async () => {
    const ws = await workspace();
    const t = start(ws);
    const empty = frame24(
      " ariel  0 runs · 0 need you · 1 workspace",
      ["Needs you (0)", "  Nothing is waiting for you."],
      "nothing selected",
      [],
    );
    expect(await t.settle(listed, "the list")).toEqual(empty);
    t.type("jK \x1b[5~\x1b[6~\r");
    expect(await t.settle((r) => r.length === 24, "the keys")).toEqual(empty);
    for (const [key, message] of [
      ["s", "select a run to send a line to"],
      ["k", "select a run to kill"],
      ["r", "select a run to respawn"],
      ["d", "select a task (or a run in one) to see its diff"],
    ]) {
      t.type(key!);
      expect(await t.settle((r) => r[22] === message, message!)).toEqual([
        ...empty.slice(0, 22),
        message,
        KEYS_ROW,
      ]);
    }
    t.type("\x1b");
    expect(await t.settle((r) => r[22] === "", "the message cleared")).toEqual(empty);
    expect(t.exited()).toBe(null);
  });
});

describe("App: the preview's focus", () => {
  // Tab moves the focus to the preview and back; there the up and down keys (k too) scroll it
  // back by a line or a page (its height less one), no further than its first line at the top
  // (one key down moves at once); a selection moved shows the end again.
  it("scrolls back a log of 30 lines to its first line, and forward to its end, no further", async () => {
    const ws = await workspace();
    const lines = Array.from({ length: 30 }, (_, i) => `line ${String(i + 1).padStart(2, "0")}`);
    await ended(ws, A, { stdout: `${lines.join("\n")}\n`, endedAt: "2026-12-02T11:10:09.000Z" });
    await ended(ws, B, { name: "other" });
    const t = start(ws);
    const rule = `agent · log · ${A}`;
    const shows = (focus: string, from: number, to: number) => (r: string[]) =>
      r[10] === RULE(`${focus}${rule}`) &&
      JSON.stringify(r.slice(11, 22)) ===
        JSON.stringify([...lines.slice(from - 1, to), ...blank(11 - (to - from + 1))]);
    await t.settle(shows("", 20, 30), "the log's end");
    const steps: [string, string, number, number][] = [
      ["\t", "▶ ", 20, 30],
      ["k", "▶ ", 19, 29],
      ["K", "▶ ", 18, 28],
      ["\x1b[A", "▶ ", 17, 27],
      ["j", "▶ ", 18, 28],
      ["\x1b[B\x1b[B\x1b[B", "▶ ", 20, 30],
      ["j", "▶ ", 20, 30],
      ["\x1b[5~", "▶ ", 10, 20],
      ["\x1b[5~", "▶ ", 1, 11],
      ["\x1b[5~", "▶ ", 1, 11],
      ["kkk", "▶ ", 1, 11],
      ["j", "▶ ", 2, 12],
      [" ", "▶ ", 12, 22],
      ["\t", "", 12, 22],
    ];
    for (const [keys, focus, from, to] of steps) {
      t.type(keys);
      await t.settle(shows(focus, from, to), `${JSON.stringify(keys)}: lines ${from}-${to}`);
    }
    t.type("j");
    await t.settle((r) => r[10] === RULE(`other · log · ${B}`), "the other run");
    t.type("K");
    const rows = await t.settle(shows("", 20, 30), "the log's end again");
    expect(rows[5]).toBe(runRow("other"));
  });
});

describe("App: the filter", () => {
  // `/` filters as it is typed; Enter keeps the filter, Esc clears it; `/` again edits the one kept.
  it("narrows the list as it is typed; Esc clears it; Enter keeps it", async () => {
    const ws = await workspace();
    await ended(ws, A, { name: "apple", endedAt: "2026-12-02T11:10:03.000Z" });
    await ended(ws, B, { name: "banana", endedAt: "2026-12-02T11:10:02.000Z" });
    await ended(ws, "20261202T110945Z-cccccc", { name: "cherry", endedAt: "2026-12-02T11:10:01.000Z" });
    const t = start(ws);
    const all = [
      "Needs you (0)",
      "  Nothing is waiting for you.",
      "Ended (3)",
      ...["apple", "banana", "cherry"].map(runRow),
    ];
    await t.settle((r) => r[10] === RULE(`apple · log · ${A}`), "the list");
    t.type("/an");
    expect(await t.settle((r) => r[22] === "/an   Enter keeps it, Esc clears", "the filter typed")).toEqual(
      frame24(
        " ariel  1 run · 0 need you · 1 workspace  filter: an",
        ["Needs you (0)", "  Nothing is waiting for you.", "Ended (1)", runRow("banana")],
        `banana · log · ${B}`,
        [],
        "/an   Enter keeps it, Esc clears",
        " Esc closes",
      ),
    );
    t.type("\x1b");
    expect(await t.settle((r) => r[23] === KEYS_ROW, "the filter cleared")).toEqual(
      frame24(" ariel  3 runs · 0 need you · 1 workspace", all, `banana · log · ${B}`, []),
    );
    t.type("/chx\x7f\r");
    expect(await t.settle((r) => r[23] === KEYS_ROW, "the filter kept")).toEqual(
      frame24(
        " ariel  1 run · 0 need you · 1 workspace  filter: ch",
        ["Needs you (0)", "  Nothing is waiting for you.", "Ended (1)", runRow("cherry")],
        "cherry · log · 20261202T110945Z-cccccc",
        [],
      ),
    );
    t.type("/");
    expect((await t.settle((r) => r[23] === " Esc closes", "the filter again"))[22]).toBe(
      "/ch   Enter keeps it, Esc clears",
    );
    t.type("\x7f\x7f");
    expect(await t.settle((r) => r[22] === "/   Enter keeps it, Esc clears", "the filter emptied")).toEqual(
      frame24(
        " ariel  3 runs · 0 need you · 1 workspace",
        all,
        "cherry · log · 20261202T110945Z-cccccc",
        [],
        "/   Enter keeps it, Esc clears",
        " Esc closes",
      ),
    );
  });

  it("a filter that leaves fewer rows than were scrolled past: the list scrolls back", async () => {
    const ws = await workspace();
    await sixRuns(ws);
    const t = start(ws, { rows: 10 });
    await t.settle((r) => r[4] === ruleOf("r6", 6), "the list");
    t.type("\x1b[6~\x1b[6~\x1b[6~");
    await t.settle((r) => r[4] === ruleOf("r1", 1), "the last run");
    t.type("/r2\r");
    const rows = await t.settle((r) => r[4] === ruleOf("r2", 2), "the filtered run");
    expect(rows.slice(1, 4)).toEqual(["  Nothing is waiting for you.", "Ended (1)", runRow("r2")]);
  });
});

describe("App: help", () => {
  // `?` shows the keys in place of the list; any key closes it and does nothing else.
  it("? opens the keys; j closes them, the selection where it was", async () => {
    const ws = await workspace();
    await ended(ws, A, { endedAt: "2026-12-02T11:10:09.000Z" });
    await ended(ws, B, { name: "other" });
    const t = start(ws);
    const list = await t.settle((r) => r[10] === RULE(`agent · log · ${A}`), "the list");
    t.type("?");
    const help = await t.settle((r) => r[1] === "Keys", "the help");
    expect([help[2], help[19], help[20], help[21], help[22], help[23]]).toEqual([
      "  Enter        attach: be the run's terminal; Ctrl-] comes back here",
      "",
      "  In a panel: Esc closes; y answers yes to a question, any other key no.",
      "  Attached: the detach key (Ctrl-] unless --detach-key) comes back to this list.",
      "",
      " Esc closes",
    ]);
    t.type("j");
    expect(await t.settle((r) => r[23] === KEYS_ROW, "the list again")).toEqual(list);
  });
});

describe("App: colour", () => {
  // NO_COLOR unset or empty: colours (a header, a screen's red); set: none (inverse and bold stay).
  it.each([
    ["unset", undefined, true],
    ["empty", "", true],
    ["set", "1", false],
  ])("NO_COLOR %s", async (_name, value, colour) => {
    const ws = await workspace();
    await ended(ws, A, { tty: true, stdout: "\x1b[31mred\x1b[0m plain\r\n" });
    const e = colourEnv();
    if (value !== undefined) e.NO_COLOR = value;
    const t = start(ws, { env: e });
    await t.settle((r) => r[11] === "red plain", "the screen");
    t.type("\r");
    await t.settle((r) => r[22] !== "", "the message");
    const said = "agent has ended (exited); its last screen is in the preview";
    const f = t.app.frame();
    expect([f[1], f[10], f[11], f[22]]).toEqual([
      colour ? styledRow("\x1b[1;36mNeeds you (0)\x1b[0m", 13) : "Needs you (0)".padEnd(80),
      `\x1b[1m${RULE(`▶ agent · screen · ${A}`)}\x1b[0m`,
      colour ? styledRow("\x1b[0;31mred\x1b[0m plain", 9) : "red plain".padEnd(80),
      colour ? styledRow(`\x1b[31m${said}\x1b[0m`, said.length) : said.padEnd(80),
    ]);
  });
});

describe("App: Enter on a run that is no live terminal", () => {
  // An ended run, or one without a terminal: said why (red when it ended), its preview focused.
  const live = { monitor: selfMonitorRef() };
  it.each([
    ["ended", {}, `agent · log · ${A}`, "agent has ended (exited); its log is in the preview", "31"],
    [
      "ended, a terminal",
      { tty: { cols: 40, rows: 6 } },
      `agent · screen · ${A}`,
      "agent has ended (exited); its last screen is in the preview",
      "31",
    ],
    [
      "ended, no name",
      { name: null },
      `${A} · log · ${A}`,
      `${A} has ended (exited); its log is in the preview`,
      "31",
    ],
    [
      "live, no terminal",
      live,
      `agent · log · ${A}`,
      "agent has no terminal (started without --tty): its log is in the preview",
      "32",
    ],
  ])("%s", async (_name, fields, rule, said, sgr) => {
    const ws = await workspace();
    await createRun(ws.root, runFields(ws, A, fields as Record<string, unknown>));
    if (!("monitor" in fields)) await ended(ws, A, { exitOnly: true });
    const t = start(ws, { env: colourEnv() });
    await t.settle((r) => r[10] === RULE(rule), "the run");
    t.type("\r");
    const rows = await t.settle((r) => r[22] !== "", "what it says");
    expect([rows[10], rows[22]]).toEqual([RULE(`▶ ${rule}`), said]);
    expect(t.app.frame()[22]).toBe(styledRow(`\x1b[${sgr}m${said}\x1b[0m`, said.length));
  });

  it("a foreground run: no terminal", async () => {
    const ws = await workspace();
    foreground(ws, A);
    const t = start(ws);
    await t.settle((r) => r[10] === RULE(`${A} · log · ${A}`), "the run");
    t.type("\r");
    const rows = await t.settle((r) => r[22] !== "", "what it says");
    expect([rows[10], rows[22]]).toEqual([
      RULE(`▶ ${A} · log · ${A}`),
      cut(`${A} has no terminal (started without --tty): its log is in the preview`),
    ]);
  });
});

describe("App: resize", () => {
  // A resize draws every row again (the screen cleared first) at the new size.
  it("to 100×30 and back; the same size again: every row drawn again", async () => {
    const ws = await workspace();
    await ended(ws, A, { stdout: "one\ntwo\n" });
    const t = start(ws);
    const at24 = await t.settle((r) => r[11] === "one", "the list");
    const resize = async (cols: number, rows: number) => {
      const n = t.output.writes.length;
      t.output.columns = cols;
      t.output.rows = rows;
      t.output.emit("resize");
      const shown = await t.settle((r) => r.length === rows && t.output.writes.length > n, `${cols}×${rows}`);
      expect(t.output.writes.slice(n).join("").startsWith("\x1b[?2026h\x1b[0m\x1b[H\x1b[2J\x1b[1;1H")).toBe(
        true,
      );
      return shown;
    };
    const at30 = await resize(100, 30);
    expect(at30).toEqual([
      " ariel  1 run · 0 need you · 1 workspace",
      "Needs you (0)",
      "  Nothing is waiting for you.",
      "Ended (1)",
      "  agent              api                exited 0    <1m    two",
      ...blank(8),
      `── agent · log · ${A} ${"─".repeat(100 - 41)}`,
      "one",
      "two",
      ...blank(12),
      "",
      KEYS_ROW,
    ]);
    expect(await resize(80, 24)).toEqual(at24);
    expect(await resize(80, 24)).toEqual(at24);
  });
});
