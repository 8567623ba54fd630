import { describe, expect, it } from "vitest";
import type { SpawnUnit } from "../spawn/plan.ts";
import {
  type DetachOptions,
  type PlannedRun,
  planRun,
  respawnPlan,
  runName,
  validateRunName,
} from "./plan.ts";
import type { RunRecord } from "./record.ts";

const ID = "20261202T110943Z-abc123";
const T = "2026-12-02T11:09:43.000Z";

function unit(over: Partial<SpawnUnit> = {}): SpawnUnit {
  return {
    source: "api",
    sources: ["api"],
    cwd: "/w/api",
    worktree: null,
    branch: null,
    overlay: [],
    legs: [],
    argv: ["make", "test"],
    env: { ARIEL_RUN_ID: ID },
    ...over,
  };
}

function options(over: Partial<DetachOptions> = {}): DetachOptions {
  return {
    name: "agent",
    restart: { policy: "on-failure", max: 3, count: 2 },
    timeoutMs: null,
    graceMs: 10_000,
    onExit: null,
    interactive: false,
    isolate: null,
    task: null,
    group: ID,
    ...over,
  };
}

const AT = { runId: ID, root: "/w", hash: "0123456789abcdef", createdAt: T, several: false, respawnOf: null };

/** What planRun gives for unit() and options(). */
const PLANNED: PlannedRun = {
  v: 1,
  type: "run",
  runId: ID,
  name: "agent",
  group: ID,
  backend: "local",
  workspace: { root: "/w", hash: "0123456789abcdef" },
  source: "api",
  cwd: "/w/api",
  task: null,
  worktree: null,
  branch: null,
  argv: ["make", "test"],
  createdAt: T,
  startedAt: null,
  endedAt: null,
  monitor: null,
  child: null,
  restart: { policy: "on-failure", max: 3, count: 0 },
  respawnOf: null,
  exit: null,
  timeoutMs: null,
  graceMs: 10_000,
  onExit: null,
  interactive: false,
  isolate: null,
  kill: null,
  worktreeOutcome: null,
};

describe("validateRunName", () => {
  it.each(["a", "agent", "Agent-1.x_y", `a${"b".repeat(127)}`])("accepts %j", (name) => {
    expect(validateRunName(name)).toBe(name);
  });
  it.each([
    ["", '""'],
    ["-agent", '"-agent"'],
    [".agent", '".agent"'],
    ["a b", '"a b"'],
    ["a/b", '"a/b"'],
    ["agent@api", '"agent@api"'],
    [`a${"b".repeat(128)}`, `"a${"b".repeat(63)}"...`],
  ])("refuses %j", (name, quoted) => {
    let err: unknown;
    try {
      validateRunName(name);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: "ERR_INVALID_NAME",
      message: `invalid run name ${quoted}`,
      hint: "use letters, digits, '.', '_' and '-' only",
      context: { name },
    });
  });
});

describe("runName", () => {
  it.each([
    [null, true, "api", null],
    [null, false, "api", null],
    ["agent", false, "api", "agent"],
    ["agent", true, "api", "agent@api"],
  ] as const)("runName(%j, several=%s, %j) = %j", (name, several, source, want) => {
    expect(runName(name, several, source)).toBe(want);
  });
});

