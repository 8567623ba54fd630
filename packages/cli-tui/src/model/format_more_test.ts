/**
 * More of format.ts: durations at the unit edges, when the text next changes for a run that did
 * not start at 0, every where/status/detail branch, whole run lines (columns per terminal width,
 * mark, indent, colour per state), task lines and titles cut with an ellipsis.
 */
import type { FleetRun } from "@ariel/core";
import { describe, expect, it } from "vitest";
import { painter } from "../text.ts";
import { fleetRun } from "./_fixture.ts";
import {
  duration,
  ellipsis,
  nextDurationChange,
  runDetail,
  runLine,
  runStatus,
  runWhere,
  taskLine,
} from "./format.ts";
import type { RunItem, TaskItem } from "./items.ts";

const START = Date.parse("2026-12-04T00:00:00.000Z");
/** The fixed clock: 3h05m after the run started. */
const NOW = START + 3 * 3600_000 + 5 * 60_000;
const TEN_MIN = "2026-12-04T00:10:00.000Z";

const base = fleetRun({ name: "agent-1", lastLine: "Working…" });
const run = (over: object = {}) => ({ ...base, ...over }) as FleetRun;
const item = (over: object = {}, more: Partial<RunItem> = {}): RunItem => ({
  kind: "run",
  key: "k",
  run: run(over),
  attention: null,
  tool: null,
  fresh: false,
  ...more,
});

describe("duration: the unit edges", () => {
  // Pinned: the exact text on each side of an hour and a day.
  it.each([
    [59 * 60_000 + 59_999, "59m"],
    [60 * 60_000, "1h00m"],
    [61 * 60_000, "1h01m"],
    [23 * 3600_000 + 59 * 60_000, "23h59m"],
    [24 * 3600_000, "1d00h"],
    [48 * 3600_000 + 59 * 60_000, "2d00h"],
    [10 * 24 * 3600_000 + 5 * 3600_000, "10d05h"],
  ])("%d ms: %s", (ms, want) => expect(duration(ms)).toBe(want));
});

describe("nextDurationChange: from a run's own start", () => {
  // Pinned: ms until the text changes, for starts other than 0 (and one in the future).
  it.each([
    ["a minute in", 1_000, 61_000, 60_000],
    ["half a minute in", 10_000, 40_000, 30_000],
    ["one ms before a day", 5_000, 5_000 + 24 * 3600_000 - 1, 1],
    ["exactly a day: hours from now on", 5_000, 5_000 + 24 * 3600_000, 3600_000],
    ["a day and a minute", 5_000, 5_000 + 24 * 3600_000 + 60_000, 3540_000],
    ["a start 5 s ahead of the clock", 65_000, 60_000, 65_000],
  ])("%s", (_n, start, now, want) => expect(nextDurationChange(start, now)).toBe(want));
});

describe("runWhere: every form", () => {
  // Pinned: the exact where text.
  it.each([
    ["a task with no legs: its sources", { task: "t1", legs: [] }, "t1:api"],
    ["a leg without a source", { task: "t1", legs: [{ source: "api" }, {}] }, "t1(api,?)"],
    ["a task over two sources", { task: "t1", sources: ["api", "web"] }, "t1:api,web"],
    ["a task at the root", { task: "t1", sources: [] }, "t1:."],
    ["two sources", { sources: ["api", "web"] }, "api,web"],
    ["legs without a task: the sources", { legs: [{ source: "x" }] }, "api"],
  ])("%s", (_n, over, want) => expect(runWhere(run(over))).toBe(want));
});

describe("runStatus: every state", () => {
  // Pinned: the exact status text.
  it.each([
    ["starting with an activity", { state: "starting", activity: "busy" }, "busy"],
    ["running without one", { state: "running" }, "running"],
    ["exited with its status", { state: "exited", status: 0 }, "exited 0"],
    ["exited, status unknown", { state: "exited", status: null }, "exited ?"],
    ["failed, status unknown", { state: "failed", status: null }, "failed ?"],
    ["lost", { state: "lost" }, "lost"],
    ["crashed", { state: "crashed", activity: "busy" }, "crashed"],
  ])("%s", (_n, over, want) => expect(runStatus(run(over))).toBe(want));
});

