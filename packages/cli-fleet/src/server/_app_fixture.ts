/**
 * For tests only (the build leaves `*_fixture.ts` out): the fleet's HTTP app driven in this
 * process, no socket, over a real workspace (a repository with a source `api`) whose one
 * foreground run's history is written here as ariel-spawn writes it, with a state home of its own
 * (no registered workspace but the one named).
 * @internal
 *
 * @example
 * ```ts
 * const w = await fleetWorld();
 * const res = await w.get("/api/fleet");
 * expect(res.status).toBe(200);
 * ```
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type KnownWorkspace, knownWorkspaces } from "@ariel/core/host";
import { initRepo, removeDir, tempDir } from "../../../core/src/host/_fixture.ts";
import { createFleetApp, type FleetAppOptions } from "./app.ts";
import type { RunControl } from "./control.ts";
import { allowedHosts, type Peer } from "./guard.ts";
import { taskControl } from "./tasks.ts";

/** The address every request names: the app answers to it and its loopback names. */
export const HOST = "127.0.0.1:8080";
export const BASE = `http://${HOST}`;

/** The finished foreground run of every world. */
export const RUN = "20261202T110000Z-aaaaaa";
/** A run id no workspace has. */
export const NO_RUN = "20200101T000000Z-bbbbbb";

export const at = (s: number): string => new Date(Date.UTC(2026, 11, 2, 11, 0, s)).toISOString();

/** One history line of run `runId`, as ariel-spawn appends it. */
export function historyLine(runId: string, s: number, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ v: 1, type: "event", runId, ts: at(s), source: "api", ...fields })}\n`;
}

/** Seven events: started, running, three output lines (one with a credential), exited 0, exited. */
export function finishedHistory(runId: string): string {
  const line = (s: number, f: Record<string, unknown>) => historyLine(runId, s, f);
  return (
    line(0, { event: "run.started", argv: ["make", "test"], targets: ["api"] }) +
    line(1, { event: "run.state", from: "starting", to: "running" }) +
    line(2, { event: "output", stream: "stdout", line: "one" }) +
    line(3, { event: "output", stream: "stderr", line: "two" }) +
    line(4, { event: "output", stream: "stdout", line: "https://user:s3cret@example.com/r.git" }) +
    line(5, { event: "run.exited", code: 0, signal: null, status: 0 }) +
    line(6, { event: "run.state", from: "running", to: "exited" })
  );
}

/** Append `text` to run `runId`'s history in `ws`. */
export function writeHistory(ws: string, runId: string, text: string): void {
  mkdirSync(join(ws, ".ariel/runs"), { recursive: true });
  appendFileSync(join(ws, ".ariel/runs", `${runId}.ndjson`), text);
}

/** A RunControl whose every call fails the test: for routes that must not reach it. */
export const NO_CONTROL: RunControl = {
  spawn: () => Promise.reject(new Error("spawn called")),
  kill: () => Promise.reject(new Error("kill called")),
  respawn: () => Promise.reject(new Error("respawn called")),
  input: () => Promise.reject(new Error("input called")),
  settled: () => Promise.resolve(),
};

export interface FleetWorld {
  ws: string;
  state: string;
  env: Record<string, string>;
  /** The workspace as the fleet knows it. */
  known: KnownWorkspace;
  /** The app's fetch, with the peer of a plain TCP client that is no sandbox's. */
  fetch: (req: Request, peer?: Peer) => Promise<Response>;
  get: (path: string, headers?: Record<string, string>) => Promise<Response>;
  post: (path: string, body: string, headers?: Record<string, string>) => Promise<Response>;
  /** Remove the world's directories. */
  dispose: () => void;
}

/** What a world's app is made with beyond its workspaces (each field overrides the default). */
export type WorldOptions = Partial<Omit<FleetAppOptions, "workspaces">> & { extra?: readonly string[] };

/** A workspace with a source `api` and a finished foreground run {@link RUN}, and its app. */
export async function fleetWorld(options: WorldOptions = {}): Promise<FleetWorld> {
  const ws = tempDir("ariel-fleet-app-");
  const state = tempDir("ariel-fleet-app-state-");
  initRepo(ws);
  initRepo(join(ws, "api"));
  writeHistory(ws, RUN, finishedHistory(RUN));
  const env = { ...(process.env as Record<string, string>), ARIEL_STATE_HOME: state };
  const extra = [ws, ...(options.extra ?? [])];
  const workspaces = () => knownWorkspaces(env, ws, extra);
  const known = (await workspaces()).workspaces[0]!;
  const app = createFleetApp({
    workspaces,
    control: options.control ?? NO_CONTROL,
    tasks: options.tasks ?? taskControl(env),
    guard: options.guard ?? { hosts: () => allowedHosts("127.0.0.1", 8080, []), token: null },
    ...(options.now ? { now: options.now } : {}),
    ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}),
  });
  const fetch = (req: Request, peer: Peer = {}) => app.fetch(req, peer);
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(new Request(`${BASE}${path}`, { headers: { host: HOST, ...headers } }));
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(
      new Request(`${BASE}${path}`, {
        method: "POST",
        body,
        headers: { host: HOST, "content-type": "application/json", ...headers },
      }),
    );
  const dispose = () => {
    removeDir(ws);
    removeDir(state);
  };
  return { ws, state, env, known, fetch, get, post, dispose };
}

/** A response's status and JSON body. */
export async function json(res: Response): Promise<{ status: number; body: unknown }> {
  return { status: res.status, body: JSON.parse(await res.text()) };
}

/** Wait until `check` holds, polling every 10 ms; an error naming `what` after `ms`. */
export async function until(check: () => boolean, what = "condition", ms = 5_000): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
