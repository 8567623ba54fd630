import type { FleetRun } from "@ariel/core";
import { describe, expect, it } from "vitest";
import { painter, plain, width } from "../text.ts";
import { fleetRun } from "./_fixture.ts";
import { duration, nextDurationChange, runDetail, runLine, runStatus, runWhere } from "./format.ts";
import type { RunItem } from "./items.ts";

const base = fleetRun({ name: "agent-1", lastLine: "Working…" });
const item = (over: Partial<FleetRun> = {}, more: Partial<RunItem> = {}): RunItem => ({
  kind: "run",
  key: "k",
  run: { ...base, ...over },
  attention: null,
  tool: null,
  fresh: false,
  ...more,
});

describe("duration", () => {
  it.each([
    [0, "<1m"],
    [59_999, "<1m"],
    [60_000, "1m"],
    [59 * 60_000, "59m"],
    [3 * 3600_000 + 5 * 60_000, "3h05m"],
    [50 * 3600_000, "2d02h"],
    [-5, "<1m"],
  ])("%d ms: %s", (ms, want) => expect(duration(ms)).toBe(want));

  it.each([
    [0, 60_000],
    [90_000, 30_000],
    [25 * 3600_000 + 10, 3600_000 - 10],
  ])("after %d ms the text changes in %d ms", (ms, want) => expect(nextDurationChange(0, ms)).toBe(want));
});

describe("a run's columns", () => {
  it.each([
    ["a source", {}, "api"],
    ["a task's leg", { task: "t1" }, "t1:api"],
    ["a task spanning legs", { task: "t1", legs: [{ source: "api" }, { source: "web" }] }, "t1(api,web)"],
    ["the root", { sources: [] }, "."],
  ])("where: %s", (_n, over, want) => expect(runWhere({ ...base, ...(over as object) })).toBe(want));

  it.each([
    ["live: its activity", { activity: "waiting" }, "waiting"],
    ["starting", { state: "starting" }, "starting"],
    ["failed with its status", { state: "failed", status: 2 }, "failed 2"],
    ["killed", { state: "killed" }, "killed"],
  ])("status: %s", (_n, over, want) =>
    expect(runStatus({ ...base, ...(over as object) } as FleetRun)).toBe(want),
  );

  it.each([
    ["the last line", item(), "Working…"],
    [
      "why it waits",
      item({ activity: "waiting" }, { attention: { to: "waiting", reason: "pattern: do you want" } }),
      "waiting: pattern: do you want",
    ],
    [
      "who said so, when the event says (agent reports)",
      item(
        { activity: "waiting" },
        { attention: { to: "waiting", reason: "Claude needs your permission to use Bash", source: "agent" } },
      ),
      "waiting (agent): Claude needs your permission to use Bash",
    ],
    ["the last tool an agent reported", item({}, { tool: "Bash" }), "tool Bash Working…"],
    [
      "a sandboxed run without network that waits: why first, then its tag",
      item(
        {
          activity: "waiting",
          sandbox: { write: [], hide: [], net: "none" },
        } as unknown as Partial<FleetRun>,
        { attention: { to: "waiting", reason: "Allow command?", source: "screen" } },
      ),
      "waiting (screen): Allow command? [sandbox no-net]",
    ],
    [
      "a sandboxed run",
      item({ sandbox: { write: [], hide: [], net: "on" } } as unknown as Partial<FleetRun>),
      "[sandbox] Working…",
    ],
  ])("detail: %s", (_n, it_, want) => expect(runDetail(it_)).toBe(want));

  it("a line is exactly as wide as asked, with or without colour", () => {
    for (const cols of [80, 100, 140]) {
      for (const colour of [true, false]) {
        const line = runLine(item(), 0, cols, Date.parse("2026-12-04T00:05:00Z"), painter(colour));
        expect(width(line)).toBe(cols);
        expect(plain(line)).toMatch(/^ {2}agent-1 +api +busy|^ {2}agent-1 +api +running/);
        expect(plain(line)).toContain("5m");
        if (!colour) expect(line).not.toContain("\x1b[3");
      }
    }
  });
});
