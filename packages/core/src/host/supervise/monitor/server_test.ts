/**
 * The monitor's request server (`serve`), served in this process on a temp workspace's real
 * socket (_monitor_fixture.ts) and asked by the real client: each request's whole reply (ping,
 * create, start, input, attach, report, what is not a request), lines split and joined as they
 * come, a create's run record refused (nothing written) or started (run.json by the monitor),
 * a launch that throws, the clients counted, a line past the cap cut off, and a sandboxed run's
 * own socket answering only its ops.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { selfMonitorRef } from "../../runs/identity.ts";
import { createRun } from "../../runs/store.ts";
import { connectAndRequest } from "../client.ts";
import { MONITOR_ARG, type MonitorRequest, REPORT_ARG } from "../protocol.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import {
  CHILD_PATH,
  ended,
  eventNames,
  json,
  type LiveMonitor,
  newRunId,
  plannedRun,
  startRuns,
  until,
  useServedMonitor,
} from "./_monitor_fixture.ts";
import { runCliOrMonitor, runMonitor } from "./entry.ts";
import { SANDBOX_OPS } from "./sandbox.ts";
import { serve } from "./server.ts";

let l: LiveMonitor;
const logged = captureMonitorLog();
useServedMonitor(
  () => tempDir("ariel-serve-"),
  (m) => {
    l = m;
  },
);

/** One request through the real client; its reply (the connection closed). */
async function ask(req: MonitorRequest | Record<string, unknown>): Promise<unknown> {
  const { sock, reply } = await connectAndRequest(l.root, l.hash, req as MonitorRequest);
  sock.destroy();
  return reply;
}

/** A raw connection to `path`: `chunks` written one after the other, the first `n` reply lines read. */
async function exchange(path: string, chunks: readonly string[], n: number): Promise<unknown[]> {
  const sock = await new Promise<Socket>((resolve, reject) => {
    const s = connect(path, () => resolve(s));
    s.once("error", reject);
    s.on("error", () => {}); // cut off while it writes: EPIPE, ECONNRESET
  });
  try {
    let buf = "";
    sock.setEncoding("utf8");
    const got = new Promise<void>((resolve) => {
      sock.on("data", (t: string) => {
        buf += t;
        if (buf.split("\n").length > n) resolve();
      });
      sock.once("close", () => resolve());
    });
    for (const c of chunks) await new Promise<void>((r) => sock.write(c, () => r()));
    await got;
    return buf
      .split("\n")
      .slice(0, n)
      .map((line) => JSON.parse(line) as unknown);
  } finally {
    sock.destroy();
  }
}

const pid = process.pid;
const parseError = (text: string) => {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  return "";
};

describe("serve: each request's reply", () => {
  it.each([
    ["ping", { v: 1, op: "ping" }, { v: 1, ok: true, pid }],
    [
      "another protocol",
      { v: 2, op: "ping" },
      { v: 1, ok: false, code: "ERR_MONITOR", message: "protocol v2 not spoken" },
    ],
    [
      "no version",
      { op: "ping" },
      { v: 1, ok: false, code: "ERR_MONITOR", message: "protocol vundefined not spoken" },
    ],
    [
      "an op it does not know",
      { v: 1, op: "kill" },
      { v: 1, ok: false, code: "ERR_MONITOR", message: "unknown op" },
    ],
    ["create of no runs", { v: 1, op: "create", runs: [] }, { v: 1, ok: true, pid, results: [] }],
    ["start of no runs", { v: 1, op: "start", runs: [] }, { v: 1, ok: true, pid, results: [] }],
    [
      "input for no run",
      { v: 1, op: "input", runId: "20261206T000000Z-zzzzzz", data: "" },
      { v: 1, ok: false, code: "ERR_RUN_NOT_FOUND", message: "no interactive child for this run" },
    ],
    [
      "attach to no tty run",
      { v: 1, op: "attach", runId: "20261206T000000Z-zzzzzz" },
      { v: 1, ok: false, code: "ERR_RUN_NOT_FOUND", message: "no live tty run by that id" },
    ],
    [
      "a report for no wired run",
      {
        v: 1,
        op: "report",
        runId: "20261206T000000Z-zzzzzz",
        token: "t",
        agent: "claude",
        at: 0,
        payload: {},
      },
      { v: 1, ok: false, code: "ERR_REPORT_REFUSED", message: "no wired run of that id in this monitor" },
    ],
  ])("%s", async (_name, req, reply) => {
    expect(await ask(req)).toEqual(reply);
  });

  it.each([
    ["a number", "7"],
    ["a string", '"ping"'],
    ["true", "true"],
    ["null", "null"],
  ])("%s: not a request", async (_name, line) => {
    expect(await exchange(l.socket, [`${line}\n`], 1)).toEqual([
      { v: 1, ok: false, code: "ERR_MONITOR", message: "not a request" },
    ]);
  });

  it("null, then a ping in the same write: each answered, in order", async () => {
    expect(await exchange(l.socket, ['null\n{"v":1,"op":"ping"}\n'], 2)).toEqual([
      { v: 1, ok: false, code: "ERR_MONITOR", message: "not a request" },
      { v: 1, ok: true, pid: process.pid },
    ]);
  });
});

