import { describe, expect, it } from "vitest";
import { errorOf } from "../_fixture.ts";
import { eachMaps } from "../testing/cases.ts";
import { closesRun, type FleetEvent, finishedState, normalizeEvent, selectEventNames } from "./events.ts";

const origin = { workspace: "ae89cb2b620ea8fc", runId: "20261202T110943Z-k3x9a2", seq: 7 };
const ts = "2026-12-02T11:09:44.120Z";
const fixed = { v: 1, type: "event", ts, ...origin };
const ev = (event: string, fields: Record<string, unknown> = {}) => ({
  v: 1,
  type: "event",
  event,
  runId: origin.runId,
  ts,
  source: "api",
  ...fields,
});

describe("normalizeEvent", () => {
  it.each([
    [
      "run.started passes",
      ev("run.started", { argv: ["make"] }),
      { ...fixed, event: "run.started", source: "api", argv: ["make"] },
    ],
    [
      "process.started is run.state starting→running",
      ev("process.started", { pid: 4 }),
      { ...fixed, event: "run.state", source: "api", pid: 4, from: "starting", to: "running" },
    ],
    [
      "process.exited is run.exited",
      ev("process.exited", { code: 1, signal: null, status: 1 }),
      { ...fixed, event: "run.exited", source: "api", code: 1, signal: null, status: 1 },
    ],
    [
      "run.finished exit 0 is run.state →exited",
      ev("run.finished", { source: null, summary: { exit: 0 } }),
      { ...fixed, event: "run.state", source: null, summary: { exit: 0 }, from: "running", to: "exited" },
    ],
    [
      "run.finished exit 1 is →failed",
      ev("run.finished", { summary: { exit: 1 } }),
      { ...fixed, event: "run.state", source: "api", summary: { exit: 1 }, from: "running", to: "failed" },
    ],
    [
      "an interrupted run.finished is →killed",
      ev("run.finished", { summary: { exit: 130 }, interrupted: "SIGINT" }),
      {
        ...fixed,
        event: "run.state",
        source: "api",
        summary: { exit: 130 },
        interrupted: "SIGINT",
        from: "running",
        to: "killed",
      },
    ],
    [
      "a monitor's run.finished names its state",
      ev("run.finished", { source: null, state: "killed", status: 143 }),
      {
        ...fixed,
        event: "run.state",
        source: null,
        state: "killed",
        status: 143,
        from: "running",
        to: "killed",
      },
    ],
    [
      "an output line gets its newline back as data",
      ev("output", { stream: "stdout", line: "hi" }),
      { ...fixed, event: "output", source: "api", stream: "stdout", data: "hi\n" },
    ],
    [
      "a partial output line has none",
      ev("output", { stream: "stderr", line: "hi", partial: true }),
      { ...fixed, event: "output", source: "api", stream: "stderr", partial: true, data: "hi" },
    ],
    [
      "a detached run's output chunk keeps its data, its seq is the line's",
      { v: 1, type: "output", seq: 99, ts, stream: "stdout", data: "a\nb" },
      { ...fixed, event: "output", stream: "stdout", data: "a\nb" },
    ],
    [
      "worktree.kept passes",
      ev("worktree.kept", { task: "t", reason: "ERR_DIRTY" }),
      { ...fixed, event: "worktree.kept", source: "api", task: "t", reason: "ERR_DIRTY" },
    ],
    ["run.lost passes", ev("run.lost"), { ...fixed, event: "run.lost", source: "api" }],
    [
      "an agent's event passes (what agents report)",
      ev("agent.tool", { agent: "claude", name: "Bash", phase: "end", ok: false }),
      {
        ...fixed,
        event: "agent.tool",
        source: "api",
        agent: "claude",
        name: "Bash",
        phase: "end",
        ok: false,
      },
    ],
    [
      "run.attention keeps who moved the run",
      ev("run.attention", {
        from: "busy",
        to: "waiting",
        reason: "Claude needs your permission",
        by: "agent",
      }),
      {
        ...fixed,
        event: "run.attention",
        source: "api",
        from: "busy",
        to: "waiting",
        reason: "Claude needs your permission",
        by: "agent",
      },
    ],
    [
      "credentials in a URL are redacted",
      ev("run.started", { argv: ["git", "clone", "https://user:secret@example.com/r.git"] }),
      { ...fixed, event: "run.started", source: "api", argv: ["git", "clone", "https://example.com/r.git"] },
    ],
    [
      "credentials nested in an object are redacted, other values kept",
      ev("run.started", { env: { REMOTE: "https://user:secret@example.com/r.git", N: 3, X: null } }),
      {
        ...fixed,
        event: "run.started",
        source: "api",
        env: { REMOTE: "https://example.com/r.git", N: 3, X: null },
      },
    ],
    [
      "fields cannot override the fixed ones",
      ev("run.lost", { workspace: "x", seq: 1 }),
      { ...fixed, event: "run.lost", source: "api" },
    ],
  ])("%s", (_name, input, expected) => {
    expect(normalizeEvent(input as Record<string, unknown>, origin)).toEqual(expected);
  });

  it.each([
    ["an unknown event", ev("disk.low")],
    ["another version", { ...ev("run.started"), v: 2 }],
    ["no ts", { ...ev("run.started"), ts: undefined }],
    ["not an event", { v: 1, type: "plan" }],
    ["another type naming an event", { v: 1, type: "plan", event: "run.lost", ts }],
    ["an output event without a line", ev("output", { stream: "stdout" })],
    ["an output chunk without data", { v: 1, type: "output", ts, stream: "stdout" }],
  ])("skips %s", (_name, input) => {
    expect(normalizeEvent(input as Record<string, unknown>, origin)).toBeNull();
  });
});

