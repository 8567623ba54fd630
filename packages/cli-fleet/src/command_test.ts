import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";
import { parseAddr } from "./commands/serve.ts";

// ariel-fleet's commands in this process, over a workspace whose run history is written here as
// a monitor writes it, with a state home of their own (no registered workspace but the ones named).
// The end-to-end cases on real runs are test/fleet-*.test.ts.

const RUN = "20261202T110000Z-aaaaaa";
const at = (s: number) => new Date(Date.UTC(2026, 11, 2, 11, 0, s)).toISOString();
const event = (s: number, fields: Record<string, unknown>) =>
  `${JSON.stringify({ v: 1, type: "event", runId: RUN, ts: at(s), source: "api", ...fields })}\n`;

/** A workspace with one failed run's history (every kind of event, one line that is none); `fleet` runs a command. */
function world() {
  const ws = mkdtempSync(join(tmpdir(), "ariel-fleet-cmd-"));
  const state = mkdtempSync(join(tmpdir(), "ariel-fleet-state-"));
  mkdirSync(join(ws, ".ariel/runs"), { recursive: true });
  appendFileSync(
    join(ws, ".ariel/runs", `${RUN}.ndjson`),
    event(1, { event: "run.state", from: "starting", to: "running" }) +
      event(2, { event: "output", stream: "stdout", line: "hello\tworld\u0007" }) +
      event(3, { event: "run.attention", from: "busy", to: "waiting", reason: "prompt", by: "screen" }) +
      event(4, { event: "run.attention", from: "waiting", to: "busy", reason: "input" }) +
      event(5, { event: "agent.session", agent: "claude", id: "s1" }) +
      event(6, { event: "agent.turn", agent: "claude", phase: "end" }) +
      event(7, { event: "agent.tool", agent: "claude", name: "Bash", phase: "end", ok: false }) +
      event(8, { event: "agent.tool", agent: "claude", name: "Read", phase: "start" }) +
      event(9, { event: "agent.notice", agent: "claude", kind: "permission", message: "may I?" }) +
      event(10, { event: "run.exited", status: 3 }) +
      "not a fleet event\n" +
      event(11, { event: "run.state", from: "running", to: "failed" }),
  );
  const fleet = async (...argv: string[]) => {
    const r = await runInProcess(command, argv, { cwd: ws, env: { ARIEL_STATE_HOME: state } });
    return { ...r, stdout: r.stdout.replaceAll(ws, "<ws>"), stderr: r.stderr.replaceAll(ws, "<ws>") };
  };
  return { ws, state, fleet };
}

const SKIPPED = "ariel-fleet: warning: skipped 1 history line(s) that are not fleet events\n";

