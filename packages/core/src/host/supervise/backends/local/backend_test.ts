/**
 * The local backend (backend.ts and the small files it delegates to), in-process against real
 * temp workspaces: runs written directly with the runs store (no monitor), real children in
 * process groups of their own for the signals, and a stand-in monitor of this process on the
 * workspace's socket for the requests (`create`, `start`, `input`): what each sends, exactly, and
 * what a refusal or an older monitor's "unknown op" makes of it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ArielError } from "../../../../errors.ts";
import { workspaceHash } from "../../../../hash.ts";
import type { RunView, StartRequest } from "../../../../runs/backend.ts";
import type { PlannedRun } from "../../../../runs/plan.ts";
import type { RunRecord } from "../../../../runs/record.ts";
import { processGone, removeDir, tempDir } from "../../../_fixture.ts";
import { processStartTime } from "../../../proc.ts";
import { runFields } from "../../../runs/_fixture.ts";
import { selfMonitorRef } from "../../../runs/identity.ts";
import { createRun, writeExitOnce } from "../../../runs/store.ts";
import { monitorSocketPath } from "../../client.ts";
import { localBackend } from "./backend.ts";
import { startLocal } from "./start.ts";

const A = "20261202T110943Z-aaaaaa";
const B = "20261202T110944Z-bbbbbb";
const C = "20261202T110945Z-cccccc";
let HASH = "";
let root = "";
let servers: Server[] = [];
let children: ChildProcess[] = [];
const saved = { argv1: process.argv[1] as string };

beforeEach(async () => {
  root = tempDir("ariel-local-backend-");
  HASH = await workspaceHash(root);
  mkdirSync(join(root, ".ariel/runs"), { recursive: true });
  // A monitor started by mistake (no stand-in listening) is this script, which exits at once.
  const exit = join(root, "exit.cjs");
  writeFileSync(exit, "process.exit(3);\n");
  process.argv[1] = exit;
});

afterEach(async () => {
  process.argv[1] = saved.argv1;
  for (const s of servers) s.close();
  for (const c of children) {
    try {
      process.kill(-(c.pid as number), "SIGKILL");
    } catch {}
    await processGone(c.pid as number);
  }
  servers = [];
  children = [];
  removeDir(root);
});

const ws = () => ({ root, hash: HASH });

/** A run recorded directly (no process): `more` overrides the fixture's fields. */
async function recorded(runId: string, more: Partial<RunRecord> = {}): Promise<RunRecord> {
  return createRun(root, runFields(ws(), runId, more));
}

/** `sleep 30` in a process group of its own; its ChildRef. */
function liveChild(): { pid: number; pgid: number; startTime: string | null } {
  const c = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  children.push(c);
  const pid = c.pid as number;
  return { pid, pgid: pid, startTime: processStartTime(pid) };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface StandIn {
  /** The request lines it got, parsed, in order. */
  got: unknown[];
  /** How many of its connections were closed by the client. */
  closed: () => number;
}

/** A monitor of this process on the workspace's socket: each request is answered by `answer`. */
function standIn(answer: (req: Record<string, unknown>, n: number) => unknown): Promise<StandIn> {
  const got: unknown[] = [];
  let closed = 0;
  const server = createServer((c: Socket) => {
    let buf = "";
    c.on("close", () => closed++);
    c.on("data", (b) => {
      buf += b.toString();
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const req = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
        buf = buf.slice(nl + 1);
        got.push(req);
        c.write(`${JSON.stringify(answer(req, got.length))}\n`);
      }
    });
  });
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(monitorSocketPath(root, HASH), () => resolve({ got, closed: () => closed })),
  );
}

/** Polls until the stand-in saw `n` connections closed (2 s at most). */
async function closedBy(s: StandIn, n: number): Promise<number> {
  for (const end = Date.now() + 2000; s.closed() < n && Date.now() < end; ) {
    await new Promise((r) => setTimeout(r, 5));
  }
  return s.closed();
}

const spec = (runId: string): StartRequest => ({
  runId,
  env: { ARIEL_RUN_ID: runId, K: "v" },
  record: runFields(ws(), runId, { startedAt: null }) as unknown as PlannedRun,
});

