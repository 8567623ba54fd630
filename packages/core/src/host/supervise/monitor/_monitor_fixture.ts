/**
 * For the monitor's unit tests only: the workspace's run monitor served in the test's own
 * process (what `runMonitor` does in the monitor process, without its process handlers and its
 * idle exit): a real unix socket at the workspace's monitor path, answered by `serve` over one
 * `createMonitor` context, so the real client (`connectAndRequest`, the local backend) talks to
 * it. `stopMonitor` kills what the runs left, waits until every end is recorded, and closes the
 * socket, its connections and the hole puncher: nothing of it outlives the test.
 * @internal
 */
import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { workspaceHash } from "../../../hash.ts";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { hostPorts } from "../../ports.ts";
import { runFields } from "../../runs/_fixture.ts";
import { localBackend } from "../backends/local/backend.ts";
import { monitorSocketPath } from "../client.ts";
import { startPlanned } from "../detach.ts";
import { createMonitor, type Monitor } from "./context.ts";
import { serve } from "./server.ts";

/** A monitor served in this process for the workspace at `root`. */
export interface LiveMonitor {
  root: string;
  hash: string;
  socket: string;
  m: Monitor;
  server: Server;
  /** The connections it accepted (destroyed when it stops). */
  conns: Set<Socket>;
}

/** The PATH the runs' children get. */
export const CHILD_PATH = process.env.PATH ?? "/usr/bin:/bin";

/** Serve the monitor of the workspace at `root` (`.ariel/` made) on its real socket path. */
export async function serveMonitor(root: string): Promise<LiveMonitor> {
  mkdirSync(join(root, ".ariel"), { recursive: true });
  const hash = await workspaceHash(root);
  const socket = monitorSocketPath(root, hash);
  const m = createMonitor(root, socket);
  const conns = new Set<Socket>();
  const server = createServer((sock) => {
    conns.add(sock);
    sock.once("close", () => conns.delete(sock));
    serve(m, sock);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => resolve());
  });
  return { root, hash, socket, m, server, conns };
}

/**
 * A monitor served before each test of the file over the workspace `makeRoot` gives, handed to
 * `use`; after the test (and the file's own afterEach hooks, which run first) it is stopped and
 * its workspace removed.
 */
export function useServedMonitor(makeRoot: () => string, use: (l: LiveMonitor) => void): void {
  let served: LiveMonitor | null = null;
  beforeEach(async () => {
    served = await serveMonitor(makeRoot());
    use(served);
  });
  afterEach(async () => {
    if (served === null) return;
    await stopMonitor(served);
    removeDir(served.root);
    served = null;
  });
}

/**
 * ARIEL_STATE_HOME (a temp directory named by `prefix`) and `env` in process.env for the file's
 * tests (a run's task and leases need a state home); the environment as it was after them.
 */
export function useStateHome(prefix: string, env: Record<string, string> = {}): void {
  const saved = { ...process.env };
  let home = "";
  beforeAll(() => {
    home = tempDir(prefix);
    Object.assign(process.env, env, { ARIEL_STATE_HOME: home });
  });
  afterAll(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    removeDir(home);
  });
}

/** Until `cond` holds (polled every 10 ms, `ms` at most); whether it did. */
export async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return cond();
}

/** Whether the monitor has nothing left to do: no run supervised, no end being recorded. */
export function settled(l: LiveMonitor): boolean {
  return l.m.active.size === 0 && l.m.busy === 0;
}

/** Stop a monitor served by {@link serveMonitor}: its runs' groups killed, their ends awaited, all closed. */
export async function stopMonitor(l: LiveMonitor): Promise<void> {
  for (const a of l.m.active.values()) {
    for (const t of a.timers) clearTimeout(t as ReturnType<typeof setTimeout>);
    a.timers.clear();
    const pid = a.child?.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
    }
  }
  await until(() => settled(l));
  for (const a of l.m.active.values()) a.sandboxSocket?.server.close();
  for (const s of l.conns) s.destroy();
  await new Promise<void>((resolve) => l.server.close(() => resolve()));
  l.m.puncher.close();
}

/** Sequential run ids of this process: `20261206T000000Z-<n in base 36, 6 digits>`. */
let next = Math.floor(Math.random() * 1000) * 1000;
export function newRunId(): string {
  next++;
  return `20261206T000000Z-${next.toString(36).padStart(6, "0")}`;
}

/** A new local run of the workspace, as `ariel-spawn --detach` plans it: `argv` in the root, no task. */
export function plannedRun(l: LiveMonitor, runId: string, over: Partial<PlannedRun> = {}): PlannedRun {
  return {
    ...runFields(l, runId),
    name: null,
    group: null,
    source: null,
    argv: ["true"],
    createdAt: "2026-12-06T00:00:00.000Z",
    startedAt: null,
    graceMs: 200,
    ...over,
  } as PlannedRun;
}

/**
 * Start `runs` the way `ariel-spawn --detach` does (startPlanned: their dirs, `run.started`,
 * then the local backend's `create` to this monitor); their results.
 */
export function startRuns(l: LiveMonitor, runs: readonly PlannedRun[], env: Record<string, string> = {}) {
  const ports = hostPorts({
    env: { PATH: CHILD_PATH, ARIEL_STATE_HOME: join(l.root, ".state-home"), ...env },
    cwd: l.root,
  });
  return startPlanned(
    ports,
    localBackend(l.root, l.hash),
    { root: l.root, hash: l.hash },
    runs.map((run) => ({ run, unit: { env: { ARIEL_RUN_ID: run.runId } } })),
  );
}

/** Until run `runId` is no longer supervised and nothing is being recorded (5 s at most). */
export function ended(l: LiveMonitor, runId: string): Promise<boolean> {
  return until(() => !l.m.active.has(runId) && l.m.busy === 0);
}

/** Start one run (`over` on plannedRun) and wait for its end (an error when it does not end); its id and start result. */
export async function runToEnd(l: LiveMonitor, over: Partial<PlannedRun>) {
  const runId = newRunId();
  const [result] = await startRuns(l, [plannedRun(l, runId, over)]);
  if (!(await ended(l, runId))) throw new Error(`run ${runId} did not end`);
  return { runId, result };
}

/** The run's history, parsed, one record a line. */
export function history(root: string, runId: string): Record<string, unknown>[] {
  return readFileSync(runPaths(root, runId).history, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The run's events by name, in order. */
export function eventNames(root: string, runId: string): string[] {
  return history(root, runId).map((e) => String(e.event));
}

/** A JSON file, parsed. */
export function json(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

const TIMES = new Set(["ts", "startedAt", "endedAt", "requestedAt"]);
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * `x` with its times (`ts`, `startedAt`, `endedAt`, `requestedAt`: ISO) as `"<time>"`, and its
 * processes' `pid`, `pgid` and `startTime` as `"<pid>"`/`"<start>"` when they are what they
 * should be: what a test can pin whole. A value of the wrong form is left as it is (and fails).
 */
export function pinned(x: unknown): unknown {
  return JSON.parse(
    JSON.stringify(x, (k, v) => {
      if (TIMES.has(k) && typeof v === "string" && ISO.test(v)) return "<time>";
      if ((k === "pid" || k === "pgid") && Number.isInteger(v) && v > 0) return "<pid>";
      if (k === "startTime" && typeof v === "string" && /^\d+$/.test(v)) return "<start>";
      return v;
    }),
  );
}
