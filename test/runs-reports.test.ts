// What agents report (docs/runs.md, "What agents report"): fake agents that run their hooks
// (test/fixtures/agents/claude) and notify program (codex) with the documented payloads
// (packages/core/src/runs/agents/fixtures/), through the real reporter and the real monitor,
// from the built CLIs. Attention from the agent first, the screen as the fallback; agent.*
// events in the history, `list`, `show`, `ariel-fleet events` and the fleet's SSE; respawn
// --resume by session id; hostile reports refused and counted, and the agent never held up.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSse, register, serve, stateHome } from "./fleet_helpers.ts";
import { REPO_ROOT, records, runAriel } from "./helpers/cli.ts";
import { tempDir } from "./helpers/git.ts";
import {
  cleanUp,
  readJson,
  runDir,
  runHistory,
  runs,
  runsWorkspace,
  spawnD,
  TEST_ENV,
  until,
} from "./runs_helpers.ts";

afterEach(cleanUp);

const CLAUDE = join(REPO_ROOT, "test/fixtures/agents/claude");
const CODEX = join(REPO_ROOT, "test/fixtures/agents/codex");
const GEMINI = join(REPO_ROOT, "test/fixtures/agents/gemini");
const REPORTER = join(REPO_ROOT, "packages/cli-runs/dist/ariel-report.cjs");

/** Start a fake agent on a terminal as run `name`; `env` goes to the agent (through ariel-spawn). */
async function startAgent(
  root: string,
  name: string,
  argv: readonly string[],
  env: Record<string, string> = {},
  flags: readonly string[] = [],
): Promise<{ runId: string; log: string }> {
  const log = join(tempDir("ariel-agent-log-"), "hooks.ndjson");
  const r = await spawnD(root, ["--json", "--shared", "--tty", "--name", name, ...flags, "--", ...argv], {
    env: { FAKE_AGENT_LOG: log, ...env },
  });
  if (r.code !== 0) throw new Error(`spawn failed (${r.code}): ${r.stderr}`);
  return { runId: records(r.stdout)[0]!.runId as string, log };
}

/** The run `name` as `list --json` prints it. */
// biome-ignore lint/suspicious/noExplicitAny: parsed records, checked by the assertions
async function listed(root: string, name: string): Promise<Record<string, any>> {
  const all = records((await runs(root, ["list", "--all", "--json"])).stdout);
  return all.find((r) => r.name === name) ?? {};
}

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The moves of the run's activity: [from, to, by]. */
const moves = (root: string, runId: string) =>
  runHistory(root, runId)
    .filter((e) => e.event === "run.attention")
    .map((e) => [e.from, e.to, e.by]);

const agentEvents = (root: string, runId: string) =>
  runHistory(root, runId)
    .filter((e) => String(e.event).startsWith("agent."))
    .map(({ v: _v, type: _t, ts: _ts, runId: _r, source: _s, ...rest }) => rest);