describe("runDetail: when the reason shows, and empty parts", () => {
  // Pinned: the exact detail text; the reason only when the run waits and its last move says so.
  it.each<[string, RunItem, string]>([
    ["waiting, no attention yet: the last line", item({ activity: "waiting" }), "Working…"],
    [
      "an attention to waiting on a busy run: the last line",
      item({ activity: "busy" }, { attention: { to: "waiting", reason: "quiet" } }),
      "Working…",
    ],
    [
      "a waiting run whose last move was to busy: the last line",
      item({ activity: "waiting" }, { attention: { to: "busy", reason: "output" } }),
      "Working…",
    ],
    ["no output yet", item({ lastLine: null }), ""],
    ["a sandbox, no output yet", item({ lastLine: null, sandbox: { net: "on" } }), "[sandbox]"],
    ["a tool, no output yet", item({ lastLine: null }, { tool: "Edit" }), "tool Edit"],
    ["no sandbox", item({ sandbox: null }), "Working…"],
    [
      "a waiting sandboxed run: the reason, then the tag",
      wait({ sandbox: { net: "on" } }),
      "waiting: quiet [sandbox]",
    ],
  ])("%s", (_n, it_, want) => expect(runDetail(it_)).toBe(want));
});

function wait(over: object): RunItem {
  return item({ activity: "waiting", ...over }, { attention: { to: "waiting", reason: "quiet" } });
}

describe("runLine: the columns per width", () => {
  // Pinned: whole plain lines; widths 14/14/10/5 below 90 columns, 18/18/11/6 to 119, then 22/22/12/6.
  it.each([
    [80, "  agent-1        api            running    3h05m Working…                       "],
    [89, `  agent-1        api            running    3h05m Working…${" ".repeat(32)}`],
    [90, "  agent-1            api                running     3h05m  Working…                       "],
    [
      100,
      "  agent-1            api                running     3h05m  Working…                                 ",
    ],
    [119, `  agent-1            api                running     3h05m  Working…${" ".repeat(52)}`],
    [
      120,
      "  agent-1                api                    running      3h05m  Working…                                            ",
    ],
    [
      140,
      "  agent-1                api                    running      3h05m  Working…                                                                ",
    ],
  ])("%d columns", (cols, want) => expect(runLine(item(), 0, cols, NOW, painter(false))).toBe(want));

  it("a run under its task is indented", () => {
    expect(runLine(item(), 1, 80, NOW, painter(false))).toBe(
      "    agent-1      api            running    3h05m Working…                       ",
    );
  });

  it("a run with no start yet is under a minute old", () => {
    expect(runLine(item({ startedAt: null }), 0, 60, NOW, painter(false))).toBe(
      "  agent-1        api            running    <1m   Working…   ",
    );
  });
});