describe("serve: lines as they come, and its clients", () => {
  it("a line that is not JSON: ERR_MONITOR with the parser's message", async () => {
    expect(await exchange(l.socket, ["{nope\n"], 1)).toEqual([
      { v: 1, ok: false, code: "ERR_MONITOR", message: parseError("{nope") },
    ]);
  });

  it("two lines in one write, one line in three: each answered, in order", async () => {
    const replies = await exchange(
      l.socket,
      ['{"v":1,"op":"ping"}\n{"v":1,"op":"x"}\n{"v":1,', '"op":', '"ping"}\n'],
      3,
    );
    expect(replies).toEqual([
      { v: 1, ok: true, pid },
      { v: 1, ok: false, code: "ERR_MONITOR", message: "unknown op" },
      { v: 1, ok: true, pid },
    ]);
  });

  it("a client is counted while connected; activity is noted", async () => {
    l.m.lastActivity = 0;
    const sock = connect(l.socket);
    expect(await until(() => l.m.connections === 1)).toBe(true);
    expect(l.m.lastActivity).toBeGreaterThan(0);
    l.m.lastActivity = 0;
    sock.destroy();
    expect(await until(() => l.m.connections === 0)).toBe(true);
    expect(l.m.lastActivity).toBeGreaterThan(0);
  });
});

/** The 16 MiB a client may send without a newline. */
const MAX_LINE = 16 << 20;

describe("serve: a line past the cap", () => {
  it("more than 16 MiB without a newline: cut off, said in monitor.log", async () => {
    const replies = await exchange(l.socket, ["x".repeat(MAX_LINE + 1)], 1).catch((e: Error) => e.message);
    expect(replies).toBe("Unexpected end of JSON input");
    expect(logged.join("")).toContain(`a client sent ${MAX_LINE + 1} characters without a newline: cut off`);
  });

  it("more than 16 MiB with its newline: read as a line (not JSON here)", async () => {
    const line = "x".repeat(MAX_LINE);
    expect(await exchange(l.socket, [`${line}\n`], 1)).toEqual([
      { v: 1, ok: false, code: "ERR_MONITOR", message: parseError(line) },
    ]);
    expect(logged.join("")).not.toContain("cut off");
  });

  it("exactly 16 MiB, then its newline: read as a line", async () => {
    const line = "x".repeat(MAX_LINE);
    const settle = () => new Promise((r) => setTimeout(r, 50));
    const replies = await exchangeAfter(line, settle);
    expect(replies).toEqual([{ v: 1, ok: false, code: "ERR_MONITOR", message: parseError(line) }]);
  });
});

/** `line` written, a pause, then its newline, on one connection: the reply. */
async function exchangeAfter(line: string, pause: () => Promise<unknown>): Promise<unknown[]> {
  const sock = connect(l.socket);
  sock.on("error", () => {});
  try {
    let buf = "";
    sock.setEncoding("utf8");
    sock.on("data", (t: string) => {
      buf += t;
    });
    await new Promise<void>((r) => sock.write(line, () => r()));
    await pause();
    sock.write("\n");
    await until(() => buf.includes("\n") || sock.destroyed);
    return buf === "" ? [] : [JSON.parse(buf.slice(0, buf.indexOf("\n")))];
  } finally {
    sock.destroy();
  }
}

/** A create of `record` for run `runId`; its reply. */
const create = (runId: string, record?: unknown) =>
  ask({ v: 1, op: "create", runs: [{ runId, env: {}, ...(record === undefined ? {} : { record }) }] });
const ME = { pid: 1, startTime: "1", bootId: "44f281d3-eed0-4246-9d1e-e9ef626c2dd4" };
const AT = "2026-12-06T00:00:01.000Z";

