/**
 * The CLI's side of the monitor's socket, beyond the retry client_test.ts pins: where the socket
 * is (a path too long for a unix socket moves to a private tmp dir), how a monitor is started
 * (this CLI's own argv[1] with the hidden argument, in a session of its own, its stderr appended
 * to monitor.log) and what is said when it does not start, and what one request reads back
 * (whatever the reply line says, garbage, nothing in time). The monitors here are fakes: small
 * scripts started as `node <argv[1]>`, or servers of this process on the real socket path; one
 * test starts the real monitor from the built ariel-runs bundle.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ArielError } from "../../errors.ts";
import { acquireLockFile, withLockFile } from "../lock-file.ts";
import {
  connectAndRequest,
  connectMonitor,
  monitorCommand,
  monitorSocketPath,
  neverAsked,
  request,
  startTimeoutMs,
} from "./client.ts";
import { MONITOR_ARG, type MonitorRequest } from "./protocol.ts";

/** The bundled ariel-runs: a real monitor (`node <bundle> --ariel-run-monitor ROOT SOCKET`). */
const RUNS_BIN = fileURLToPath(new URL("../../../../cli-runs/dist/ariel-runs.cjs", import.meta.url));

/** The fake monitors: what `node <argv[1]> --ariel-run-monitor ROOT SOCKET` runs here. */
const fakes = mkdtempSync(join(tmpdir(), "ariel-client-fakes-"));
/** Listens on SOCKET and answers each line with what it got and what it is (and saves its pid). */
const SERVE = join(fakes, "serve.cjs");
writeFileSync(
  SERVE,
  `const fs = require("node:fs");
const [, , flag, root, sock] = process.argv;
fs.writeFileSync(root + "/.ariel/fake.pid", String(process.pid));
const stat = fs.readFileSync("/proc/self/stat", "utf8");
const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
const me = {
  argv: [flag, root, sock], cwd: process.cwd(), pgrp: Number(f[2]), session: Number(f[3]),
  stdin: fs.readlinkSync("/proc/self/fd/0"), stdout: fs.readlinkSync("/proc/self/fd/1"),
};
process.stderr.write("fake monitor up\\n");
// FAKE_DELAY_MS: a monitor slow to start (a busy machine), listening only that much later.
setTimeout(() => require("node:net").createServer((c) => {
  let buf = "";
  c.on("data", (b) => {
    buf += b;
    for (let nl = buf.indexOf("\\n"); nl !== -1; nl = buf.indexOf("\\n")) {
      const got = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      c.write(JSON.stringify({ v: 1, ok: true, pid: process.pid, got, me }) + "\\n");
    }
  });
}).listen(sock), Number(process.env.FAKE_DELAY_MS ?? 0));
setTimeout(() => process.exit(0), 60000);
`,
);
/** Says why on stderr and exits 3 at once, listening on nothing. */
const EXIT = join(fakes, "exit.cjs");
writeFileSync(EXIT, `process.stderr.write("no luck\\n"); process.exit(3);\n`);
/** Ends by a signal at once, listening on nothing. */
const KILLED = join(fakes, "killed.cjs");
writeFileSync(KILLED, `process.kill(process.pid, "SIGKILL");\n`);

let dirs: string[] = [];
let servers: Server[] = [];
/** The pids of the monitors a test saw answer (killed with those found in its workspace). */
const started: number[] = [];
const saved = { argv1: process.argv[1], execPath: process.execPath, env: { ...process.env } };

beforeEach(() => {
  // Whatever a test (or a mutant) starts as a monitor is a fake, never this test runner again.
  process.argv[1] = EXIT;
});

afterEach(async () => {
  for (const d of dirs) await killMonitors(d);
  for (const s of servers) s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
  servers = [];
  process.argv[1] = saved.argv1 as string;
  process.execPath = saved.execPath;
  for (const k of Object.keys(process.env)) if (!(k in saved.env)) delete process.env[k];
  Object.assign(process.env, saved.env);
});

afterAll(() => rmSync(fakes, { recursive: true, force: true }));

/** End the monitors started in `root` (a fake's pid file, a real one's monitor.json): their whole group. */
async function killMonitors(root: string): Promise<void> {
  const pids: number[] = [];
  try {
    pids.push(Number(readFileSync(join(root, ".ariel", "fake.pid"), "utf8")));
  } catch {}
  try {
    pids.push(
      (JSON.parse(readFileSync(join(root, ".ariel", "monitor.json"), "utf8")) as { pid: number }).pid,
    );
  } catch {}
  for (const pid of [...pids, ...started.splice(0)]) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 10));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function workspace(): { root: string; socket: string } {
  const root = mkdtempSync(join(tmpdir(), "ariel-client-"));
  dirs.push(root);
  mkdirSync(join(root, ".ariel"));
  return { root, socket: join(root, ".ariel", "monitor.sock") };
}