describe("runLine: mark and colour per state", () => {
  // Pinned: whole coloured lines at 60 columns; the status column's style names the state.
  const Y = "\x1b[33m● \x1b[0m";
  const W = "\x1b[1;33m● \x1b[0m";
  const line = (mark: string, status: string, dur: string) =>
    `${mark}agent-1        api            ${status} ${dur} \x1b[2mWorking…\x1b[0m   \x1b[0m`;
  const ended = (state: string, status: number | null = null) => item({ state, status, endedAt: TEN_MIN });
  it.each<[string, RunItem, string]>([
    ["busy: green", item({ activity: "busy" }), line("  ", "\x1b[32mbusy      \x1b[0m", "3h05m")],
    [
      "waiting: a yellow mark",
      item({ activity: "waiting" }),
      line(Y, "\x1b[1;33mwaiting   \x1b[0m", "3h05m"),
    ],
    [
      "fresh: the waiting mark",
      item({ activity: "busy" }, { fresh: true }),
      line(W, "\x1b[32mbusy      \x1b[0m", "3h05m"),
    ],
    ["failed: red", ended("failed", 2), line("  ", "\x1b[31mfailed 2  \x1b[0m", "10m  ")],
    ["lost: red", ended("lost"), line("  ", "\x1b[31mlost      \x1b[0m", "10m  ")],
    ["crashed: red", ended("crashed"), line("  ", "\x1b[31mcrashed   \x1b[0m", "10m  ")],
    ["exited: dim", ended("exited", 0), line("  ", "\x1b[2mexited 0  \x1b[0m", "10m  ")],
    ["starting: dim", item({ state: "starting" }), line("  ", "\x1b[2mstarting  \x1b[0m", "3h05m")],
    ["killed: dim", ended("killed"), line("  ", "\x1b[2mkilled    \x1b[0m", "10m  ")],
  ])("%s", (_n, it_, want) => expect(runLine(it_, 0, 60, NOW, painter(true))).toBe(want));
});

describe("taskLine", () => {
  // Pinned: whole task lines; legs not active say their state, the run count its plural, a task
  // not active its state.
  const task = (state: string, legs: TaskItem["legs"]): TaskItem => ({
    kind: "task",
    key: "task:h/t1",
    workspace: { root: "/w", hash: "h" },
    taskId: "t1",
    state,
    legs,
    createdAt: null,
  });
  const api = { source: "api", branch: "ariel/t1", state: "active" };
  const web = { source: "web", branch: "ariel/t1", state: "landed" };
  const head = "\x1b[35m▸ \x1b[0m\x1b[1mtask t1\x1b[0m  ";
  it.each<[string, TaskItem, number, number, string]>([
    [
      "two legs, two runs",
      task("active", [api, web]),
      2,
      50,
      `${head}api, web(landed)  \x1b[2m2 runs\x1b[0m${" ".repeat(15)}\x1b[0m`,
    ],
    [
      "one run, landed",
      task("landed", [api]),
      1,
      40,
      `${head}api  \x1b[2m1 run, landed\x1b[0m${" ".repeat(11)}\x1b[0m`,
    ],
    [
      "no run",
      task("active", [web]),
      0,
      40,
      `${head}web(landed)  \x1b[2m0 runs\x1b[0m${" ".repeat(10)}\x1b[0m`,
    ],
    ["cut to the width", task("active", [api, web]), 2, 12, `${head}a\x1b[0m`],
  ])("%s", (_n, t, runs, cols, want) => expect(taskLine(t, runs, cols, painter(true))).toBe(want));

  it("without colour only the bold stays", () => {
    expect(taskLine(task("removed", [api]), 3, 36, painter(false))).toBe(
      `▸ \x1b[1mtask t1\x1b[0m  api  3 runs, removed${" ".repeat(5)}\x1b[0m`,
    );
  });
});

describe("ellipsis", () => {
  // Pinned: the exact title: whole when it fits, else cut, trailing spaces dropped, then `…`.
  it.each([
    ["shorter", "hi", 5, "hi"],
    ["exactly as wide", "hello", 5, "hello"],
    ["one too wide", "hello", 4, "hel…"],
    ["cut at a space", "ab cd", 4, "ab…"],
    ["a leading space stays", " abcdef", 4, " ab…"],
    ["a wide character that would straddle the edge", "漢字x", 4, "漢…"],
    ["room for the mark only", "hello", 1, "…"],
    ["no room at all", "hello", 0, ""],
    ["less than none (a terminal narrower than the frame)", "hello", -3, ""],
    ["nothing fits nothing", "", 0, ""],
  ])("%s", (_n, text, cols, want) => expect(ellipsis(text, cols)).toBe(want));
});