describe("create: a run record refused, nothing written", () => {
  it.each([
    ["no record", () => undefined, "no record for this run"],
    ["a record of another run", () => ({ runId: newRunId() }), "no record for this run"],
    ["an invalid record", () => ({ argv: "true" }), "the run record is not valid (argv)"],
    ["another backend", () => ({ backend: "k8s" }), "not a local run of this workspace"],
    [
      "another workspace",
      () => ({ workspace: { root: "/elsewhere", hash: l.hash } }),
      "not a local run of this workspace",
    ],
    ["a monitor", () => ({ monitor: ME }), "not a new run"],
    ["a child", () => ({ child: { pid: 2, pgid: 2, startTime: "1" } }), "not a new run"],
    [
      "an exit",
      () => ({
        exit: { code: 0, signal: null, status: 0, endedAt: AT, state: "exited", reason: null },
        endedAt: AT,
      }),
      "not a new run",
    ],
    ["a kill", () => ({ kill: { requestedAt: AT, signal: "SIGTERM", reason: "kill" } }), "not a new run"],
    ["an end", () => ({ endedAt: AT }), "not a new run"],
  ])("%s", async (_name, over, message) => {
    const runId = newRunId();
    mkdirSync(runPaths(l.root, runId).dir, { recursive: true });
    const o = over();
    const record = o === undefined ? undefined : plannedRun(l, runId, o as Partial<PlannedRun>);
    expect(await create(runId, record)).toEqual({
      v: 1,
      ok: true,
      pid,
      results: [{ runId, ok: false, status: 125, code: "ERR_MONITOR", message }],
    });
    expect([existsSync(runPaths(l.root, runId).record), existsSync(runPaths(l.root, runId).stdout)]).toEqual([
      false,
      false,
    ]);
    expect(l.m.active.size).toBe(0);
  });
});

describe("create and start: runs launched", () => {
  it("create of two runs: each started, in order, its run.json written by the monitor with its child", async () => {
    const [a, b] = [newRunId(), newRunId()];
    const results = await startRuns(l, [
      plannedRun(l, a),
      plannedRun(l, b, { argv: ["sh", "-c", "exit 4"] }),
    ]);
    expect([await ended(l, a), await ended(l, b)]).toEqual([true, true]);
    const children = [a, b].map(
      (id) => json(runPaths(l.root, id).record).child as { pid: number; pgid: number },
    );
    expect(results).toEqual([
      { runId: a, ok: true, child: children[0] },
      { runId: b, ok: true, child: children[1] },
    ]);
    expect(children.map((c) => c.pgid === c.pid)).toEqual([true, true]);
    expect([json(runPaths(l.root, a).exit).status, json(runPaths(l.root, b).exit).status]).toEqual([0, 4]);
  });

  it("start of a run whose run.json the client wrote: the monitor takes it over and ends it", async () => {
    const runId = newRunId();
    mkdirSync(runPaths(l.root, runId).dir, { recursive: true });
    await createRun(l.root, plannedRun(l, runId, { argv: ["sh", "-c", "exit 5"] }));
    const reply = await ask({ v: 1, op: "start", runs: [{ runId, env: { PATH: CHILD_PATH } }] });
    expect(await ended(l, runId)).toBe(true);
    const rec = json(runPaths(l.root, runId).record);
    expect(reply).toEqual({ v: 1, ok: true, pid, results: [{ runId, ok: true, child: rec.child }] });
    expect(rec.monitor).toEqual(l.m.me);
    expect(eventNames(l.root, runId)).toEqual(["process.started", "process.exited", "run.finished"]);
    expect((rec.exit as { status: number }).status).toBe(5);
  });

  it("a launch that throws (its run directory missing): ERR_SPAWN 125, the run not kept", async () => {
    const runId = newRunId();
    expect(await create(runId, plannedRun(l, runId))).toEqual({
      v: 1,
      ok: true,
      pid,
      results: [
        {
          runId,
          ok: false,
          status: 125,
          code: "ERR_SPAWN",
          message: `ENOENT: no such file or directory, open '${runPaths(l.root, runId).stdout}'`,
        },
      ],
    });
    expect(l.m.active.size).toBe(0);
  });
});