describe("ariel-fleet events (in-process)", () => {
  it("each event as a line: time, workspace, run, seq, event and what happened; control characters shown as ?", async () => {
    const { ws, fleet } = world();
    const r = await fleet("events", "--workspace", ws);
    const hash = r.stdout.split("\t")[1];
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    const row = (s: number, seq: number, name: string, detail: string) =>
      `${at(s)}\t${hash}\t${RUN}\t${seq}\t${name}\t${detail}`;
    expect(r).toEqual({
      code: 0,
      stdout: `${[
        row(1, 1, "run.state", "starting -> running"),
        row(2, 2, "output", "stdout: hello\\tworld?"),
        row(3, 3, "run.attention", "busy -> waiting: prompt (by screen)"),
        row(4, 4, "run.attention", "waiting -> busy: input"),
        row(5, 5, "agent.session", "claude session s1"),
        row(6, 6, "agent.turn", "claude turn end"),
        row(7, 7, "agent.tool", "claude Bash end (failed)"),
        row(8, 8, "agent.tool", "claude Read start"),
        row(9, 9, "agent.notice", "claude permission: may I?"),
        row(10, 10, "run.exited", "status 3"),
        row(11, 12, "run.state", "running -> failed"),
      ].join("\n")}\n`,
      stderr: SKIPPED,
    });
  });

  it("--json: each event's record with its cursor; --type picks by name and glob; --from goes on after a cursor", async () => {
    const { ws, fleet } = world();
    const r = await fleet("events", "--workspace", ws, "--json", "--type", "agent.*,,run.exited");
    expect(r.code).toBe(0);
    const recs = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(recs.map((x) => [x.event, x.seq])).toEqual([
      ["agent.session", 5],
      ["agent.turn", 6],
      ["agent.tool", 7],
      ["agent.tool", 8],
      ["agent.notice", 9],
      ["run.exited", 10],
    ]);
    expect(recs[0]).toEqual({
      v: 1,
      type: "event",
      event: "agent.session",
      ts: at(5),
      workspace: expect.stringMatching(/^[0-9a-f]{16}$/),
      runId: RUN,
      seq: 5,
      source: "api",
      agent: "claude",
      id: "s1",
      cursor: expect.any(String),
    });
    expect(JSON.parse(r.stderr)).toEqual({
      v: 1,
      type: "warning",
      code: "WARN_SKIPPED",
      message: "skipped 1 history line(s) that are not fleet events",
      skipped: 1,
    });
    const after = await fleet("events", "--workspace", ws, "--from", String(recs[4]?.cursor));
    expect(after.stdout.split("\n").map((l) => l.split("\t")[3] ?? "")).toEqual(["10", "12", ""]);
  });

  it("--since: the events from that time on", async () => {
    const { ws, fleet } = world();
    const r = await fleet("events", "--workspace", ws, "--since", at(10));
    expect(r.stdout.split("\n").map((l) => l.split("\t")[4] ?? "")).toEqual(["run.exited", "run.state", ""]);
  });

  it.each([
    [
      ["--since", "soon"],
      '--since "soon" is not a time',
      "give an ISO 8601 time such as 2026-12-02T11:00:00Z",
    ],
    [
      ["--from", "no-such!"],
      '--from "no-such!" is not a cursor',
      "give the cursor of an event printed by ariel-fleet events --json",
    ],
    [
      ["--from", "0", "--since", at(1)],
      "--since and --from exclude each other",
      "run ariel-fleet events --help to see the flags",
    ],
  ])("%j: 64, the error and its hint", async (flags, error, hint) => {
    const { ws, fleet } = world();
    expect(await fleet("events", "--workspace", ws, ...flags)).toEqual({
      code: 64,
      stdout: "",
      stderr: `ariel-fleet: error: ${error} [ERR_USAGE]\nariel-fleet: hint: ${hint}\n`,
    });
  });
});

describe("ariel-fleet events: on a terminal, the other events, --follow", () => {
  const TERM = { stdout: false, stderr: true, columns: 80, color: false };

  it("at a terminal: the command that goes on from here; an event without its own text shows its source", async () => {
    const { ws, state } = world();
    appendFileSync(
      join(ws, ".ariel/runs", "20261202T110100Z-bbbbbb.ndjson"),
      `${JSON.stringify({ v: 1, type: "event", runId: "20261202T110100Z-bbbbbb", ts: at(20), event: "run.started", source: "web" })}\n`,
    );
    const r = await runInProcess(command, ["events", "--workspace", ws, "--type", "run.started"], {
      cwd: ws,
      env: { ARIEL_STATE_HOME: state },
      term: TERM,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\S+\t[0-9a-f]{16}\t20261202T110100Z-bbbbbb\t1\trun\.started\tweb\n$/);
    const again = r.stderr.split("\n").find((l) => l.includes("to go on from here"));
    expect(again).toMatch(
      new RegExp(
        `^ariel-fleet: to go on from here: ariel-fleet events --workspace ${ws} --from '?[0-9a-z]+;[^ ]+'?$`,
      ),
    );
    // the cursor it names goes on after the last event: nothing more
    const cursor = again?.split(" --from ")[1]?.replace(/^'|'$/g, "") ?? "";
    const next = await runInProcess(command, ["events", "--workspace", ws, "--from", cursor], {
      cwd: ws,
      env: { ARIEL_STATE_HOME: state },
    });
    expect(next.stdout).toBe("");
  });

  it("--follow: what is appended, until interrupted", async () => {
    const { ws, state } = world();
    const ac = new AbortController();
    const seen: string[] = [];
    const done = runInProcess(command, ["events", "--workspace", ws, "--follow", "--type", "run.exited"], {
      cwd: ws,
      env: { ARIEL_STATE_HOME: state },
      signal: ac.signal,
      onStdout: (t) => seen.push(t),
    });
    await new Promise((res) => setTimeout(res, 300));
    // the history before it started is not followed: it starts now
    expect(seen).toEqual([]);
    appendFileSync(
      join(ws, ".ariel/runs", `${RUN}.ndjson`),
      event(Date.now() / 1000 - Date.UTC(2026, 11, 2, 11, 0, 0) / 1000 + 1, {
        event: "run.exited",
        status: 7,
      }),
    );
    const end = Date.now() + 10_000;
    while (seen.length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
    ac.abort();
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout.split("\t").slice(2)).toEqual([RUN, "13", "run.exited", "status 7\n"]);
  });
});

describe("ariel-fleet status (in-process)", () => {
  it("a row per workspace: root, hash, health, sources, tasks and runs by state; --json the snapshot", async () => {
    const { ws, fleet } = world();
    const r = await fleet("status", "--workspace", ws);
    expect(r).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^<ws>\t[0-9a-f]{16}\tok\t0\t-\t1 failed\n$/),
      stderr: "",
    });
    const json = await fleet("status", "--workspace", ws, "--json");
    const snap = JSON.parse(json.stdout) as { workspaces: Record<string, unknown>[] };
    expect(snap.workspaces).toEqual([
      {
        v: 1,
        type: "workspace",
        root: "<ws>",
        hash: r.stdout.split("\t")[1],
        origin: "flag",
        health: "ok",
        sources: 0,
        tasks: { active: 0, cleaning: 0, closed: 0, unknown: 0 },
        runs: { starting: 0, running: 0, exited: 0, failed: 1, killed: 0, lost: 0, crashed: 0 },
        kept: 0,
        sandboxed: 0,
        problems: 0,
        skipped: 1,
      },
    ]);
  });

  it("no workspace known: says how to name one, and prints nothing", async () => {
    const { fleet } = world();
    expect(await fleet("status")).toEqual({
      code: 0,
      stdout: "",
      stderr:
        "ariel-fleet: no workspaces: none is registered yet (a workspace registers with its first ariel command); pass --workspace DIR\n",
    });
  });
});

