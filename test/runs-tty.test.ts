// Runs on a terminal (ariel-spawn --detach --tty; docs/runs.md "Runs on a terminal"): the built
// CLIs against real workspaces; attach clients driven under a pseudo-terminal of their own.
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { register, serve, stateHome } from "./fleet_helpers.ts";
import { cliCommand, cliEnv, REPO_ROOT, records, runAriel } from "./helpers/cli.ts";
import {
  alive,
  cleanUp,
  countedHooks,
  finishedHistory,
  NODE,
  passes,
  readJson,
  runDir,
  runHistory,
  runs,
  runsWorkspace,
  spawnD,
  startRun,
  TEST_ENV,
  track,
  until,
} from "./runs_helpers.ts";

afterEach(cleanUp);

const FAKE_AGENT = join(REPO_ROOT, "test/fixtures/fake-agent.mjs");

interface Pty {
  pid: number;
  /** The client's terminal, /dev/pts/N. */
  ptsName: string;
  onData(f: (d: string) => void): void;
  onExit(f: (e: { exitCode: number }) => void): void;
  write(s: string): void;
  resize(c: number, r: number): void;
  /** Stop (and start again) reading the client's terminal: what is written to it then waits. */
  pause(): void;
  resume(): void;
  kill(sig?: string): void;
}
const nodePty = createRequire(join(REPO_ROOT, "packages/core/package.json"))("@lydell/node-pty") as {
  spawn(f: string, a: string[], o: Record<string, unknown>): Pty;
};

/** `ariel-runs attach …` on a terminal of its own (cols x rows): what it printed so far, and its end. */
function attachClient(
  root: string,
  args: string[],
  size = { cols: 80, rows: 24 },
  env: Record<string, string> = {},
) {
  const [exe, ...pre] = cliCommand("runs");
  const p = nodePty.spawn(exe!, [...pre, "attach", "-C", root, ...args], {
    ...size,
    cwd: root,
    env: cliEnv({ ...TEST_ENV, ...env }),
    name: "xterm-256color",
  });
  track(p.pid);
  const io = { out: "" };
  p.onData((d) => {
    io.out += d;
  });
  const done = new Promise<number>((resolve) => p.onExit((e) => resolve(e.exitCode)));
  return { p, io, done };
}

/** The terminals (/dev/pts/N) process `pid` has open. */
function terminalsOf(pid: number): string[] {
  const links = readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return "";
    }
  });
  return links.filter((l) => l.startsWith("/dev/pts/"));
}

/**
 * `attach --read-only sh` from a 100x30 terminal, which is then resized to 90x20, then detached.
 * (Whether the resize is handled before the detach key is a race: the attach-time size is what
 * this holds; {@link readOnlyResizeLine} holds a later resize.)
 */
async function readOnlyAttach(root: string, env: Record<string, string>): Promise<void> {
  const c = attachClient(root, ["--read-only", "sh"], { cols: 100, rows: 30 }, env);
  await until(() => c.io.out.includes("bash-")); // the repaint: attached, its size taken or not
  c.p.resize(90, 20);
  c.p.write("\x1d");
  expect(await c.done).toBe(0);
  expect(c.io.out).toContain("detached from ");
}

/**
 * A read-only client on the monitor's socket itself: attaches as 100x30, sends a resize to 90x20
 * and hangs up. The monitor closes its end only after reading that line, so once the socket is
 * closed the resize has been acted on (or dropped): no race.
 */
async function readOnlyResizeLine(root: string): Promise<void> {
  const runId = records((await runs(root, ["list", "--json"])).stdout)[0]!.runId;
  const sock = connect(join(root, ".ariel/monitor.sock"));
  const reply = new Promise<Record<string, unknown>>((resolve, reject) => {
    let buf = "";
    sock.on("error", reject);
    sock.on("data", (b: Buffer) => {
      buf += b.toString();
      if (buf.includes("\n")) resolve(JSON.parse(buf.slice(0, buf.indexOf("\n"))));
    });
  });
  sock.write(`${JSON.stringify({ v: 1, op: "attach", runId, readOnly: true, cols: 100, rows: 30 })}\n`);
  expect(await reply).toMatchObject({ ok: true, tty: { cols: 40, rows: 10 }, direct: false });
  const closed = new Promise((resolve) => sock.once("close", resolve));
  sock.end(`${JSON.stringify({ op: "resize", cols: 90, rows: 20 })}\n`);
  await closed;
}

