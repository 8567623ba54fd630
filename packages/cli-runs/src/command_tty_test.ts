import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { lines, poll, RUNS_BIN, runsIn, startRun, usage } from "./_fixture.ts";

// ariel-runs on a tty run (screen, send, attach) and respawn, in this process on real runs (see
// _fixture.ts). Being a run's terminal (attach on a live tty run without --from or --json) needs
// this process's own terminal: test/runs_tty*.test.ts drive it through a pty.
let ws: string;
const ids: Record<string, string> = {};
const runs = (argv: string[], options: Parameters<ReturnType<typeof runsIn>>[1] = {}) =>
  runsIn(ws)(argv, options);

/** The tty run's screen text once it shows `text` (its output reaches the monitor's screen a little later). */
const screenShows = async (text: string) =>
  (
    await poll(
      () => runs(["screen", "term"]),
      (r) => r.stdout.includes(text),
    )
  ).stdout;

beforeAll(async () => {
  ws = tempDir("ariel-runs-tty-");
  initRepo(join(ws, "api"));
  // says hello, reads one line, says what it got, then waits to be killed
  ids.term = startRun(ws, "term", 'printf "hello\\n"; read line; echo "got:$line"; exec sleep 60', [
    "--tty",
    "--size",
    "30x6",
  ]);
  ids.plain = startRun(ws, "plain", "echo once");
  await runs(["wait", "--timeout", "10s", "plain"]);
});
afterAll(async () => {
  await runs(["kill", "term"]);
  removeDir(ws);
});

describe("ariel-runs (in-process): screen and send", () => {
  it("screen: the text, --json with size and cursor, --ansi ending in a reset", async () => {
    expect(await screenShows("hello")).toBe("hello\n");
    const json = await runs(["screen", "--json", "term"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      v: 1,
      type: "screen",
      runId: ids.term,
      state: "running",
      cols: 30,
      rows: 6,
      cursor: { x: 0, y: 1 },
      lines: ["hello", "", "", "", "", ""],
    });
    // home, clear, the text, the cursor put back where the run has it (one down, five left), reset
    expect(await runs(["screen", "--ansi", "term"])).toEqual({
      code: 0,
      stdout: "\x1b[H\x1b[2Jhello\x1b[1B\x1b[5D\x1b[0m\n",
      stderr: "",
    });
  });

  it("screen: --ansi with --json is 64; a run without a terminal is 64 with where its output is", async () => {
    const both = await runs(["screen", "--ansi", "--json", "term"]);
    expect(both).toMatchObject({ code: 64, stdout: "" });
    expect(JSON.parse(both.stderr)).toEqual({
      v: 1,
      type: "error",
      code: "ERR_USAGE",
      message: "--ansi and --json: choose one",
      hint: "run ariel-runs screen --help to see the flags",
      exit: 64,
    });
    expect(await runs(["screen", "plain"])).toEqual({
      code: 64,
      stdout: "",
      stderr:
        `ariel-runs: error: run ${ids.plain} has no terminal: it was not started with --tty [ERR_USAGE]\n` +
        "ariel-runs: hint: read its output with ariel-runs logs plain\n",
    });
  });

  it("send: TEXT and --text together, or nothing at all, is 64 and types nothing", async () => {
    expect(await runs(["send", "term", "x", "--text", "y"])).toEqual(
      usage("send takes TEXT or --text, not both", "send"),
    );
    expect(await runs(["send", "term"])).toEqual(usage("send needs TEXT, --enter, or both", "send"));
    expect(await screenShows("hello")).toBe("hello\n");
  });

  it("send --text=-y --enter types text that starts with '-', then Enter: the run reads the line", async () => {
    expect(await runs(["send", "term", "--text=-y", "--enter"])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await screenShows("got:-y")).toBe("hello\n-y\ngot:-y\n");
  });
});