describe("input: an interactive run's stdin", () => {
  it("input to an interactive run: its data on the child's stdin, an empty one ends it", async () => {
    const runId = newRunId();
    await startRuns(l, [plannedRun(l, runId, { argv: ["cat"], interactive: true })]);
    const data = Buffer.from("hello\n").toString("base64");
    expect(await ask({ v: 1, op: "input", runId, data })).toEqual({ v: 1, ok: true, pid });
    expect(await ask({ v: 1, op: "input", runId, data: "" })).toEqual({ v: 1, ok: true, pid });
    expect(await ended(l, runId)).toBe(true);
    expect(readFileSync(runPaths(l.root, runId).stdout, "utf8")).toBe("hello\n");
    expect(json(runPaths(l.root, runId).exit).status).toBe(0);
  });

  it("input to a run that is not interactive: no child stdin to write", async () => {
    const runId = newRunId();
    await startRuns(l, [plannedRun(l, runId, { argv: ["sleep", "5"] })]);
    expect(await ask({ v: 1, op: "input", runId, data: "" })).toEqual({
      v: 1,
      ok: false,
      code: "ERR_RUN_NOT_FOUND",
      message: "no interactive child for this run",
    });
  });
});

describe("serve: a sandboxed run's own socket (only its ops)", () => {
  let own: Server;
  let path: string;
  beforeEach(async () => {
    path = join(l.root, ".ariel", "own.sock");
    own = createServer((sock) => serve(l.m, sock, SANDBOX_OPS));
    await new Promise<void>((r) => own.listen(path, () => r()));
  });
  afterEach(async () => {
    await new Promise<void>((r) => own.close(() => r()));
  });

  it.each<[string, string, Record<string, unknown>]>([
    ["ping", '{"v":1,"op":"ping"}', { v: 1, ok: true, pid }],
    [
      "a report (its own run's)",
      '{"v":1,"op":"report","runId":"x","token":"","agent":"claude","at":0,"payload":{}}',
      { v: 1, ok: false, code: "ERR_REPORT_REFUSED", message: "no wired run of that id in this monitor" },
    ],
    // what is no request at all is said so, as on the workspace's socket
    ["null", "null", { v: 1, ok: false, code: "ERR_MONITOR", message: "not a request" }],
    ["a number", "7", { v: 1, ok: false, code: "ERR_MONITOR", message: "not a request" }],
    ...["create", "start", "input", "attach"].map((op): [string, string, Record<string, unknown>] => [
      op,
      `{"v":1,"op":"${op}","runId":"x","runs":[]}`,
      { v: 1, ok: false, code: "ERR_SANDBOXED", message: `a sandboxed run may not ask "${op}"` },
    ]),
  ])("%s", async (_name, line, reply) => {
    expect(await exchange(path, [`${line}\n`], 1)).toEqual([reply]);
  });
});

/**
 * The monitor process's own entry (entry.ts) run in this process: its process handlers taken
 * off again afterwards, and its listener (left unreferenced when it goes idle, for the process
 * to end) caught at its creation and closed.
 */
const EVENTS = ["SIGHUP", "SIGINT", "uncaughtException", "unhandledRejection"] as const;
type Handler = (...a: unknown[]) => void;

/**
 * Around each test: the listeners `runMonitor` adds taken off again, every server it creates
 * caught and closed, and an idle time of 100 ms; the servers made and the listeners added.
 */
function entryHooks() {
  const netMod = process.getBuiltinModule("node:net") as typeof import("node:net");
  const realCreate = netMod.createServer;
  let servers: Server[];
  /** The listeners of `e` (the process's own emitter typing takes only signals or only its events). */
  const listeners = (e: string) => (process as unknown as NodeJS.EventEmitter).listeners(e) as Handler[];
  let before: Map<string, Handler[]>;
  let idle: string | undefined;
  beforeEach(() => {
    servers = [];
    before = new Map(EVENTS.map((e) => [e, listeners(e)]));
    (netMod as { createServer: unknown }).createServer = (...args: unknown[]) => {
      const s = (realCreate as (...a: unknown[]) => Server)(...args);
      servers.push(s);
      return s;
    };
    idle = process.env.ARIEL_MONITOR_IDLE_MS;
    process.env.ARIEL_MONITOR_IDLE_MS = "100";
  });
  afterEach(async () => {
    (netMod as { createServer: unknown }).createServer = realCreate;
    for (const e of EVENTS) for (const h of added(e)) (process as unknown as NodeJS.EventEmitter).off(e, h);
    for (const s of servers) await new Promise((r) => s.close(() => r(null)));
    if (idle === undefined) delete process.env.ARIEL_MONITOR_IDLE_MS;
    else process.env.ARIEL_MONITOR_IDLE_MS = idle;
  });
  const added = (e: (typeof EVENTS)[number]) => listeners(e).filter((h) => !before.get(e)?.includes(h));

  return { servers: () => servers, added };
}