/** Resident memory of process `pid`, in bytes. */
function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
}

/** Bytes process `pid` has written so far (all its write calls). */
function bytesWritten(pid: number): number {
  return Number(/wchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))![1]);
}

async function screenText(root: string, run: string): Promise<string> {
  const r = await runs(root, ["screen", run]);
  expect(r.stderr).toBe("");
  return r.stdout;
}

async function screenHas(root: string, run: string, text: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await screenText(root, run)).includes(text)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`screen of ${run} never showed ${JSON.stringify(text)}:\n${await screenText(root, run)}`);
}

const attention = (root: string, runId: string) =>
  runHistory(root, runId)
    .filter((e) => e.event === "run.attention")
    .map((e) => [e.from, e.to]);

describe("ariel-spawn --detach --tty", () => {
  it("runs the child on a terminal of --size: its bytes are the run's stdout, its screen is rendered from them", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, [
      "--tty",
      "--size",
      "40x10",
      "--name",
      "t",
      "--",
      "bash",
      "-c",
      'printf "\\e[31mred\\e[0m\\n"; tty -s && echo on-a-tty; stty size; read -p "name? " x; echo "got $x"',
    ]);
    expect(rec).toMatchObject({ tty: { cols: 40, rows: 10 }, agent: "generic", state: "running" });
    await screenHas(root, "t", "name?");
    expect(await runs(root, ["send", "t", "bob", "--enter"])).toMatchObject({ code: 0, stderr: "" });
    const id = rec.runId as string;
    await finishedHistory(root, id);
    // the terminal's bytes, as the program wrote them (colours, CRLF), are the stored stream
    expect(readFileSync(join(runDir(root, id), "stdout"), "utf8")).toBe(
      "\x1b[31mred\x1b[0m\r\non-a-tty\r\n10 40\r\nname? bob\r\ngot bob\r\n",
    );
    expect(await screenText(root, "t")).toBe("red\non-a-tty\n10 40\nname? bob\ngot bob\n");
    const json = records((await runs(root, ["screen", "--json", "t"])).stdout)[0]!;
    expect(json).toMatchObject({
      type: "screen",
      cols: 40,
      rows: 10,
      cursor: { x: 0, y: 5 },
      state: "exited",
    });
    expect((json.lines as string[]).length).toBe(10);
    expect((await runs(root, ["screen", "--ansi", "t"])).stdout).toContain("\x1b[31mred");
    const logs = records((await runs(root, ["logs", "--json", "t"])).stdout);
    expect(logs[0]).toMatchObject({ type: "output", stream: "stdout", seq: 0 });
    expect(logs.every((r) => r.stream === "stdout")).toBe(true);
  });

  it("refuses bad --size and --tty flags with 64, starting nothing", async () => {
    const root = runsWorkspace();
    for (const [args, msg] of [
      [["--tty", "--size", "80by24"], "--size: expected COLSxROWS"],
      [["--tty", "--size", "1x24"], "--size: expected COLSxROWS"],
      [["--size", "80x24"], "--size needs --tty"],
      [["--tty", "--interactive"], "choose one"],
      [["--tty", "--agent", "nope"], 'no preset "nope"'],
    ] as const) {
      const r = await spawnD(root, [...args, "--", "true"]);
      expect(r.code, args.join(" ")).toBe(64);
      expect(r.stderr).toContain(msg);
    }
    expect(records((await runs(root, ["list", "--all", "--json"])).stdout)).toEqual([]);
  });

  it("a command that cannot start on the terminal fails as a piped one does (127, 126)", async () => {
    const root = runsWorkspace();
    const r = await spawnD(root, ["--tty", "--", "no-such-command-xyz"]);
    expect(r.code).toBe(127);
    writeFileSync(join(root, "not-exec.sh"), "echo hi\n", { mode: 0o644 });
    const r2 = await spawnD(root, ["--tty", "--", "./not-exec.sh"]);
    expect(r2.code).toBe(126);
    expect(r2.stderr).toContain("not-exec.sh");
  });

  it("ariel-runs refuses bad tty usage with 64, and send to an ended run with 3", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--tty", "--name", "t", "--", "true"]);
    await finishedHistory(root, rec.runId as string);
    for (const [args, msg] of [
      [["send", "t"], "send needs TEXT, --enter, or both"],
      [["screen", "--ansi", "--json", "t"], "--ansi and --json: choose one"],
      [["attach", "--detach-key", "alt-x", "t"], '--detach-key: expected ctrl-X or none, got "alt-x"'],
      [["list", "--state", "asking"], 'unknown state "asking"'],
    ] as const) {
      const r = await runs(root, args);
      expect([r.code, r.stderr.split("\n")[0]], args.join(" ")).toEqual([64, expect.stringContaining(msg)]);
    }
    const ended = await runs(root, ["send", "t", "x"]);
    expect(ended.code).toBe(3);
    expect(ended.stderr).toContain("is exited: nothing reads what is typed");
    const r = await runAriel("spawn", ["-C", root, "--tty", "--", "true"]);
    expect([r.code, r.stderr.split("\n")[0]]).toEqual([
      64,
      "ariel-spawn: error: --tty needs --detach [ERR_USAGE]",
    ]);
  });

  it("screen and send refuse a run without a terminal", async () => {
    const root = runsWorkspace();
    await startRun(root, ["--name", "p", "--", "sleep", "30"]);
    const s = await runs(root, ["screen", "p"]);
    expect(s.code).toBe(64);
    expect(s.stderr).toContain("it was not started with --tty");
    const t = await runs(root, ["send", "p", "x"]);
    expect(t.code).toBe(64);
    expect(t.stderr).toContain("takes no input");
    // a piped run's activity is timing alone: busy while its output grows, idle 5 s after
    await startRun(root, ["--name", "ticks", "--", "sh", "-c", "while :; do echo tick; sleep 0.2; done"]);
    const activity = async () =>
      Object.fromEntries(
        records((await runs(root, ["list", "--json"])).stdout).map((r) => [r.name, r.activity]),
      );
    let seen: Record<string, unknown> = {};
    for (let i = 0; i < 100 && seen.p !== "idle"; i++) seen = await activity();
    expect(seen).toEqual({ p: "idle", ticks: "busy" });
  });
});