describe("planRun", () => {
  it("a run in a checkout: its spec, starting, with the restart count at 0", () => {
    expect(planRun(unit(), options(), AT)).toEqual(PLANNED);
  });

  it.each<[string, Partial<SpawnUnit>, Partial<DetachOptions>, boolean, Partial<PlannedRun>]>([
    ["one of several targets: the name gets its source", {}, {}, true, { name: "agent@api" }],
    [
      "a --span process of several: the name gets every source",
      { source: null, sources: ["api", "web"] },
      {},
      true,
      { name: "agent@api,web", source: null },
    ],
    ["no name", {}, { name: null }, true, { name: null }],
    [
      "an on-exit hook: the default timeout",
      {},
      { onExit: ["notify-send", "done"] },
      false,
      { onExit: ["notify-send", "done"], onExitTimeoutMs: 60_000 },
    ],
    [
      "an on-exit hook with its timeout",
      {},
      { onExit: ["notify-send"], onExitTimeoutMs: 5000 },
      false,
      { onExit: ["notify-send"], onExitTimeoutMs: 5000 },
    ],
    ["an on-exit timeout without a hook is not kept", {}, { onExitTimeoutMs: 5000 }, false, {}],
    [
      "a tty without an agent",
      {},
      { tty: { cols: 80, rows: 24 } },
      false,
      { tty: { cols: 80, rows: 24 }, agent: null },
    ],
    [
      "a tty with an agent",
      {},
      { tty: { cols: 80, rows: 24 }, agent: "aider" },
      false,
      { tty: { cols: 80, rows: 24 }, agent: "aider" },
    ],
    ["an agent without a tty is not kept", {}, { agent: "aider" }, false, {}],
    ["a null tty", {}, { tty: null }, false, {}],
    ["a notify command", {}, { notify: ["notify-send"] }, false, { notify: ["notify-send"] }],
    [
      "a sandbox",
      {},
      { sandbox: { write: ["/w"], hide: [], net: "none" } },
      false,
      { sandbox: { write: ["/w"], hide: [], net: "none" } },
    ],
    [
      "claude by its command: its reports wired",
      { argv: ["/usr/local/bin/claude", "-p", "x"] },
      {},
      false,
      { argv: ["/usr/local/bin/claude", "-p", "x"], reports: { agent: "claude", via: "claude-hooks" } },
    ],
    [
      "codex named by --agent",
      { argv: ["codex"] },
      { agent: "codex" },
      false,
      { argv: ["codex"], reports: { agent: "codex", via: "codex-notify" } },
    ],
    [
      "--agent generic over claude's command: no reports",
      { argv: ["claude"] },
      { agent: "generic" },
      false,
      { argv: ["claude"] },
    ],
    ["--no-agent-reports", { argv: ["claude"] }, { agentReports: false }, false, { argv: ["claude"] }],
    [
      "agent reports asked for",
      { argv: ["gemini"] },
      { agentReports: true },
      false,
      { argv: ["gemini"], reports: { agent: "gemini", via: "gemini-hooks" } },
    ],
    [
      "an isolated task run",
      { worktree: "/w/.ariel/worktrees/t1/api", branch: "ariel/t1" },
      { task: "t1", isolate: { onExit: "remove", created: true } },
      false,
      {
        task: "t1",
        worktree: "/w/.ariel/worktrees/t1/api",
        branch: "ariel/t1",
        isolate: { onExit: "remove", created: true },
      },
    ],
  ])("%s", (_name, u, o, several, want) => {
    expect(planRun(unit(u), options(o), { ...AT, several })).toEqual({ ...PLANNED, ...want });
  });

  it("keeps the unit's legs and argv as copies", () => {
    const legs = [
      { source: "api", worktree: "/w/.ariel/worktrees/t1/api", branch: "ariel/t1" },
      { source: "web", worktree: "/w/.ariel/worktrees/t1/web", branch: "ariel/t1" },
    ];
    const u = unit({ source: null, sources: ["api", "web"], legs });
    const planned = planRun(u, options(), AT);
    expect(planned.legs).toEqual(legs);
    expect(planned.legs?.[0]).not.toBe(legs[0]);
    expect(planned.argv).not.toBe(u.argv);
  });
});

describe("respawnPlan", () => {
  it("the same spec under a new id, linked to the old run, with nothing of its life", () => {
    const old: RunRecord = {
      ...PLANNED,
      tty: { cols: 80, rows: 24 },
      agent: "claude",
      startedAt: T,
      endedAt: T,
      monitor: { pid: 10, startTime: "5", bootId: "b" },
      child: { pid: 11, pgid: 11, startTime: "6" },
      restart: { policy: "on-failure", max: 3, count: 3 },
      exit: { code: 1, signal: null, status: 1, endedAt: T, state: "failed", reason: null },
      kill: { requestedAt: T, signal: "SIGTERM", reason: "kill" },
      worktreeOutcome: { outcome: "kept", reason: "dirty" },
      version: 7,
      fencingToken: 3,
    };
    expect(
      respawnPlan(old, { runId: "20261203T000000Z-zzzzzz", createdAt: "2026-12-03T00:00:00.000Z" }),
    ).toEqual({
      ...PLANNED,
      tty: { cols: 80, rows: 24 },
      agent: "claude",
      runId: "20261203T000000Z-zzzzzz",
      createdAt: "2026-12-03T00:00:00.000Z",
      restart: { policy: "on-failure", max: 3, count: 0 },
      respawnOf: ID,
    });
  });
});