/** A stand-in monitor of this process on `path`: each request line is handed to `onLine`. */
function listen(path: string, onLine: (c: Socket, line: string) => void): Promise<{ conns: () => number }> {
  let conns = 0;
  const server = createServer((c) => {
    conns++;
    let buf = "";
    c.on("data", (b) => {
      buf += b.toString();
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        onLine(c, line);
      }
    });
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(path, () => resolve({ conns: () => conns })));
}

const req: MonitorRequest = { v: 1, op: "ping" };

/** What the SERVE fake answers to `req` when started for `root` on `socket`. */
function served(root: string, socket: string, pid: number) {
  return {
    v: 1,
    ok: true,
    pid,
    got: req,
    me: {
      argv: [MONITOR_ARG, root, socket],
      cwd: root,
      pgrp: pid,
      session: pid,
      stdin: "/dev/null",
      stdout: "/dev/null",
    },
  };
}

/** The files this process holds open under `dir`. */
function openUnder(dir: string): string[] {
  return readdirSync("/proc/self/fd")
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return "";
      }
    })
    .filter((p) => p.startsWith(dir));
}

describe("monitorSocketPath: the workspace's socket, or a private one in tmp when the path is too long", () => {
  it.each([
    ["exactly 100 bytes stays in the workspace", "a".repeat(75), 100, "workspace"],
    ["101 bytes moves to tmp", "a".repeat(76), 101, "tmp"],
    ["100 characters of more bytes moves to tmp", "é".repeat(75), 175, "tmp"],
  ])("%s", (_name, tail, bytes, where) => {
    const tmp = mkdtempSync(join(tmpdir(), "ariel-client-tmp-"));
    dirs.push(tmp);
    process.env.TMPDIR = tmp;
    const root = `/tmp/${tail}`;
    expect(Buffer.byteLength(`${root}/.ariel/monitor.sock`)).toBe(bytes);
    const expected =
      where === "workspace" ? `${root}/.ariel/monitor.sock` : `${tmp}/ariel-${process.getuid?.()}/h1.sock`;
    expect(monitorSocketPath(root, "h1")).toBe(expected);
    expect(existsSync(`${tmp}/ariel-${process.getuid?.()}`)).toBe(where === "tmp");
  });

  it("the tmp dir is this user's alone (0700) and is reused as it is", () => {
    const tmp = mkdtempSync(join(tmpdir(), "ariel-client-tmp-"));
    dirs.push(tmp);
    process.env.TMPDIR = tmp;
    const root = `/tmp/${"b".repeat(200)}`;
    const dir = `${tmp}/ariel-${process.getuid?.()}`;
    expect([monitorSocketPath(root, "h1"), monitorSocketPath(root, "h2")]).toEqual([
      `${dir}/h1.sock`,
      `${dir}/h2.sock`,
    ]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});

describe("monitorCommand: this CLI again with the hidden argument (its source under Deno)", () => {
  it.each([
    ["node, a bundle", undefined, "/x/ariel-runs.cjs", [process.execPath, "/x/ariel-runs.cjs", MONITOR_ARG]],
    ["node, no script", undefined, undefined, [process.execPath, "", MONITOR_ARG]],
    [
      "deno, a source",
      "/opt/deno",
      "/x/main.ts",
      ["/opt/deno", "run", "-A", "--quiet", "/x/main.ts", MONITOR_ARG],
    ],
    ["deno, no script", "/opt/deno", undefined, ["/opt/deno", "run", "-A", "--quiet", "", MONITOR_ARG]],
  ])("%s", (_name, deno, argv1, expected) => {
    const g = globalThis as { Deno?: unknown };
    const argv = process.argv.slice();
    process.argv.splice(1);
    if (argv1 !== undefined) process.argv[1] = argv1;
    if (deno !== undefined) g.Deno = { execPath: () => deno };
    try {
      expect(monitorCommand()).toEqual(expected);
    } finally {
      delete g.Deno;
      process.argv.splice(0, process.argv.length, ...argv);
    }
  });
});

describeStart();
describeStartFailures();
describeRequest();
describeAfterRequest();

function describeStart(): void {
  describe("connectMonitor: none answers, so it starts one (under the monitor lock)", () => {
    it("a started monitor: argv[1] --ariel-run-monitor ROOT SOCKET, in ROOT, a session of its own, stderr to monitor.log", async () => {
      const { root, socket } = workspace();
      writeFileSync(join(root, ".ariel", "monitor.log"), "old\n");
      process.argv[1] = SERVE;
      const { sock, reply } = await connectAndRequest(root, "h", req);
      sock.destroy();
      const pid = (reply as { pid: number }).pid;
      expect(reply).toEqual(served(root, socket, pid));
      expect(readFileSync(join(root, ".ariel", "monitor.log"), "utf8")).toBe("old\nfake monitor up\n");
      // The lock is released and the log is not held open here.
      expect(readdirSync(join(root, ".ariel")).sort()).toEqual(["fake.pid", "monitor.log", "monitor.sock"]);
      expect(openUnder(root)).toEqual([]);
    });

    it("a socket file nobody listens on (a monitor that died) is replaced", async () => {
      const { root, socket } = workspace();
      writeFileSync(socket, "");
      process.argv[1] = SERVE;
      const { sock, reply } = await connectAndRequest(root, "h", req);
      sock.destroy();
      expect(reply).toEqual(served(root, socket, (reply as { pid: number }).pid));
    });

    it("a monitor another CLI started while this one waited for the lock is used: none is started", async () => {
      const { root, socket } = workspace();
      const b = await withLockFile(join(root, ".ariel", "monitor.lock"), { what: "test" }, async () => {
        // Its first connect is made (and refused: nothing listens yet) before this call returns.
        const p = connectMonitor(root, "h");
        const server = await listen(socket, (c) => c.write('{"v":1,"ok":true,"pid":7}\n'));
        return { p, server };
      });
      const sock = await b.p;
      expect(await request(sock, req)).toEqual({ v: 1, ok: true, pid: 7 });
      sock.destroy();
      expect(b.server.conns()).toBe(1);
      expect(existsSync(join(root, ".ariel", "monitor.log"))).toBe(false);
    });

    it("the real monitor (the ariel-runs bundle) answers a ping; the next CLI finds the same one", async () => {
      const { root, socket } = workspace();
      process.argv[1] = RUNS_BIN;
      process.env.ARIEL_MONITOR_IDLE_MS = "60000";
      const first = await connectAndRequest(root, "h", req);
      first.sock.destroy();
      const pid = (first.reply as { pid: number }).pid;
      started.push(pid);
      expect(first.reply).toEqual({ v: 1, ok: true, pid });
      expect(pid).not.toBe(process.pid);
      const second = await connectAndRequest(root, "h", req);
      second.sock.destroy();
      expect(second.reply).toEqual({ v: 1, ok: true, pid });
      // It says who it is once it listens (it may answer a ping just before).
      const info = join(root, ".ariel", "monitor.json");
      for (let i = 0; i < 500 && !existsSync(info); i++) await new Promise((r) => setTimeout(r, 10));
      expect(JSON.parse(readFileSync(info, "utf8"))).toMatchObject({ type: "monitor", pid, socket });
    });
  });
}

function describeStartFailures(): void {
  // Bounded well below the 30 s a start is waited for: a monitor that exited is noticed at once.
  const bound = { timeout: 8000 };
  const didNotStart = (root: string, socket: string, why = "it exited with status 3") => ({
    v: 1,
    type: "error",
    code: "ERR_MONITOR",
    message: `the run monitor for ${root} did not start: ${why}`,
    hint: `see ${root}/.ariel/monitor.log`,
    exit: 69,
    root,
    socket,
  });

  describe("connectMonitor: a monitor that does not start", () => {
    it(
      "one that exits at once: ERR_MONITOR naming its log, where its stderr was appended",
      bound,
      async () => {
        const { root, socket } = workspace();
        writeFileSync(join(root, ".ariel", "monitor.log"), "old\n");
        const e = (await connectMonitor(root, "h").catch((x: unknown) => x)) as ArielError;
        expect(e.toRecord()).toEqual(didNotStart(root, socket));
        expect(readFileSync(join(root, ".ariel", "monitor.log"), "utf8")).toBe("old\nno luck\n");
        expect(openUnder(root)).toEqual([]);
      },
    );

    it("one that cannot even be spawned (no such runtime): the same", bound, async () => {
      const { root, socket } = workspace();
      process.execPath = join(root, "no-such-node");
      const e = (await connectMonitor(root, "h").catch((x: unknown) => x)) as ArielError;
      expect(e.toRecord()).toEqual(didNotStart(root, socket, "it could not be spawned (ENOENT)"));
    });

    it("one killed by a signal before it listened: the signal is named", bound, async () => {
      const { root, socket } = workspace();
      process.argv[1] = KILLED;
      const e = (await connectMonitor(root, "h").catch((x: unknown) => x)) as ArielError;
      expect(e.toRecord()).toEqual(didNotStart(root, socket, "it was killed by SIGKILL"));
    });

    it(
      "one still not listening after ARIEL_MONITOR_START_MS: ERR_MONITOR, and it is killed",
      bound,
      async () => {
        const { root, socket } = workspace();
        process.argv[1] = SERVE;
        process.env.FAKE_DELAY_MS = "60000";
        process.env.ARIEL_MONITOR_START_MS = "300";
        const e = (await connectMonitor(root, "h").catch((x: unknown) => x)) as ArielError;
        expect(e.toRecord()).toEqual(didNotStart(root, socket, "it did not listen within 300 ms"));
        // Not left to listen later beside the monitor the next CLI would start.
        const pid = Number(readFileSync(join(root, ".ariel", "fake.pid"), "utf8"));
        await expect.poll(() => alive(pid), { timeout: 5000 }).toBe(false);
        expect(existsSync(socket)).toBe(false);
      },
    );

    it("one slow to listen (a busy machine) is waited for while it starts, and used", bound, async () => {
      const { root } = workspace();
      process.argv[1] = SERVE;
      process.env.FAKE_DELAY_MS = "1000";
      process.env.ARIEL_MONITOR_START_MS = "5000";
      const sock = await connectMonitor(root, "h");
      const reply = await request(sock, req);
      sock.destroy();
      expect(reply).toMatchObject({
        ok: true,
        pid: Number(readFileSync(join(root, ".ariel", "fake.pid"), "utf8")),
      });
    });

    it("a CLI queued behind another's start waits past the start's own bound, and uses what it started", async () => {
      const { root, socket } = workspace();
      process.env.ARIEL_MONITOR_START_MS = "200";
      // Another CLI (the lock file, not this process's queue) starting a monitor for 1 s.
      const other = await acquireLockFile(join(root, ".ariel", "monitor.lock"));
      const p = connectMonitor(root, "h");
      await new Promise((r) => setTimeout(r, 1000));
      const server = await listen(socket, (c) => c.write('{"v":1,"ok":true,"pid":7}\n'));
      await other.release();
      const sock = await p;
      expect(await request(sock, req)).toEqual({ v: 1, ok: true, pid: 7 });
      sock.destroy();
      expect([server.conns(), existsSync(join(root, ".ariel", "monitor.log"))]).toEqual([1, false]);
    });

    it("a start that holds the lock past the bound and 5 s more: ERR_LOCKED naming the monitor lock", {
      timeout: 30_000,
    }, async () => {
      const { root } = workspace();
      process.env.ARIEL_MONITOR_START_MS = "100";
      const lock = join(root, ".ariel", "monitor.lock");
      const other = await acquireLockFile(lock);
      const t0 = Date.now();
      const e = (await connectMonitor(root, "h").catch((x: unknown) => x)) as ArielError;
      const waited = Date.now() - t0;
      await other.release();
      expect([e.code, e.message]).toEqual([
        "ERR_LOCKED",
        `monitor lock ${lock} is held by pid ${process.pid} on ${hostname()}`,
      ]);
      // At least the bound and 5 s (a busy machine only makes it longer).
      expect(waited).toBeGreaterThanOrEqual(5100);
    });

    it("the wait: 30 s, or ARIEL_MONITOR_START_MS when it is a positive number", () => {
      expect(
        [
          {},
          { ARIEL_MONITOR_START_MS: "1500" },
          { ARIEL_MONITOR_START_MS: "0" },
          { ARIEL_MONITOR_START_MS: "-5" },
          { ARIEL_MONITOR_START_MS: "soon" },
        ].map((env) => startTimeoutMs(env)),
      ).toEqual([30_000, 1500, 30_000, 30_000, 30_000]);
    });
  });

  describe("neverAsked: whether a failed request reached any monitor", () => {
    it("no monitor started: never asked (the detached start takes back what it made)", bound, async () => {
      const { root, socket } = workspace();
      const e = await connectAndRequest(root, "h", req).catch((x: unknown) => x);
      expect([(e as ArielError).toRecord(), neverAsked(e)]).toEqual([didNotStart(root, socket), true]);
    });

    it(
      "a monitor that took the request and said nothing: asked (it may still act on it)",
      bound,
      async () => {
        const { root, socket } = workspace();
        process.env.ARIEL_MONITOR_REPLY_MS = "50";
        await listen(socket, () => {});
        const e = await connectAndRequest(root, "h", req).catch((x: unknown) => x);
        expect([(e as ArielError).code, neverAsked(e)]).toEqual(["ERR_MONITOR", false]);
      },
    );

    it("anything else: not one of its errors", () => {
      expect([neverAsked(new Error("x")), neverAsked("x"), neverAsked(null)]).toEqual([false, false, false]);
    });
  });

  describe("connectAndRequest: the socket was gone as soon as it connected", () => {
    it("a close without reply then is an idle monitor leaving: it starts one and asks it", async () => {
      const { root, socket } = workspace();
      process.argv[1] = SERVE;
      const old = await listen(socket, (c) => c.destroy());
      const p = connectAndRequest(root, "h", req);
      // The connect is made by now; the leaving monitor removes its socket before anything is read.
      rmSync(socket);
      const { sock, reply } = await p;
      sock.destroy();
      expect(reply).toEqual(served(root, socket, (reply as { pid: number }).pid));
      expect(old.conns()).toBe(1);
    });
  });
}

function describeRequest(): void {
  describe("request: the first line the monitor writes is the reply, as it is", () => {
    it.each([
      ["an ok reply", ['{"v":1,"ok":true,"pid":5}\n'], { v: 1, ok: true, pid: 5 }],
      [
        "an error reply (returned, not thrown)",
        ['{"v":1,"ok":false,"code":"ERR_USAGE","message":"no"}\n'],
        { v: 1, ok: false, code: "ERR_USAGE", message: "no" },
      ],
      [
        "another protocol version's reply",
        ['{"v":2,"ok":false,"code":"ERR_MONITOR","message":"v2"}\n'],
        { v: 2, ok: false, code: "ERR_MONITOR", message: "v2" },
      ],
      ["a line in two writes", ['{"v":1,"ok":', 'true,"pid":6}\n'], { v: 1, ok: true, pid: 6 }],
      ["two lines: the first", ['{"pid":1}\n{"pid":2}\n'], { pid: 1 }],
    ])("%s", async (_name, writes, expected) => {
      const { root, socket } = workspace();
      const server = await listen(socket, (c) => {
        const [head, ...rest] = writes;
        c.write(head as string);
        if (rest.length > 0) setImmediate(() => c.write(rest.join("")));
      });
      const { sock, reply } = await connectAndRequest(root, "h", req);
      sock.destroy();
      expect(reply).toEqual(expected);
      expect(server.conns()).toBe(1);
    });

    it("a line that is not JSON: its SyntaxError, not asked again", async () => {
      const { root, socket } = workspace();
      const server = await listen(socket, (c) => c.write("nope\n"));
      const e = await connectAndRequest(root, "h", req).catch((x: unknown) => x);
      expect([e instanceof SyntaxError, server.conns()]).toEqual([true, 1]);
    });
  });
}

function describeAfterRequest(): void {
  describe("request: no reply in time, and the connection after a reply", () => {
    it("no reply within ARIEL_MONITOR_REPLY_MS: ERR_MONITOR, the connection closed, not asked again", async () => {
      const { root, socket } = workspace();
      process.env.ARIEL_MONITOR_REPLY_MS = "50";
      let closed = 0;
      const server = await listen(socket, (c) => c.on("close", () => closed++));
      const e = (await connectAndRequest(root, "h", req).catch((x: unknown) => x)) as ArielError;
      expect(e.toRecord()).toEqual({
        v: 1,
        type: "error",
        code: "ERR_MONITOR",
        message: "the run monitor did not reply within 50 ms",
        hint: "see .ariel/monitor.log; ariel-runs list shows what did start",
        exit: 69,
      });
      for (let i = 0; i < 200 && closed === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect([closed, server.conns()]).toEqual([1, 1]);
    });

    it("the connection comes back clean for more requests: no listener of the first left, errors swallowed", async () => {
      const { root, socket } = workspace();
      let n = 0;
      await listen(socket, (c) => c.write(`{"n":${++n}}\n`));
      const { sock, reply } = await connectAndRequest(root, "h", req);
      expect(reply).toEqual({ n: 1 });
      expect([sock.listenerCount("data"), sock.listenerCount("close"), sock.listenerCount("error")]).toEqual([
        0, 0, 1,
      ]);
      expect(await request(sock, req)).toEqual({ n: 2 });
      const closed = new Promise((r) => sock.once("close", r));
      sock.destroy(new Error("a late error"));
      await closed;
    });
  });
}