describe("ariel-runs attach on a tty run", () => {
  it("repaints the screen, sends keys (Ctrl-C too), forwards resizes; Ctrl-] detaches and the run goes on", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--tty", "--name", "sh", "--", "bash", "--norc", "--noprofile", "-i"]);
    await runs(root, ["send", "sh", "echo before-$((6*7))", "--enter"]);
    await screenHas(root, "sh", "before-42");
    const c = attachClient(root, ["sh"], { cols: 60, rows: 12 });
    await until(() => c.io.out.includes("before-42")); // the repaint
    c.p.write("echo typed-$((2+3))\r");
    await until(() => c.io.out.includes("typed-5"));
    c.p.write("sleep 30\r");
    await screenHas(root, "sh", "sleep 30");
    c.p.write("\x03"); // Ctrl-C goes to the agent, not to attach
    await until(() => c.io.out.includes("^C"));
    c.p.write("stty size\r");
    await until(() => c.io.out.includes("12 60"));
    c.p.resize(70, 14);
    // The resize and the keys travel apart: ask again until the new size has reached the run.
    for (let i = 0; i < 40 && !c.io.out.includes("14 70"); i++) {
      c.p.write("stty size\r");
      const end = Date.now() + 500;
      while (!c.io.out.includes("14 70") && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    }
    expect(c.io.out).toContain("14 70");
    c.p.write("\x1d"); // Ctrl-]
    expect(await c.done).toBe(0);
    // Off the agent's line first, then one line: the CLI's name and the message on it, the run as
    // the user named it (never "ariel-runs: " alone on a line above the message).
    expect(c.io.out).toContain(
      `\r\nariel-runs: detached from ${rec.runId}; it goes on (ariel-runs attach sh)\r\n`,
    );
    expect(c.io.out).not.toMatch(/ariel-runs: \r?\n/);
    expect((await runs(root, ["list", "--json"])).stdout).toContain('"state":"running"');
    expect(readJson(join(runDir(root, rec.runId as string), "run.json")).tty).toEqual({ cols: 70, rows: 14 });
  });

  it("attaches directly: the monitor holds the client's own terminal while attached, and lets it go on detach", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--tty", "--name", "sh", "--", "bash", "--norc", "--noprofile", "-i"]);
    const monitor = readJson(join(runDir(root, rec.runId as string), "run.json")).monitor.pid as number;
    const c = attachClient(root, ["sh"]);
    await until(() => c.io.out.includes("bash-"));
    expect(terminalsOf(monitor)).toContain(c.p.ptsName);
    c.p.write("echo direct-$((4*4))\r");
    await until(() => c.io.out.includes("direct-16"));
    c.p.write("\x1d");
    expect(await c.done).toBe(0);
    expect(c.io.out).toMatch(/direct-16[\s\S]*detached from /);
    await until(() => !terminalsOf(monitor).includes(c.p.ptsName));
  });

  it("relays through the client when it does not attach directly (ARIEL_ATTACH_DIRECT=0)", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--tty", "--name", "sh", "--", "bash", "--norc", "--noprofile", "-i"]);
    const monitor = readJson(join(runDir(root, rec.runId as string), "run.json")).monitor.pid as number;
    await runs(root, ["send", "sh", "echo before-$((6*7))", "--enter"]);
    await screenHas(root, "sh", "before-42");
    const c = attachClient(root, ["sh"], { cols: 80, rows: 24 }, { ARIEL_ATTACH_DIRECT: "0" });
    await until(() => c.io.out.includes("before-42")); // the repaint
    expect(terminalsOf(monitor)).not.toContain(c.p.ptsName);
    c.p.write("echo relayed-$((2+3))\r");
    await until(() => c.io.out.includes("relayed-5"));
    c.p.write("\x03");
    await until(() => c.io.out.includes("^C"));
    c.p.write("exit 7\r");
    expect(await c.done).toBe(0);
    expect(c.io.out).toContain(`\r\nariel-runs: run ${rec.runId} ended (status 7)\r\n`);
    expect(c.io.out).not.toMatch(/ariel-runs: \r?\n/);
  });

  it("serves several clients; --read-only types nothing; a client killed -9 leaves the run and the others going", async () => {
    const root = runsWorkspace();
    await startRun(root, ["--tty", "--name", "sh", "--", "bash", "--norc", "--noprofile", "-i"]);
    const a = attachClient(root, ["sh"]);
    const b = attachClient(root, ["--read-only", "sh"]);
    const doomed = attachClient(root, ["sh"]);
    await until(() => [a, b, doomed].every((x) => x.io.out.includes("bash-")));
    b.p.write("echo from-b\r");
    a.p.write("echo from-$((1+1))-a\r");
    await until(() => b.io.out.includes("from-2-a"));
    process.kill(doomed.p.pid, "SIGKILL");
    await doomed.done;
    a.p.write("echo after-$((3+3))\r");
    await until(() => a.io.out.includes("after-6") && b.io.out.includes("after-6"));
    expect(await screenText(root, "sh")).not.toContain("from-b");
    a.p.write("exit\r");
    expect(await a.done).toBe(0);
    expect(await b.done).toBe(0);
    expect(b.io.out).toContain("ended (status 0)");
  });

  // A watcher's terminal is not the run's: neither its size at attach nor a later resize
  // reaches the run (docs/runs.md: the last writable client to attach or resize sets it).
  it.each([
    { how: "attach --read-only, direct", watch: (root: string) => readOnlyAttach(root, {}) },
    {
      how: "attach --read-only, relayed",
      watch: (root: string) => readOnlyAttach(root, { ARIEL_ATTACH_DIRECT: "0" }),
    },
    { how: "a read-only client's own resize line", watch: readOnlyResizeLine },
  ])("a watcher on a terminal of another size ($how) leaves the run's size as it was", async ({ watch }) => {
    const root = runsWorkspace();
    const rec = await startRun(root, [
      "--tty",
      "--size",
      "40x10",
      "--name",
      "sh",
      "--",
      "bash",
      "--norc",
      "--noprofile",
      "-i",
    ]);
    await watch(root);
    // After the watcher is gone: a key typed now is read at whatever size the terminal has.
    expect(await runs(root, ["send", "sh", "stty size", "--enter"])).toMatchObject({ code: 0, stderr: "" });
    let size: string | undefined;
    for (let i = 0; i < 100 && size === undefined; i++)
      size = /^(\d+ \d+)$/m.exec(await screenText(root, "sh"))?.[1];
    expect(size).toBe("10 40");
    expect(readJson(join(runDir(root, rec.runId as string), "run.json")).tty).toEqual({ cols: 40, rows: 10 });
    const json = records((await runs(root, ["screen", "--json", "sh"])).stdout)[0]!;
    expect([json.cols, json.rows, (json.lines as string[]).length]).toEqual([40, 10, 10]);
  });

  it("keeps up with a child flooding the terminal (yes): the client skips to the current screen, the monitor stays small", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--tty", "--name", "y", "--", "yes", "flood"]);
    const c = attachClient(root, ["y"]);
    await until(() => c.io.out.length > 1_000_000, 30_000);
    const monitor = readJson(join(runDir(root, rec.runId as string), "run.json")).monitor.pid as number;
    expect(rssOf(monitor)).toBeLessThan(200 * 1024 * 1024);
    c.p.write("\x03"); // ^C to yes
    await finishedHistory(root, rec.runId as string);
    expect(await c.done).toBe(0);
  });

  it("a long flood with a client that reads nothing: the monitor's memory stays bounded", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--tty", "--name", "y", "--", "yes", "flood"]);
    const run = readJson(join(runDir(root, rec.runId as string), "run.json"));
    const [monitor, child] = [run.monitor.pid as number, run.child.pid as number];
    const c = attachClient(root, ["y"]);
    await until(() => c.io.out.length > 0);
    c.p.pause(); // the client's terminal is read no more: it fills, and the monitor's writes to it wait
    // Measured by what the child wrote (not by time): from 16 MiB on, another 64 MiB.
    const MiB = 1 << 20;
    await until(() => bytesWritten(child) > 16 * MiB, 120_000);
    const base = rssOf(monitor);
    let most = base;
    await until(() => {
      most = Math.max(most, rssOf(monitor));
      return bytesWritten(child) > 80 * MiB;
    }, 300_000);
    // What a client may have queued is 1 MiB (docs/runs.md); the rest is the heap's own slack.
    expect(Math.round((most - base) / MiB), `grew from ${Math.round(base / MiB)} MiB`).toBeLessThan(40);
    c.p.resume();
    c.p.write("\x03"); // ^C to yes
    await finishedHistory(root, rec.runId as string);
    expect(await c.done).toBe(0);
  });

  it("pauses a flooding child again after every resume, not only the first (a screen backlog of 16 KiB)", async () => {
    const root = runsWorkspace();
    // The screen keeps up with `yes` on its own at the default 1 MiB; a small backlog makes the
    // monitor pause and resume the terminal many times over.
    const env = {
      ...countedHooks(root, "tty:paused"),
      ARIEL_TEST_PAUSE_AT: "tty:paused,tty:resumed",
      ARIEL_TTY_SCREEN_BACKLOG: String(16 << 10),
    };
    const r = await spawnD(root, ["--json", "--shared", "--tty", "--name", "y", "--", "yes", "flood"], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const id = records(r.stdout)[0]!.runId as string;
    await until(() => passes(root, "tty:resumed") >= 25, 60_000);
    expect(await runs(root, ["send", "y", "\x03"])).toMatchObject({ code: 0, stderr: "" }); // ^C to yes
    await finishedHistory(root, id);
    const log = readFileSync(join(root, ".ariel/monitor.log"), "utf8");
    const [paused, resumed] = ["paused", "resumed"].map(
      (p) => log.split(`ariel-test-paused tty:${p} `).length - 1,
    );
    // Each resume was followed by a pause (the flood went on): they alternate, one pause ahead at most.
    expect(resumed).toBeGreaterThanOrEqual(25);
    expect(paused! - resumed!, `${paused} pauses, ${resumed} resumes`).toBeOneOf([0, 1]);
  });
});