describe("ariel-runs (in-process): attach without being the terminal", () => {
  it("attach --from 0 of a live tty run replays its output and follows it until ^C: the run goes on", async () => {
    const seen: string[] = [];
    const attached = runs(["attach", "--from", "0", "term"], { onStdout: (t) => void seen.push(t) });
    let ended = false;
    void attached.finally(() => {
      ended = true;
    });
    const until = Date.now() + 10_000;
    while (!ended && !seen.join("").includes("got:") && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(seen.join("")).toContain("hello");
    // ^C as Node hands it to attach's listener (emitted: see cli-spawn's command_edges_test.ts)
    expect(process.listenerCount("SIGINT")).toBe(1);
    process.emit("SIGINT", "SIGINT");
    const r = await attached;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`ariel-runs: detached from ${ids.term}; it goes on (ariel-runs attach term)\n`);
    expect(process.listenerCount("SIGINT")).toBe(0);
    expect(lines((await runs(["list"])).stdout).map((l) => l.split("\t")[1])).toEqual(["term"]);
  });

  it("attach --json of a live run, ended by its caller: the output records, and no note", async () => {
    const stop = new AbortController();
    // (at the latest after 10 s: an attach that never prints fails here instead of waiting on)
    const latest = setTimeout(() => stop.abort(), 10_000);
    const attached = runs(["attach", "--json", "term"], {
      signal: stop.signal,
      onStdout: (t) => {
        if (t.includes('"type":"output"')) stop.abort();
      },
    });
    const r = await attached;
    clearTimeout(latest);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(JSON.parse(lines(r.stdout)[0] as string)).toMatchObject({
      v: 1,
      type: "output",
      runId: ids.term,
      seq: 0,
      stream: "stdout",
    });
  });

  it("attach of an ended run: its output, then it returns (no end line or record: that is logs -f)", async () => {
    expect(await runs(["attach", "plain"])).toEqual({ code: 0, stdout: "once\n", stderr: "" });
    const json = await runs(["attach", "--json", "--stream", "stdout", "plain"]);
    expect(lines(json.stdout).map((l) => JSON.parse(l))).toEqual([
      { v: 1, type: "output", runId: ids.plain, seq: 0, stream: "stdout", data: "once\n" },
    ]);
  });

  it.each([
    [["--from", "x"], '--from needs an integer >= 0, got "x"'],
    [["--stream", "both"], '--stream needs stdout or stderr, got "both"'],
  ])("attach %j: 64 before any run is read", async (flags, message) => {
    expect(await runs(["attach", ...flags, "term"])).toEqual(usage(message, "attach"));
  });

  it("attach --detach-key that is not a control key: 64 with an example", async () => {
    expect(await runs(["attach", "--detach-key", "q", "term"])).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-runs: error: --detach-key: expected ctrl-X or none, got "q" [ERR_USAGE]\n' +
        "ariel-runs: hint: e.g. --detach-key ctrl-] (the default) or --detach-key ctrl-q\n",
    });
  });
});

describe("ariel-runs (in-process): respawn", () => {
  it("respawn -n: the run it would start, as a line or a plan record; 2 with --detailed-exitcode", async () => {
    const n = await runs(["respawn", "-n", "plain"]);
    expect(n.code).toBe(0);
    expect(n.stdout).toMatch(new RegExp(`^would respawn ${ids.plain} as \\d{8}T\\d{6}Z-[a-z0-9]+\\n$`));
    const plan = await runs(["respawn", "-n", "--json", "--detailed-exitcode", "plain"]);
    expect(plan.code).toBe(2);
    expect(JSON.parse(plan.stdout)).toMatchObject({
      v: 1,
      type: "plan",
      action: "run.respawn",
      state: "starting",
      name: "plain",
      respawnOf: ids.plain,
      argv: ["sh", "-c", "echo once"],
    });
    expect(lines((await runs(["list", "--all"])).stdout)).toHaveLength(2);
  });

  it("respawn --resume of a command with no agent preset that resumes: 64, nothing started", async () => {
    const r = await runs(["respawn", "--resume", "plain"]);
    expect(r).toEqual({
      code: 64,
      stdout: "",
      stderr:
        `ariel-runs: error: run plain (${ids.plain}): its agent preset (generic) has no resume form [ERR_USAGE]\n` +
        "ariel-runs: hint: respawn without --resume starts it afresh; presets with one: claude, codex, aider\n",
    });
  });

  it("respawn: the same command under a new run id, in the same group, linked to the old one", async () => {
    // A monitor this process starts is the bundle run again.
    const argv1 = process.argv[1];
    process.argv[1] = RUNS_BIN;
    const r = await runs(["respawn", "plain"]).finally(() => {
      process.argv[1] = argv1 as string;
    });
    expect(r.code).toBe(0);
    const [row] = lines(r.stdout).map((l) => l.split("\t"));
    const again = row?.[0] as string;
    expect(again).not.toBe(ids.plain);
    expect(row?.[1]).toBe("plain");
    await runs(["wait", "--timeout", "10s", again]);
    expect(await runs(["logs", again])).toEqual({ code: 0, stdout: "once\n", stderr: "" });
    const shown = JSON.parse((await runs(["show", "--json", again])).stdout);
    const old = JSON.parse((await runs(["show", "--json", ids.plain as string])).stdout);
    expect(shown).toMatchObject({ respawnOf: ids.plain, group: old.group, state: "exited" });
  });
});