describe("localBackend: what each operation reads and does", () => {
  // Its name, views read from the records, output bytes from the run's files, removal of the
  // directory and history.
  it("is named local; get is the run's view now (running while its monitor is this process)", async () => {
    const rec = await recorded(A, { monitor: selfMonitorRef() });
    const b = localBackend(root, HASH);
    expect(b.name).toBe("local");
    expect(await b.get(A)).toEqual({ record: rec, exit: null, state: "starting" });
  });

  it("list: every run, newest created first (not by id), a damaged record as a problem", async () => {
    const older = await recorded(B, { createdAt: "2026-12-02T11:00:00.000Z" });
    const newer = await recorded(A, { createdAt: "2026-12-02T12:00:00.000Z" });
    mkdirSync(join(root, ".ariel/runs", C));
    writeFileSync(join(root, ".ariel/runs", C, "run.json"), "{");
    const listed = await localBackend(root, HASH).list();
    expect(listed).toEqual({
      runs: [
        { record: newer, exit: null, state: "lost" },
        { record: older, exit: null, state: "lost" },
      ],
      problems: [
        {
          runId: C,
          code: "ERR_RECORD_CORRUPT",
          message: `${join(root, ".ariel/runs", C, "run.json")}: not valid JSON`,
        },
      ],
    });
  });

  it("readOutput: the bytes of the stream from `from`, at most `max`, and its size", async () => {
    await recorded(A);
    writeFileSync(join(root, ".ariel/runs", A, "stdout"), "hello world\n");
    writeFileSync(join(root, ".ariel/runs", A, "stderr"), "oops\n");
    const b = localBackend(root, HASH);
    const out = await b.readOutput(A, "stdout", 6, 5);
    const err = await b.readOutput(A, "stderr", 0, 100);
    expect([out.start, Buffer.from(out.bytes).toString(), out.size]).toEqual([6, "world", 12]);
    expect([err.start, Buffer.from(err.bytes).toString(), err.size]).toEqual([0, "oops\n", 5]);
  });

  it("remove: the run's directory and its history go", async () => {
    await recorded(A);
    writeFileSync(join(root, ".ariel/runs", `${A}.ndjson`), "{}\n");
    await localBackend(root, HASH).remove(A);
    expect([
      existsSync(join(root, ".ariel/runs", A)),
      existsSync(join(root, ".ariel/runs", `${A}.ndjson`)),
    ]).toEqual([false, false]);
  });
});

describe("localBackend: signal and groupAlive, only for a group that is still ours", () => {
  // A live child's group is signalled (sent); no child, a dead one, or a run of another boot is
  // never signalled (gone), and its group does not count as alive.
  const view = (rec: RunRecord): RunView => ({ record: rec, exit: null, state: "running" });

  it("a live child of this boot (monitor recorded): alive, signalled, then gone", async () => {
    const child = liveChild();
    const b = localBackend(root, HASH);
    const v = view(await recorded(A, { child, monitor: selfMonitorRef() }));
    expect([await b.groupAlive(v), await b.signal(v, "SIGTERM")]).toEqual([true, "sent"]);
    expect(await processGone(child.pid)).toBe(true);
    expect([await b.groupAlive(v), await b.signal(v, "SIGTERM")]).toEqual([false, "gone"]);
  });

  it("a live child whose run has no monitor recorded: signalled all the same", async () => {
    const child = liveChild();
    const v = view(await recorded(A, { child, monitor: null }));
    expect(await localBackend(root, HASH).signal(v, "SIGKILL")).toBe("sent");
    expect(await processGone(child.pid)).toBe(true);
  });

  it("a run of another boot: not alive, never signalled (its pid is someone else's now)", async () => {
    const child = liveChild();
    const monitor = { ...selfMonitorRef(), bootId: "another-boot" };
    const v = view(await recorded(A, { child, monitor }));
    const b = localBackend(root, HASH);
    expect([await b.groupAlive(v), await b.signal(v, "SIGKILL")]).toEqual([false, "gone"]);
    expect(isAlive(child.pid)).toBe(true);
  });

  it("no child recorded: gone, nothing alive", async () => {
    const v = view(await recorded(A));
    const b = localBackend(root, HASH);
    expect([await b.groupAlive(v), await b.signal(v, "SIGTERM")]).toEqual([false, "gone"]);
  });
});

describe("localBackend.sendInput: one input request to the monitor", () => {
  // The bytes go base64 (empty: end of input); a refusal is ERR_REFUSED with the monitor's words.
  it.each([
    ["bytes", "hi\n", "aGkK"],
    ["end of input", "", ""],
  ])("%s", async (_name, text, data) => {
    const s = await standIn(() => ({ v: 1, ok: true }));
    await localBackend(root, HASH).sendInput(A, new TextEncoder().encode(text));
    expect(s.got).toEqual([{ v: 1, op: "input", runId: A, data }]);
    expect(await closedBy(s, 1)).toBe(1);
  });

  it("refused: ERR_REFUSED, saying why", async () => {
    const s = await standIn(() => ({ v: 1, ok: false, code: "ERR_USAGE", message: "not interactive" }));
    const e = (await localBackend(root, HASH)
      .sendInput(A, new Uint8Array([1]))
      .catch((x: unknown) => x)) as ArielError;
    expect(e.toRecord()).toEqual({
      v: 1,
      type: "error",
      code: "ERR_REFUSED",
      message: "cannot send input: not interactive",
      hint: "nothing was changed",
      exit: 3,
    });
    expect(s.got).toEqual([{ v: 1, op: "input", runId: A, data: "AQ==" }]);
  });
});