describe("attention: busy, waiting, idle", () => {
  it("a fake agent that asks reads waiting within 2 s, busy after send --enter, idle when quiet; events, list, --state, --notify, a bell", async () => {
    const root = runsWorkspace();
    const env = { ARIEL_ATTENTION_IDLE_MS: "2000" };
    const notify = join(root, "notified");
    writeFileSync(join(root, "notify.sh"), 'echo "$ARIEL_NOTIFY" >> "$1"\n');
    const r = await spawnD(
      root,
      [
        "--json",
        "--tty",
        "--agent",
        "claude",
        "--name",
        "agent",
        "--notify",
        `sh ${join(root, "notify.sh")} ${notify}`,
        "--",
        NODE,
        FAKE_AGENT,
      ],
      { env },
    );
    expect(r.code).toBe(0);
    const id = records(r.stdout)[0]!.runId as string;
    const c = attachClient(root, ["--read-only", "agent"]);
    await until(() => attention(root, id).length > 0, 15_000);
    expect(attention(root, id)).toEqual([["busy", "waiting"]]); // no flapping on the spinner
    const waiting = records((await runs(root, ["list", "--state", "waiting", "--json"])).stdout);
    expect(waiting.map((w) => [w.runId, w.activity])).toEqual([[id, "waiting"]]);
    expect((await runs(root, ["list"])).stdout.split("\t").slice(3, 5)).toEqual(["running", "waiting"]);
    await until(() => c.io.out.includes("\x07"));
    await runs(root, ["send", "agent", "1", "--enter"]);
    await until(() => attention(root, id).length >= 3, 15_000);
    expect(attention(root, id)).toEqual([
      ["busy", "waiting"],
      ["waiting", "busy"],
      ["busy", "idle"],
    ]);
    expect(await screenText(root, "agent")).toBe("Done.\n>\n");
    expect(records((await runs(root, ["list", "--state", "waiting", "--json"])).stdout)).toEqual([]);
    await runs(root, ["send", "agent", "exit", "--enter"]);
    await finishedHistory(root, id);
    await until(() => readFileSync(notify, "utf8").split("\n").length >= 3);
    expect(readFileSync(notify, "utf8")).toBe("waiting\nexit\n");
  });

  // The generic rule (no --agent) reads a numbered menu with one option marked `❯` as waiting.
  // The bundle kept its regular expressions' characters in UTF-8 and was read as latin1: the
  // monitor saw no menu at all, and the run stayed busy until it went idle.
  it("a program that shows a menu marked with ❯ (no --agent) reads waiting, by the prompt rule", async () => {
    const root = runsWorkspace();
    const menu = join(root, "menu.mjs");
    writeFileSync(
      menu,
      'process.stdout.write("Apply the change to src/app.ts\\n\u276f 1. Apply\\n  2. Skip\\n");\nsetTimeout(() => {}, 60_000);\n',
    );
    const r = await spawnD(root, ["--json", "--tty", "--name", "menu", "--", NODE, menu], {
      env: { ARIEL_ATTENTION_IDLE_MS: "60000" },
    });
    expect(r.code).toBe(0);
    const id = records(r.stdout)[0]!.runId as string;
    await until(() => attention(root, id).length > 0, 15_000);
    expect(attention(root, id)).toEqual([["busy", "waiting"]]);
    const listed = records((await runs(root, ["list", "--json"])).stdout).find((x) => x.runId === id)!;
    expect([listed.activity, listed.attention]).toEqual([
      "waiting",
      expect.objectContaining({ by: "screen", reason: "prompt: choice" }),
    ]);
  });

  it("--notify is bounded: a command that outlives ARIEL_NOTIFY_TIMEOUT_MS is killed, the run settles", async () => {
    const root = runsWorkspace();
    const r = await spawnD(root, ["--json", "--tty", "--notify", "sleep 30", "--", "true"], {
      env: { ARIEL_NOTIFY_TIMEOUT_MS: "300" },
    });
    expect(r.code).toBe(0);
    const id = records(r.stdout)[0]!.runId as string;
    await finishedHistory(root, id);
    const log = join(runDir(root, id), "notify.log");
    await until(() => {
      try {
        return readFileSync(log, "utf8") === "ariel: --notify sleep killed after 300 ms\n";
      } catch {
        return false;
      }
    });
    expect((await runs(root, ["wait", id])).code).toBe(0);
  });

  it("a run whose monitor is killed reads lost; its child gets SIGHUP; nothing hangs", async () => {
    const root = runsWorkspace();
    const hup = join(root, "hup");
    const rec = await startRun(root, [
      "--tty",
      "--name",
      "h",
      "--",
      "bash",
      "-c",
      `trap 'echo got-hup > ${hup}; exit 1' HUP; echo ready; while :; do sleep 0.1; done`,
    ]);
    await screenHas(root, "h", "ready");
    const monitor = (rec.monitor as { pid: number }).pid;
    process.kill(monitor, "SIGKILL");
    await until(() => !alive(monitor));
    await until(() => {
      try {
        return readFileSync(hup, "utf8") === "got-hup\n";
      } catch {
        return false;
      }
    });
    await until(() => !alive((rec.child as { pid: number }).pid));
    const l = records((await runs(root, ["list", "--json"])).stdout);
    expect(l.map((x) => [x.name, x.state])).toEqual([["h", "lost"]]);
  });
});