describe("ariel-runs (in-process): report", () => {
  it("an agent ariel does not read reports from: 64 with the ones it does", async () => {
    const r = await runs(["report", "vim", "{}"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(
      /^ariel-runs: error: no reporting agent "vim" \[ERR_USAGE\]\nariel-runs: hint: one of claude, /,
    );
  });

  it("outside a wired run: nothing printed, 0", async () => {
    expect(await runs(["report", "claude", '{"hook_event_name":"Stop"}'])).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
  });
});

// The fake Codex of the end-to-end tests: each line typed is a turn, after which it runs the
// notify program ariel wired into its argv with the documented payload.
const CODEX = fileURLToPath(new URL("../../../test/fixtures/agents/codex", import.meta.url));

describe("ariel-runs (in-process): a run whose agent reports", () => {
  beforeAll(() => {
    ids.agent = startRun(ws, "agent", [CODEX], ["--tty"], { FAKE_CODEX_SESSION: "thread-7" });
  });
  afterAll(async () => {
    await runs(["kill", "agent"]);
  });

  it("before its first report: show says how it reports, with no session and no turn; respawn --resume takes the latest conversation, with a warning", async () => {
    const shown = (await runs(["show", "agent"])).stdout.split("\n");
    expect(shown.slice(2)).toEqual([
      `command     ${CODEX}`,
      `where       api (${join(ws, "api")})`,
      "sandbox     none",
      "agent       codex (codex-notify)",
      "session     -",
      "turns       0",
      "tool calls  0",
      "last tool   -",
      "",
    ]);
    const n = await runs(["respawn", "-n", "--json", "--resume", "agent"]);
    expect(n.code).toBe(0);
    expect(JSON.parse(n.stdout).argv).toEqual([CODEX, "resume", "--last"]);
    expect(JSON.parse(n.stderr)).toEqual({
      v: 1,
      type: "warning",
      code: "WARN_RESUME_LATEST",
      message: `run ${ids.agent}: its agent reported no session; resuming the latest conversation in its directory`,
      runId: ids.agent,
    });
  });

  it("after a turn: show names its session, the turn and the report counts; respawn --resume takes that session", async () => {
    expect((await runs(["send", "agent", "fix it", "--enter"])).code).toBe(0);
    const shown = (
      await poll(
        () => runs(["show", "agent"]),
        (r) => r.stdout.includes("turns       1") && r.stdout.includes(", idle since"),
      )
    ).stdout;
    const rows = shown.split("\n");
    expect(rows[1]).toMatch(/^state {7}running, idle since \S+: turn complete \(by agent\)$/);
    expect(rows.slice(5)).toEqual([
      "agent       codex (codex-notify); reports: 1 taken, 0 refused, 0 not read, 0 over the rate",
      "session     thread-7",
      "turns       1",
      "tool calls  0",
      "last tool   -",
      "",
    ]);
    const json = JSON.parse((await runs(["show", "--json", "agent"])).stdout);
    expect(json).toMatchObject({
      activity: "idle",
      attention: { by: "agent", reason: "turn complete" },
      reported: {
        name: "codex",
        via: "codex-notify",
        session: "thread-7",
        transcript: null,
        turns: 1,
        tools: 0,
        toolCalls: {},
        lastTool: null,
        lastNotice: null,
        reports: { accepted: 1, refused: 0, malformed: 0, limited: 0 },
      },
    });
    expect(json).not.toHaveProperty("keptAside");
    const n = await runs(["respawn", "-n", "--json", "--resume", "agent"]);
    expect(n.stderr).toBe("");
    expect(JSON.parse(n.stdout).argv).toEqual([CODEX, "resume", "thread-7"]);
  });
});

// The fake Claude Code: `ask` starts a turn that asks to use Bash, `1` answers it.
const CLAUDE = fileURLToPath(new URL("../../../test/fixtures/agents/claude", import.meta.url));

describe("ariel-runs (in-process): an agent that uses a tool", () => {
  beforeAll(() => {
    ids.claude = startRun(ws, "claude", [CLAUDE], ["--tty"], { FAKE_CLAUDE_SESSION: "sess-9" });
  });
  afterAll(async () => {
    await runs(["kill", "claude"]);
  });

  const show = (until: string) =>
    poll(
      () => runs(["show", "claude"]),
      (r) => r.stdout.includes(until),
    );

  it("show: the tool it waits to run, then the tool done and the turn over; the notice it gave", async () => {
    await poll(
      () => runs(["show", "claude"]),
      (r) => r.stdout.includes("session      sess-9"),
    );
    expect((await runs(["send", "claude", "ask", "--enter"])).code).toBe(0);
    // (the permission request and its notification are two reports that race: read once both came)
    const asking = (await show("to use Bash (by agent)")).stdout.split("\n");
    expect(asking[1]).toMatch(
      /^state {8}running, waiting since \S+: Claude needs your permission to use Bash \(by agent\)$/,
    );
    expect(asking.slice(6)).toEqual([
      "session      sess-9",
      "turns        1",
      "tool calls   1: Bash 1",
      expect.stringMatching(/^last tool {4}Bash \(running, \S+\)$/),
      // the last of the two: the request, or Claude Code's notification of it
      expect.stringMatching(
        /^last notice {2}(permission_request: Claude needs your permission to use Bash|permission_prompt: Claude needs your permission)$/,
      ),
      "",
    ]);
    expect((await runs(["send", "claude", "1", "--enter"])).code).toBe(0);
    const done = (await show("Bash (done")).stdout.split("\n");
    expect(done[9]).toMatch(/^last tool {4}Bash \(done, \S+\)$/);
    const json = JSON.parse((await runs(["show", "--json", "claude"])).stdout);
    expect(json.reported).toMatchObject({
      name: "claude",
      via: "claude-hooks",
      session: "sess-9",
      tools: 1,
      toolCalls: { Bash: 1 },
      lastTool: { name: "Bash", phase: "end", ok: true },
      lastNotice: { kind: expect.stringMatching(/^permission_(request|prompt)$/) },
    });
  });
});