describe("finishedState", () => {
  eachMaps(
    finishedState,
    [
      [{ state: "exited" }, "exited"],
      [{ state: "failed", summary: { exit: 0 } }, "failed"],
      [{ state: "killed", summary: { exit: 0 } }, "killed"],
      [{ state: "lost", summary: { exit: 0 } }, "exited"],
      [{ interrupted: "SIGINT", summary: { exit: 0 } }, "killed"],
      [{ summary: { exit: 0 } }, "exited"],
      [{ summary: { exit: 2 } }, "failed"],
      [{}, "failed"],
    ],
    "%j ends %j",
  );
});

describe("closesRun", () => {
  const event = (name: string, fields: Record<string, unknown> = {}) =>
    ({ v: 1, type: "event", event: name, ts, ...origin, ...fields }) as FleetEvent;
  it.each([
    ["run.exited", true, event("run.exited", { status: 0 })],
    ["run.lost", true, event("run.lost")],
    ["a run.state to a final state", true, event("run.state", { from: "running", to: "failed" })],
    ["a run.state to running", false, event("run.state", { from: "starting", to: "running" })],
    ["output", false, event("output", { data: "x\n" })],
    ["worktree.created", false, event("worktree.created")],
  ])("%s closes its run: %s", (_n, closes, e) => {
    expect(closesRun(e)).toBe(closes);
  });
});

describe("selectEventNames (ariel-fleet events --type, the stream's ?event=)", () => {
  it.each([
    ["a name", ["run.state"], ["run.state"]],
    ["a glob", ["agent.*"], ["agent.session", "agent.turn", "agent.tool", "agent.notice"]],
    [
      "names and globs, in the fleet's order",
      ["agent.t*", "run.attention"],
      ["run.attention", "agent.turn", "agent.tool"],
    ],
    ["a glob that is every event's", ["*"], null],
    [
      "a star inside a name",
      ["worktree.*ed"],
      ["worktree.created", "worktree.removed", "worktree.snapshotted"],
    ],
  ] as const)("%s", (_name, patterns, expected) => {
    const got = [...selectEventNames(patterns)];
    if (expected === null) expect(got.length).toBeGreaterThan(10);
    else expect(got).toEqual(expected);
  });

  it.each([
    ["an unknown name", "agent", 'no event "agent"'],
    ["a glob that matches none", "tool.*", 'no event "tool.*"'],
    ["a regular expression is not one", "agent.(tool|turn)", 'no event "agent.(tool|turn)"'],
  ])("%s is ERR_USAGE, naming the events", (_name, pattern, message) => {
    const e = errorOf(() => selectEventNames([pattern]));
    expect([e.code, e.message]).toEqual(["ERR_USAGE", message]);
    expect(e.hint).toContain("agent.session, agent.turn, agent.tool, agent.notice");
  });
});