describe("respawn --resume", () => {
  it("a lost agent is offered its resume form, and respawn --resume adds it (claude: --continue); a preset without one is refused", async () => {
    const root = runsWorkspace();
    const script = 'echo "args:$*"; sleep 30';
    const rec = await startRun(root, [
      "--tty",
      "--agent",
      "claude",
      "--name",
      "c",
      "--",
      "bash",
      "-c",
      script,
      "agent",
    ]);
    await screenHas(root, "c", "args:");
    process.kill((rec.monitor as { pid: number }).pid, "SIGKILL");
    await until(() => !alive((rec.child as { pid: number }).pid));
    const l = await runs(root, ["list"]);
    const [, name, group, state, activity] = l.stdout.split("\t");
    expect([name, state, activity]).toEqual(["c", "lost", "-"]);
    expect(group).toMatch(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/);
    expect(l.stderr).toContain("run c is lost; go on with its conversation: ariel-runs respawn --resume c");
    const r = await runs(root, ["respawn", "--resume", "--json", "c"]);
    // its agent reported no session (bash is not wired): the latest conversation, and it says so
    expect(records(r.stderr).map((w) => [w.type, w.code])).toEqual([["warning", "WARN_RESUME_LATEST"]]);
    const [fresh] = records(r.stdout);
    expect(fresh).toMatchObject({ respawnOf: rec.runId, tty: rec.tty, agent: "claude", state: "running" });
    expect(fresh!.argv).toEqual(["bash", "-c", script, "agent", "--continue"]);
    await screenHas(root, "c", "args:--continue");
    await startRun(root, ["--tty", "--name", "g", "--", "sleep", "30"]);
    const g = await runs(root, ["respawn", "--resume", "g"]);
    expect(g.code).toBe(64);
    expect(g.stderr).toMatch(/error: run g \(\S+\): its agent preset \(generic\) has no resume form/);
    expect(records((await runs(root, ["list", "--json"])).stdout).map((x) => [x.name, x.state])).toEqual([
      ["g", "running"],
      ["c", "running"],
      ["c", "lost"],
    ]);
  });
});