describe("runMonitor and runCliOrMonitor", () => {
  const { servers, added } = entryHooks();

  it("serves the workspace's socket, says where in monitor.json, and once idle removes both and resolves 0", async () => {
    const root = tempDir("ariel-entry-");
    const socket = join(root, "m.sock");
    mkdirSync(join(root, ".ariel"));
    try {
      const done = runCliOrMonitor([MONITOR_ARG, root, socket], async () => 9);
      const info = join(root, ".ariel/monitor.json");
      expect(await until(() => existsSync(info))).toBe(true);
      expect(json(info)).toEqual({ v: 1, type: "monitor", ...selfMonitorRef(), socket });
      expect(await askAt(socket, '{"v":1,"op":"ping"}')).toEqual({ v: 1, ok: true, pid });
      expect(EVENTS.map((e) => added(e).length)).toEqual([1, 1, 1, 1]);
      // monitor.json is there before its directory is synced, and the line is logged after that.
      expect(await until(() => said().length > 0)).toBe(true);
      added("uncaughtException")[0]?.(Object.assign(new Error("x"), { stack: "STACK" }));
      added("unhandledRejection")[0]?.("why");
      expect(await done).toBe(0);
      expect([existsSync(socket), existsSync(info)]).toEqual([false, false]);
      expect(said()).toEqual([
        `listening on ${socket} for ${root}\n`,
        "uncaught: STACK\n",
        "unhandled: why\n",
        "idle: exiting\n",
      ]);
    } finally {
      removeDir(root);
    }
  });

  it("a monitor.json that is another monitor's by now is left", async () => {
    const root = tempDir("ariel-entry-");
    const socket = join(root, "m.sock");
    mkdirSync(join(root, ".ariel"));
    try {
      const done = runMonitor(root, socket);
      const info = join(root, ".ariel/monitor.json");
      expect(await until(() => existsSync(info))).toBe(true);
      writeFileSync(info, '{"pid":1}\n');
      expect(await done).toBe(0);
      expect(readFileSync(info, "utf8")).toBe('{"pid":1}\n');
    } finally {
      removeDir(root);
    }
  });

  it("a socket another monitor listens on: rejected, nothing written", async () => {
    await expect(runMonitor(l.root, l.socket)).rejects.toMatchObject({ code: "EADDRINUSE" });
    expect(existsSync(join(l.root, ".ariel/monitor.json"))).toBe(false);
  });

  // The agents' reporter's hidden argument: the report sent to the socket the run's environment
  // names, for the agent named after the argument, then 0; the CLI is not run.
  it("the reporter's argument: the agent's report sent, 0, not the CLI", async () => {
    const dir = tempDir("ariel-entry-report-");
    const socket = join(dir, "r.sock");
    const lines: string[] = [];
    const got = createServer((s) => s.on("data", (b) => lines.push(String(b))));
    await new Promise<void>((r) => got.listen(socket, r));
    const saved = { ...process.env };
    Object.assign(process.env, {
      ARIEL_REPORT_SOCKET: socket,
      ARIEL_REPORT_RUN: "r1",
      ARIEL_REPORT_TOKEN: "t1",
    });
    try {
      const status = await runCliOrMonitor(
        [REPORT_ARG, "claude", '{"hook_event_name":"Stop"}'],
        async () => 7,
      );
      expect(await until(() => lines.join("").endsWith("\n"))).toBe(true);
      const req = JSON.parse(lines.join(""));
      expect([status, req.op, req.agent, req.runId, req.token, req.payload]).toEqual([
        0,
        "report",
        "claude",
        "r1",
        "t1",
        { hook_event_name: "Stop" },
      ]);
    } finally {
      for (const k of ["ARIEL_REPORT_SOCKET", "ARIEL_REPORT_RUN", "ARIEL_REPORT_TOKEN"])
        delete process.env[k];
      Object.assign(process.env, saved);
      await new Promise((r) => got.close(r));
      removeDir(dir);
    }
  });

  it.each([
    ["no argument", []],
    ["another argument", ["--help"]],
    ["the monitor's without its socket", [MONITOR_ARG, "/r"]],
    ["the monitor's without its root", [MONITOR_ARG]],
  ])("%s: the CLI", async (_name, argv) => {
    expect(await runCliOrMonitor(argv, async () => 7)).toBe(7);
    expect(servers()).toEqual([]);
  });
});

const said = () => logged.map((line) => line.replace(/^\S+ monitor \d+: /, ""));

/** One request line to the unix socket at `path`; its parsed reply. */
function askAt(path: string, line: string): Promise<unknown> {
  return exchange(path, [`${line}\n`], 1).then((r) => r[0]);
}