describe("ariel-fleet serve (in-process)", () => {
  it.each([
    ["8080", { host: "127.0.0.1", port: 8080 }],
    [":9000", { host: "127.0.0.1", port: 9000 }],
    ["0.0.0.0:1", { host: "0.0.0.0", port: 1 }],
    ["[::1]:65535", { host: "::1", port: 65535 }],
    ["localhost", { host: "localhost", port: 7878 }],
  ])("--addr %s", (text, addr) => {
    expect(parseAddr(text)).toEqual(addr);
  });

  it.each(["127.0.0.1:65536", "99999", ":", "", "a:b", "[zz]:1", "1.2.3.4:80:80"])(
    "--addr %j is refused",
    (text) => {
      expect(() => parseAddr(text)).toThrow(`--addr ${JSON.stringify(text)} is not HOST:PORT`);
    },
  );

  it("refusals before it listens: a bad --addr, a public address without a token, a token file others read or too short", async () => {
    const { ws, fleet } = world();
    expect(await fleet("serve", "--addr", "x:99999", "--workspace", ws)).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-fleet: error: --addr "x:99999" is not HOST:PORT [ERR_USAGE]\nariel-fleet: hint: for example 127.0.0.1:7878\n',
    });
    expect(await fleet("serve", "--addr", "0.0.0.0:0")).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-fleet: error: listening on "0.0.0.0" needs --token-file [ERR_USAGE]\nariel-fleet: hint: only loopback (127.0.0.1) is served without a token\n',
    });
    const dir = mkdtempSync(join(tmpdir(), "ariel-fleet-token-"));
    const open = join(dir, "open");
    writeFileSync(open, "a".repeat(32));
    chmodSync(open, 0o644);
    const r = await fleet("serve", "--addr", "127.0.0.1:0", "--token-file", open);
    expect(r).toEqual({
      code: 77,
      stdout: "",
      stderr:
        `ariel-fleet: error: --token-file ${JSON.stringify(open)} is accessible by others (mode 0644) [ERR_TOKEN_FILE_MODE]\n` +
        `ariel-fleet: hint: make it readable by its owner only: chmod 600 ${JSON.stringify(open)}\n`,
    });
    const json = await fleet("serve", "--json", "--addr", "127.0.0.1:0", "--token-file", open);
    expect(JSON.parse(json.stderr)).toMatchObject({ code: "ERR_TOKEN_FILE_MODE", path: open, mode: "0644" });
    const short = join(dir, "short");
    writeFileSync(short, "fifteen-chars-x\n", { mode: 0o600 });
    const s = await fleet("serve", "--addr", "127.0.0.1:0", "--token-file", short);
    expect(s).toEqual({
      code: 65,
      stdout: "",
      stderr:
        `ariel-fleet: error: --token-file ${JSON.stringify(short)} must hold one token of 16 or more characters [ERR_INVALID_INPUT]\n` +
        "ariel-fleet: hint: for example: head -c 32 /dev/urandom | base64 > token\n",
    });
    const spaced = join(dir, "spaced");
    writeFileSync(spaced, "sixteen chars ok and more\n", { mode: 0o600 });
    expect((await fleet("serve", "--addr", "127.0.0.1:0", "--token-file", spaced)).code).toBe(65);
    const missing = await fleet("serve", "--addr", "127.0.0.1:0", "--token-file", join(dir, "none"));
    expect([missing.code, missing.stderr.split("\n")[0]]).toEqual([
      66,
      `ariel-fleet: error: cannot read --token-file ${JSON.stringify(join(dir, "none"))}: ENOENT [ERR_NOINPUT]`,
    ]);
  });

  it("serves until interrupted: the URL on stdout (a record with --json), what it serves on stderr; a token is asked for", async () => {
    const { ws } = world();
    const ac = new AbortController();
    let url = "";
    const done = runInProcess(command, ["serve", "--addr", "127.0.0.1:0", "--workspace", ws], {
      cwd: ws,
      env: { ARIEL_STATE_HOME: mkdtempSync(join(tmpdir(), "ariel-fleet-state-")) },
      signal: ac.signal,
      onStdout: (t) => (url = t.trim()),
    });
    while (url === "") await new Promise((r) => setTimeout(r, 20));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const res = await fetch(`${url}api/fleet`);
    expect(res.status).toBe(200);
    ac.abort();
    expect(await done).toEqual({
      code: 0,
      stdout: `${url}\n`,
      stderr: `ariel-fleet: serving 1 workspace(s) at ${url}\n`,
    });

    const token = join(mkdtempSync(join(tmpdir(), "ariel-fleet-token-")), "token");
    // sixteen characters: the shortest token it takes
    writeFileSync(token, "0123456789abcdef\n", { mode: 0o600 });
    const ac2 = new AbortController();
    let rec = "";
    const done2 = runInProcess(command, ["serve", "--addr", "127.0.0.1:0", "--json", "--token-file", token], {
      cwd: ws,
      env: { ARIEL_STATE_HOME: mkdtempSync(join(tmpdir(), "ariel-fleet-state-")) },
      signal: ac2.signal,
      onStdout: (t) => (rec = t),
    });
    while (rec === "") await new Promise((r) => setTimeout(r, 20));
    const server = JSON.parse(rec) as Record<string, unknown>;
    expect(server).toEqual({
      v: 1,
      type: "server",
      url: `http://127.0.0.1:${server.port}/`,
      host: "127.0.0.1",
      port: expect.any(Number),
      pid: process.pid,
    });
    expect((await fetch(`${server.url}api/fleet`)).status).toBe(401);
    const ok = await fetch(`${server.url}api/fleet`, {
      headers: { authorization: "Bearer 0123456789abcdef" },
    });
    expect(ok.status).toBe(200);
    ac2.abort();
    const end = await done2;
    expect(end.code).toBe(0);
    // --json: the record is what a script reads; no notes on stderr
    expect(end).toEqual({ code: 0, stdout: rec, stderr: "" });
    // without --json, a person is told that a token is needed
    const ac3 = new AbortController();
    let url3 = "";
    const done3 = runInProcess(command, ["serve", "--addr", "127.0.0.1:0", "--token-file", token], {
      cwd: ws,
      env: { ARIEL_STATE_HOME: mkdtempSync(join(tmpdir(), "ariel-fleet-state-")) },
      signal: ac3.signal,
      onStdout: (t) => (url3 = t.trim()),
    });
    while (url3 === "") await new Promise((r) => setTimeout(r, 20));
    ac3.abort();
    expect((await done3).stderr).toBe(
      `ariel-fleet: serving 0 workspace(s) at ${url3} (bearer token required)\n`,
    );
  });
});