describeStart();

function describeStart(): void {
  describe("localBackend.start: the create request (or, to an older monitor, start after run.json)", () => {
    // Nothing is asked for no runs; the monitor's results come back as they are; a refusal is
    // ERR_MONITOR; a monitor that does not know `create` gets run.json written here and `start`
    // on the same connection. The connection is closed in every case.
    const ok = (runId: string) => ({ runId, ok: true, child: { pid: 7, pgid: 7, startTime: "1" } });

    it("no runs: none asked, none started", async () => {
      expect(await startLocal(root, HASH, [])).toEqual([]);
      expect(existsSync(join(root, ".ariel/monitor.log"))).toBe(false);
    });

    it("create: every run's id, env and record; the monitor's results", async () => {
      const s = await standIn(() => ({ v: 1, ok: true, results: [ok(A), ok(B)] }));
      const specs = [spec(A), spec(B)];
      expect(await localBackend(root, HASH).start(specs)).toEqual([ok(A), ok(B)]);
      expect(s.got).toEqual([
        { v: 1, op: "create", runs: specs.map((x) => ({ runId: x.runId, env: x.env, record: x.record })) },
      ]);
      expect([await closedBy(s, 1), existsSync(join(root, ".ariel/runs", A, "run.json"))]).toEqual([
        1,
        false,
      ]);
    });

    it("an ok reply without results: none", async () => {
      await standIn(() => ({ v: 1, ok: true }));
      expect(await startLocal(root, HASH, [spec(A)])).toEqual([]);
    });

    it("refused: ERR_MONITOR with its message, nothing written", async () => {
      const s = await standIn(() => ({ v: 1, ok: false, code: "ERR_USAGE", message: "busy" }));
      const e = (await startLocal(root, HASH, [spec(A)]).catch((x: unknown) => x)) as ArielError;
      expect([e.code, e.message]).toEqual(["ERR_MONITOR", "the run monitor refused: busy"]);
      expect([s.got.length, await closedBy(s, 1)]).toEqual([1, 1]);
      expect(existsSync(join(root, ".ariel/runs", A, "run.json"))).toBe(false);
    });

    it("an older monitor (unknown op): run.json written here, then start with ids and env", async () => {
      const s = await standIn((req) =>
        req.op === "create"
          ? { v: 1, ok: false, code: "ERR_USAGE", message: "unknown op" }
          : { v: 1, ok: true, results: [ok(A)] },
      );
      mkdirSync(join(root, ".ariel/runs", A));
      mkdirSync(join(root, ".ariel/runs", B));
      const specs = [spec(A), spec(B)];
      expect(await startLocal(root, HASH, specs)).toEqual([ok(A)]);
      expect(s.got.slice(1)).toEqual([
        { v: 1, op: "start", runs: specs.map((x) => ({ runId: x.runId, env: x.env })) },
      ]);
      const written = (id: string) =>
        JSON.parse(readFileSync(join(root, ".ariel/runs", id, "run.json"), "utf8"));
      expect([written(A), written(B)]).toEqual([
        { ...spec(A).record, version: 1, fencingToken: 0 },
        { ...spec(B).record, version: 1, fencingToken: 0 },
      ]);
      expect(await closedBy(s, 1)).toBe(1);
    });

    it("an older monitor that refuses start too: ERR_MONITOR with its message", async () => {
      await standIn((req) =>
        req.op === "create"
          ? { v: 1, ok: false, code: "ERR_USAGE", message: "unknown op" }
          : { v: 1, ok: false, code: "ERR_USAGE", message: "no room" },
      );
      mkdirSync(join(root, ".ariel/runs", A));
      const e = (await startLocal(root, HASH, [spec(A)]).catch((x: unknown) => x)) as ArielError;
      expect([e.code, e.message]).toEqual(["ERR_MONITOR", "the run monitor refused: no room"]);
    });
  });
}

// writeExitOnce is imported for a final run's view in list: keep one such case.
describe("localBackend.get: a run with its exit", () => {
  it("exit.json decides the state", async () => {
    const rec = await recorded(A);
    const exit = {
      v: 1 as const,
      type: "exit" as const,
      runId: A,
      code: 1,
      signal: null,
      status: 1,
      endedAt: "2026-12-02T11:10:00.000Z",
      state: "failed" as const,
      reason: null,
    };
    await writeExitOnce(root, exit);
    expect(await localBackend(root, HASH).get(A)).toEqual({ record: rec, exit, state: "failed" });
  });
});