/** What the hooks of a fake agent did (its FAKE_AGENT_LOG): event, when it started, exit status, stdout. */
function hookLog(
  log: string,
): { event: string; at: number; ms: number; status: number | null; stdout: string }[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** The reporting environment a run's child was given (read from /proc, as a hostile neighbour could). */
function reportEnv(root: string, runId: string): Record<string, string> {
  const pid = readJson(join(runDir(root, runId), "run.json")).child.pid as number;
  const env = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter((kv) => kv.startsWith("ARIEL_REPORT_"))
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
  return env;
}

/** Run the reporter bundle as a hook would: exit status and what it printed. */
function report(env: Record<string, string>, args: string[], input: string | Buffer = "") {
  const r = spawnSync(process.execPath, [REPORTER, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    input,
    encoding: "utf8",
    timeout: 10_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const payload = (agent: string, event: string, session = "s-1") => {
  const p = JSON.parse(
    readFileSync(join(REPO_ROOT, `packages/core/src/runs/agents/fixtures/${agent}/${event}.json`), "utf8"),
  );
  if ("session_id" in p) p.session_id = session;
  return JSON.stringify(p);
};

describe("Claude Code's hooks, wired for one run", () => {
  it("a permission request makes the run wait with Claude's words, the answer busy, Stop idle; every hook returns 0 printing nothing", async () => {
    const root = runsWorkspace();
    const { runId, log } = await startAgent(root, "c1", [CLAUDE]);
    const rec = readJson(join(runDir(root, runId), "run.json"));
    expect(rec.argv).toEqual([CLAUDE]);
    expect(rec.reports).toEqual({ agent: "claude", via: "claude-hooks" });
    // the settings file is the run's own, private, and passed on the command line only
    const settings = join(runDir(root, runId), "claude-settings.json");
    expect(statSync(settings).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(settings, "utf8")).hooks.PermissionRequest).toHaveLength(1);
    expect(existsSync(join(root, ".claude"))).toBe(false);
    await eventually(
      () => listed(root, "c1"),
      (r) => r.activity === "idle",
    );

    await runs(root, ["send", "c1", "ask", "--enter"]);
    // the request and its notification race (both waiting): the request's words are the move's
    const waiting = await eventually(
      () => listed(root, "c1"),
      (r) => r.activity === "waiting" && r.attention?.reason === "Claude needs your permission to use Bash",
    );
    expect(waiting.attention).toMatchObject({
      by: "agent",
      reason: "Claude needs your permission to use Bash",
    });
    expect((await runs(root, ["list", "--state", "waiting"])).stdout).toContain("\tc1\t");

    await runs(root, ["send", "c1", "1", "--enter"]);
    const idle = await eventually(
      () => listed(root, "c1"),
      (r) => r.attention?.reason === "turn ended",
    );
    expect(idle).toMatchObject({ activity: "idle", attention: { by: "agent" } });
    expect(idle.reported).toMatchObject({
      name: "claude",
      session: "fake-session-1",
      turns: 1,
      tools: 1,
      toolCalls: { Bash: 1 },
      lastTool: { name: "Bash", phase: "end", ok: true },
      reports: { refused: 0, malformed: 0, limited: 0 },
    });
    // the answer moved it to busy before Stop moved it to idle; the screen said nothing
    expect(moves(root, runId)).toEqual([
      ["busy", "idle", "agent"],
      ["idle", "busy", "agent"],
      ["busy", "waiting", "agent"],
      ["waiting", "busy", "agent"],
      ["busy", "idle", "agent"],
    ]);
    const events = agentEvents(root, runId);
    expect(events).toHaveLength(7);
    expect(events.slice(0, 3)).toEqual([
      { event: "agent.session", agent: "claude", id: "fake-session-1", transcript: expect.any(String) },
      { event: "agent.turn", agent: "claude", phase: "start" },
      { event: "agent.tool", agent: "claude", name: "Bash", phase: "start", ok: null },
    ]);
    // in the order they came
    expect(events.slice(3, 5)).toEqual(
      expect.arrayContaining([
        {
          event: "agent.notice",
          agent: "claude",
          kind: "permission_request",
          message: "Claude needs your permission to use Bash",
        },
        {
          event: "agent.notice",
          agent: "claude",
          kind: "permission_prompt",
          message: "Claude needs your permission",
        },
      ]),
    );
    expect(events.slice(5)).toEqual([
      { event: "agent.tool", agent: "claude", name: "Bash", phase: "end", ok: true },
      { event: "agent.turn", agent: "claude", phase: "end" },
    ]);
    // every hook returned, exit 0, nothing on stdout (Claude Code would read it as instructions)
    await until(() => hookLog(log).length >= 7);
    const hooks = hookLog(log);
    expect(hooks.map((h) => h.event)).toEqual(
      expect.arrayContaining([
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "Notification",
        "PostToolUse",
        "Stop",
      ]),
    );
    for (const h of hooks) expect([h.event, h.status, h.stdout]).toEqual([h.event, 0, ""]);
    // waiting within 500 ms of the hook, by the records' own clocks (the hook's start in the fake
    // agent's log, the move in the run's history); on a machine so loaded that the reporter alone
    // took longer, within twice the reporter's own time (bench/reports.mjs measures the median)
    const asking = hooks.filter((h) => h.event === "PermissionRequest" || h.event === "Notification");
    const asked = Math.min(...asking.map((h) => h.at));
    const moved = runHistory(root, runId).find((e) => e.event === "run.attention" && e.to === "waiting")!;
    const bound = Math.max(500, 2 * Math.max(...asking.map((h) => h.ms)));
    expect(Date.parse(moved.ts as string) - asked).toBeLessThanOrEqual(bound);

    // show: the same, from the history
    const show = records((await runs(root, ["show", "--json", "c1"])).stdout)[0]!;
    expect(show).toMatchObject({
      runId,
      activity: "idle",
      reported: { session: "fake-session-1", turns: 1, tools: 1 },
    });
    const text = (await runs(root, ["show", "c1"])).stdout;
    expect(text).toMatch(/^last tool +Bash \(done, /m);
    expect(text).toMatch(/^tool calls +1: Bash 1$/m);
  });

  it("a screen that looks like a question does not make a run wait while its agent says it is busy", async () => {
    const root = runsWorkspace();
    const { runId } = await startAgent(root, "busy", [CLAUDE]);
    await eventually(
      () => listed(root, "busy"),
      (r) => r.activity === "idle",
    );
    await runs(root, ["send", "busy", "looks", "--enter"]);
    await eventually(
      () => runs(root, ["screen", "busy"]),
      (r) => r.stdout.includes("(y/n)"),
    );
    // long past the screen's settle time (750 ms) and a few looks
    await new Promise((r) => setTimeout(r, 2000));
    expect(await listed(root, "busy")).toMatchObject({
      activity: "busy",
      attention: { by: "agent", reason: "prompt submitted" },
    });
    expect(moves(root, runId).some(([, to]) => to === "waiting")).toBe(false);
  });

  it("an agent that never reports (and a run not wired) falls back to its screen", async () => {
    const root = runsWorkspace();
    const silent = await startAgent(root, "silent", [CLAUDE], { FAKE_CLAUDE_NO_HOOKS: "1" });
    const off = await startAgent(root, "off", [CLAUDE], {}, ["--no-agent-reports"]);
    expect(readJson(join(runDir(root, silent.runId), "run.json")).reports).toEqual({
      agent: "claude",
      via: "claude-hooks",
    });
    expect(readJson(join(runDir(root, off.runId), "run.json")).reports).toBeUndefined();
    expect(existsSync(join(runDir(root, off.runId), "claude-settings.json"))).toBe(false);
    for (const name of ["silent", "off"]) {
      await runs(root, ["send", name, "looks", "--enter"]);
      const r = await eventually(
        () => listed(root, name),
        (v) => v.activity === "waiting",
      );
      expect([name, r.activity, r.attention?.by]).toEqual([name, "waiting", "screen"]);
      expect(r.reported ?? null).toBe(null);
    }
    expect(hookLog(off.log)).toEqual([]);
  });
});

describe("Codex's notify, wired for one run", () => {
  it("each turn's end makes the run idle by the agent; a changed screen decides again; the thread is its session", async () => {
    const root = runsWorkspace();
    const { runId, log } = await startAgent(root, "x1", [CODEX], { FAKE_CODEX_SESSION: "7f9f-thread" });
    await runs(root, ["send", "x1", "fix the tests", "--enter"]);
    const idle = await eventually(
      () => listed(root, "x1"),
      (r) => r.attention?.by === "agent",
    );
    expect(idle).toMatchObject({
      activity: "idle",
      attention: { reason: "turn complete" },
      reported: { session: "7f9f-thread", turns: 1 },
    });
    expect(agentEvents(root, runId)).toEqual([
      { event: "agent.session", agent: "codex", id: "7f9f-thread", transcript: null },
      { event: "agent.turn", agent: "codex", phase: "end" },
    ]);
    expect(hookLog(log).map((h) => [h.event, h.status, h.stdout])).toEqual([["notify", 0, ""]]);
    // the next prompt changes the screen: Codex reports no turn start, so the screen says busy
    await runs(root, ["send", "x1", "again", "--enter"]);
    await eventually(
      () => Promise.resolve(moves(root, runId)),
      (m) => m.some(([f, t, by]) => f === "idle" && t === "busy" && by === "screen"),
    );
  });
});

describe("Gemini CLI's hooks, wired for one run", () => {
  it("a copy of the system defaults with ariel's hooks added, the machine's untouched; asks → waiting with its words, done → idle", async () => {
    const root = runsWorkspace();
    const mine = join(tempDir("ariel-gemini-defaults-"), "system-defaults.json");
    const defaults = {
      ui: { theme: "corp" },
      hooks: { BeforeTool: [{ hooks: [{ name: "audit", type: "command", command: "true" }] }] },
    };
    writeFileSync(mine, `${JSON.stringify(defaults)}\n`);
    const { runId, log } = await startAgent(root, "g", [GEMINI], {
      GEMINI_CLI_SYSTEM_DEFAULTS_PATH: mine,
      FAKE_GEMINI_SESSION: "gem-1",
    });
    const rec = readJson(join(runDir(root, runId), "run.json"));
    expect([rec.argv, rec.reports]).toEqual([[GEMINI], { agent: "gemini", via: "gemini-hooks" }]);
    const copy = join(runDir(root, runId), "gemini-defaults.json");
    expect(readFileSync(`/proc/${rec.child.pid}/environ`, "utf8")).toContain(
      `\0GEMINI_CLI_SYSTEM_DEFAULTS_PATH=${copy}\0`,
    );
    const wired = JSON.parse(readFileSync(copy, "utf8"));
    expect(wired.ui).toEqual({ theme: "corp" });
    expect(wired.hooks.BeforeTool.map((g: { hooks: { name: string }[] }) => g.hooks[0]!.name)).toEqual([
      "audit",
      "ariel-report",
    ]);
    expect(JSON.parse(readFileSync(mine, "utf8"))).toEqual(defaults);
    await eventually(
      () => listed(root, "g"),
      (r) => r.activity === "idle" && r.attention?.by === "agent",
    );
    await runs(root, ["send", "g", "ask", "--enter"]);
    const waiting = await eventually(
      () => listed(root, "g"),
      (r) => r.activity === "waiting",
    );
    expect(waiting.attention).toMatchObject({ by: "agent", reason: "Allow execution of: npm test?" });
    await runs(root, ["send", "g", "1", "--enter"]);
    const idle = await eventually(
      () => listed(root, "g"),
      (r) => r.attention?.reason === "turn ended",
    );
    expect(idle).toMatchObject({
      activity: "idle",
      reported: {
        name: "gemini",
        session: "gem-1",
        turns: 1,
        tools: 1,
        lastTool: { name: "run_shell_command", ok: true },
      },
    });
    expect(moves(root, runId)).toEqual([
      ["busy", "idle", "agent"],
      ["idle", "busy", "agent"],
      ["busy", "waiting", "agent"],
      ["waiting", "busy", "agent"],
      ["busy", "idle", "agent"],
    ]);
    expect(agentEvents(root, runId).map((e) => [e.event, e.phase ?? e.kind ?? e.id])).toEqual([
      ["agent.session", "gem-1"],
      ["agent.turn", "start"],
      ["agent.tool", "start"],
      ["agent.notice", "ToolPermission"],
      ["agent.tool", "end"],
      ["agent.turn", "end"],
    ]);
    // Gemini waits for its hooks: each of ariel's returned 0 and printed nothing (its own too)
    const hooks = hookLog(log);
    expect(hooks.map((h) => [h.event, h.status, h.stdout])).toEqual([
      ["SessionStart", 0, ""],
      ["BeforeAgent", 0, ""],
      ["BeforeTool", 0, ""],
      ["BeforeTool", 0, ""],
      ["Notification", 0, ""],
      ["AfterTool", 0, ""],
      ["AfterAgent", 0, ""],
    ]);
  });
});

describe("respawn --resume by the session the agent reported", () => {
  it("two agents in one checkout each get their own conversation back (claude --resume ID, codex resume ID)", async () => {
    const root = runsWorkspace();
    const a = await startAgent(root, "a", [CLAUDE], { FAKE_CLAUDE_SESSION: "session-a" });
    const b = await startAgent(root, "b", [CLAUDE], { FAKE_CLAUDE_SESSION: "session-b" });
    const x = await startAgent(root, "x", [CODEX], { FAKE_CODEX_SESSION: "thread-x" });
    for (const n of ["a", "b"])
      await eventually(
        () => listed(root, n),
        (r) => r.reported?.session !== undefined,
      );
    await runs(root, ["send", "x", "go", "--enter"]);
    await eventually(
      () => listed(root, "x"),
      (r) => r.reported?.session === "thread-x",
    );

    const plan = records((await runs(root, ["respawn", "-n", "--json", "--resume", "x"])).stdout)[0]!;
    expect(plan.argv).toEqual([CODEX, "resume", "thread-x"]);
    for (const [name, session] of [
      ["a", "session-a"],
      ["b", "session-b"],
    ] as const) {
      const r = await runs(root, ["respawn", "--json", "--resume", name]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      const started = records(r.stdout)[0]!;
      expect(started.argv).toEqual([CLAUDE, "--resume", session]);
      const id = started.runId as string;
      // the resumed agent says so itself: its SessionStart (source resume) names the same session
      await until(() => agentEvents(root, id).some((e) => e.event === "agent.session"));
      expect(agentEvents(root, id)[0]).toMatchObject({ event: "agent.session", id: session });
      expect(await listed(root, name)).toMatchObject({ runId: id, reported: { session } });
    }
    expect([a.runId, b.runId, x.runId].length).toBe(3);
  });

  it("without a reported session it resumes the latest conversation, and says so", async () => {
    const root = runsWorkspace();
    await startAgent(root, "quiet", [CLAUDE], { FAKE_CLAUDE_NO_HOOKS: "1" });
    const r = await runs(root, ["respawn", "-n", "--json", "--resume", "quiet"]);
    expect(records(r.stdout)[0]!.argv).toEqual([CLAUDE, "--continue"]);
    expect(r.stderr).toContain("its agent reported no session; resuming the latest conversation");
  });
});

describe("reports that are not the agent's own change nothing, and never hold the agent up", () => {
  it("oversized, malformed, another run's secret, none, stale: refused and counted, the run's state unchanged", async () => {
    const root = runsWorkspace();
    const a = await startAgent(root, "a", [CLAUDE]);
    const b = await startAgent(root, "b", [CLAUDE]);
    for (const n of ["a", "b"])
      await eventually(
        () => listed(root, n),
        (r) => r.activity === "idle",
      );
    const envA = reportEnv(root, a.runId);
    const envB = reportEnv(root, b.runId);
    expect(Object.keys(envA).sort()).toEqual([
      "ARIEL_REPORT_RUN",
      "ARIEL_REPORT_SOCKET",
      "ARIEL_REPORT_TOKEN",
    ]);
    expect(envA.ARIEL_REPORT_TOKEN).not.toBe(envB.ARIEL_REPORT_TOKEN);
    const ask = payload("claude", "PermissionRequest");
    const cases: [string, Record<string, string>, string[], string | Buffer][] = [
      ["oversized", envA, ["claude"], Buffer.alloc(2 << 20, "x")],
      ["not JSON", envA, ["claude"], "{not json"],
      [
        "wrong types",
        envA,
        ["claude"],
        JSON.stringify({ hook_event_name: "PermissionRequest", tool_name: { rm: "-rf" } }),
      ],
      [
        "a flag for a session id",
        envA,
        ["claude"],
        JSON.stringify({ hook_event_name: "Stop", session_id: "--dangerously-skip-permissions" }),
      ],
      ["another run's secret", { ...envA, ARIEL_REPORT_TOKEN: envB.ARIEL_REPORT_TOKEN! }, ["claude"], ask],
      ["no secret", { ...envA, ARIEL_REPORT_TOKEN: "" }, ["claude"], ask],
      ["a forged secret", { ...envA, ARIEL_REPORT_TOKEN: "x".repeat(32) }, ["claude"], ask],
      ["another agent's payload", envA, ["codex", payload("codex", "agent-turn-complete")], ""],
    ];
    for (const [name, env, args, input] of cases) {
      expect([name, report(env, args, input)]).toEqual([name, { status: 0, stdout: "", stderr: "" }]);
    }
    const after = await eventually(
      () => listed(root, "a"),
      (r) => r.reported?.reports?.malformed === 5 && r.reported?.reports?.refused === 2,
    );
    expect(after).toMatchObject({
      activity: "idle",
      reported: { reports: { accepted: 1, refused: 2, malformed: 5, limited: 0 } },
    });
    expect((await listed(root, "b")).activity).toBe("idle");
    expect(moves(root, a.runId)).toEqual([["busy", "idle", "agent"]]);
    expect(readFileSync(join(root, ".ariel/monitor.log"), "utf8")).toContain(
      `run ${a.runId}: report not read`,
    );

    // stale: the secret of a run that was respawned is refused for the old run and the new one
    const r = await runs(root, ["respawn", "--json", "a"]);
    const next = records(r.stdout)[0]!.runId as string;
    await eventually(
      () => listed(root, "a"),
      (v) => v.runId === next && v.activity === "idle",
    );
    for (const run of [a.runId, next]) report({ ...envA, ARIEL_REPORT_RUN: run }, ["claude"], ask);
    await eventually(
      () => listed(root, "a"),
      (v) => v.reported?.reports?.refused === 1,
    );
    expect(await listed(root, "a")).toMatchObject({
      activity: "idle",
      reported: { reports: { refused: 1 } },
    });
    expect(moves(root, next).some(([, to]) => to === "waiting")).toBe(false);
  });

  it("a thousand reports in a second: another's are refused and cost the run nothing, its own are bounded; the monitor answers", async () => {
    const root = runsWorkspace();
    const { runId, log } = await startAgent(root, "f", [CLAUDE]);
    await eventually(
      () => listed(root, "f"),
      (r) => r.activity === "idle",
    );
    const env = reportEnv(root, runId);
    const line = (token: string) =>
      `${JSON.stringify({ v: 1, op: "report", runId, token, agent: "claude", at: Date.now(), payload: JSON.parse(payload("claude", "PostToolUse")) })}\n`;
    const flood = (token: string) =>
      new Promise<void>((resolve) => {
        const sock = connect(env.ARIEL_REPORT_SOCKET!);
        sock.on("error", () => resolve());
        sock.on("data", () => {});
        sock.once("connect", () => sock.end(line(token).repeat(1000), () => resolve()));
      });
    // a thousand with a forged secret while the agent asks: its own reports still count
    const [, asked] = await Promise.all([
      flood("y".repeat(env.ARIEL_REPORT_TOKEN!.length)),
      runs(root, ["send", "f", "ask", "--enter"]),
    ]);
    expect(asked.code).toBe(0);
    // The request and its notification race (test 1): both counted once both have come.
    const waiting = await eventually(
      () => listed(root, "f"),
      (r) =>
        r.attention?.reason === "Claude needs your permission to use Bash" &&
        r.reported?.reports?.accepted >= 5,
    );
    expect(waiting).toMatchObject({
      activity: "waiting",
      attention: { by: "agent" },
      reported: { reports: { accepted: 5, refused: 1000, malformed: 0, limited: 0 } },
    });
    await until(() => hookLog(log).length >= 5);
    expect(hookLog(log).map((h) => [h.status, h.stdout])).toEqual(Array(5).fill([0, ""]));
    // a thousand with its own secret (only the run's processes have it): over the rate, dropped
    await flood(env.ARIEL_REPORT_TOKEN!);
    const after = await eventually(
      () => listed(root, "f"),
      (r) => (r.reported?.reports?.accepted ?? 0) + (r.reported?.reports?.limited ?? 0) >= 1005,
    );
    const counts = after.reported.reports;
    expect(counts.refused).toBe(1000);
    expect(counts.limited).toBeGreaterThan(0);
    expect(counts.accepted).toBeLessThan(1000);
    expect(counts.accepted + counts.limited).toBe(1005);
    expect(readFileSync(join(root, ".ariel/monitor.log"), "utf8")).toMatch(
      new RegExp(`run ${runId}: reports over 50/s dropped \\(\\d+ so far\\)`),
    );
    expect((await runs(root, ["list", "--json"])).code).toBe(0);
  });

  it("the reporter returns 0 at once, printing nothing, with no monitor, a stopped one, or outside a wired run", async () => {
    const root = runsWorkspace();
    const { runId } = await startAgent(root, "m", [CLAUDE]);
    await eventually(
      () => listed(root, "m"),
      (r) => r.activity === "idle",
    );
    const env = reportEnv(root, runId);
    const ask = payload("claude", "PermissionRequest");
    const quiet = { status: 0, stdout: "", stderr: "" };
    expect(report({}, ["claude"], ask)).toEqual(quiet);
    expect(report({ ...env, ARIEL_REPORT_SOCKET: join(root, "no.sock") }, ["claude"], ask)).toEqual(quiet);
    const monitor = readJson(join(runDir(root, runId), "run.json")).monitor.pid as number;
    process.kill(monitor, "SIGSTOP");
    try {
      expect(report(env, ["claude"], ask)).toEqual(quiet);
    } finally {
      process.kill(monitor, "SIGCONT");
    }
    // a report the stopped monitor took late still counts: it was the run's own
    await eventually(
      () => listed(root, "m"),
      (r) => r.activity === "waiting",
    );
    // the same through ariel-runs report (what a hand-made hook would call)
    const viaCli = await runAriel("runs", ["report", "claude"], {
      env: { ...TEST_ENV, ...env },
      input: payload("claude", "Stop"),
    });
    expect([viaCli.code, viaCli.stdout, viaCli.stderr]).toEqual([0, "", ""]);
    await eventually(
      () => listed(root, "m"),
      (r) => r.activity === "idle",
    );
    const bad = await runAriel("runs", ["report", "aider"]);
    expect([bad.code, bad.stderr.split("\n")[0]]).toEqual([
      64,
      'ariel-runs: error: no reporting agent "aider" [ERR_USAGE]',
    ]);
  });
});

describe("agent events in the fleet", () => {
  it("ariel-fleet events --type 'agent.*' and the event stream's ?event=agent.* carry them", async () => {
    const root = runsWorkspace();
    const state = stateHome();
    await register(state.dir, root);
    const env = { ...state.env, ARIEL_MONITOR_IDLE_MS: "1500" };
    const log = join(tempDir("ariel-agent-log-"), "hooks.ndjson");
    const r = await spawnD(root, ["--json", "--shared", "--tty", "--name", "c", "--", CLAUDE], {
      env: { ...env, FAKE_AGENT_LOG: log },
    });
    const runId = records(r.stdout)[0]!.runId as string;
    const server = await serve([], env);
    try {
      const sse = readSse(
        `${server.url}api/events/stream?since=2000-01-01T00:00:00Z&event=agent.*,run.attention`,
        {},
        (_m, all) => all.some((m) => m.event === "agent.turn" && JSON.parse(m.data).phase === "end"),
      );
      await eventually(
        () => listed(root, "c"),
        (v) => v.activity === "idle",
      );
      await runs(root, ["send", "c", "ask", "--enter"], { env });
      await eventually(
        () => listed(root, "c"),
        // the permission request and its notification are reported together, in either order:
        // the request's words win once both are in
        (v) =>
          v.activity === "waiting" &&
          v.reported?.lastTool !== null &&
          v.attention?.reason === "Claude needs your permission to use Bash",
      );
      const view = (await (await fetch(`${server.url}api/runs/${runId}`)).json()) as Record<string, unknown>;
      expect(view).toMatchObject({
        activity: "waiting",
        attention: { by: "agent", reason: "Claude needs your permission to use Bash" },
        reported: { lastTool: { name: "Bash", phase: "start" } },
      });
      await runs(root, ["send", "c", "1", "--enter"], { env });
      const got = await sse;
      const names = got.messages.map((m) => m.event);
      expect(names).toEqual(
        expect.arrayContaining([
          "agent.session",
          "agent.tool",
          "agent.notice",
          "run.attention",
          "agent.turn",
        ]),
      );
      expect(names.every((n) => n.startsWith("agent.") || n === "run.attention")).toBe(true);
      const tool = got.messages
        .map((m) => JSON.parse(m.data))
        .find((e) => e.event === "agent.tool" && e.phase === "end");
      expect(tool).toMatchObject({
        workspace: expect.any(String),
        runId,
        agent: "claude",
        name: "Bash",
        ok: true,
      });
    } finally {
      await server.stop();
    }
    const cli = await runAriel("fleet", ["events", "--json", "--type", "agent.*"], { env });
    const events = records(cli.stdout);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => String(e.event).startsWith("agent."))).toBe(true);
    const plain = await runAriel("fleet", ["events", "--type", "agent.tool"], { env });
    expect(plain.stdout).toMatch(new RegExp(`\\t${runId}\\t\\d+\\tagent\\.tool\\tclaude Bash end\\n`));
    const bad = await runAriel("fleet", ["events", "--type", "agent"], { env });
    expect([bad.code, bad.stderr.split("\n")[0]]).toEqual([
      64,
      'ariel-fleet: error: no event "agent" [ERR_USAGE]',
    ]);
  });
});