describe("the fleet and tty runs", () => {
  it("a run view has its activity and terminal size; input goes to the terminal; run.attention is a fleet event", async () => {
    const root = runsWorkspace();
    const state = stateHome();
    await register(state.dir, root);
    const server = await serve([], state.env);
    try {
      const r = await spawnD(root, [
        "--json",
        "--tty",
        "--size",
        "50x12",
        "--agent",
        "claude",
        "--",
        NODE,
        FAKE_AGENT,
      ]);
      const id = records(r.stdout)[0]!.runId as string;
      const view = async () =>
        (await (await fetch(`${server.url}api/runs/${id}`)).json()) as Record<string, unknown>;
      await until(() => attention(root, id).length > 0, 15_000);
      expect(await view()).toMatchObject({
        kind: "detached",
        state: "running",
        activity: "waiting",
        tty: { cols: 50, rows: 12 },
      });
      const input = await fetch(`${server.url}api/runs/${id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ data: "1\r" }),
      });
      expect(input.status).toBeLessThan(300);
      await until(() => attention(root, id).length >= 2, 15_000);
      const events = (await (await fetch(`${server.url}api/runs/${id}/events`)).json()) as Record<
        string,
        unknown
      >[];
      expect(events.filter((e) => e.event === "run.attention").map((e) => [e.from, e.to])).toEqual(
        attention(root, id),
      );
      await until(() => readFileSync(join(runDir(root, id), "stdout"), "utf8").includes("(answer 1)"));
    } finally {
      await server.stop();
    }
  });
});
