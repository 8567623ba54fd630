/**
 * Shared set-up for the ariel-fleet tests: a private user state dir with a workspace registry,
 * workspaces of real repositories with real run histories, a server on 127.0.0.1 (an ephemeral
 * port) and a small SSE client. Works under vitest and Deno.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { workspaceHash } from "../packages/core/src/hash.ts";
import {
  actAsProcessOf,
  cliCommand,
  commandOf,
  inProcessCli,
  type Runtime,
  runAriel,
} from "./helpers/cli.ts";
import { initRepo, tempDir } from "./helpers/git.ts";
import { watchJsonLines } from "./helpers/json_lines.ts";

export const NODE = process.execPath;

/**
 * A fresh user state dir (ARIEL_STATE_HOME) and the env that points at it; a run monitor started
 * with this env exits 300 ms after its last run (see {@link monitorGone}).
 */
export function stateHome(): { dir: string; env: Record<string, string> } {
  const dir = tempDir("ariel-fleet-state-");
  return { dir, env: { ARIEL_STATE_HOME: dir, ARIEL_MONITOR_IDLE_MS: "300" } };
}

/**
 * Wait until the workspace's run monitor (if one ran) has exited, so that removing the
 * workspace afterwards does not pull the directory from under a live monitor.
 */
export async function monitorGone(root: string, timeoutMs = 15_000): Promise<void> {
  let pid: number;
  try {
    pid = (JSON.parse(readFileSync(join(root, ".ariel/monitor.json"), "utf8")) as { pid: number }).pid;
  } catch {
    return;
  }
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the run monitor of ${root} (pid ${pid}) did not exit`);
}

/** Register `root` in the state dir's registry, as the first ariel command there does. */
export async function register(state: string, root: string): Promise<string> {
  const hash = await workspaceHash(root);
  mkdirSync(join(state, "workspaces"), { recursive: true });
  writeFileSync(
    join(state, "workspaces", `${hash}.json`),
    `${JSON.stringify({ v: 1, root, hash, firstSeen: "2026-12-02T11:00:00.000Z" })}\n`,
  );
  return hash;
}

/** A workspace whose root is a committed repository, with `children` repositories below it. */
export function workspace(children: readonly string[] = []): string {
  const root = tempDir("ariel-fleet-ws-");
  initRepo(root);
  for (const c of children) initRepo(join(root, c));
  return root;
}

/** The run ids of a workspace (its history files), oldest first. */
export function runIds(root: string): string[] {
  const dir = join(root, ".ariel/runs");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ndjson"))
    .map((f) => f.slice(0, -".ndjson".length))
    .sort();
}

/** Run `ariel-spawn -- argv` in `root` to the end (whatever its status); returns its run id. */
export async function finishedRun(root: string, argv: readonly string[]): Promise<string> {
  const before = new Set(runIds(root));
  const r = await runAriel("spawn", ["-C", root, "--", ...argv], { cwd: root });
  const id = runIds(root).find((x) => !before.has(x));
  if (!id) throw new Error(`ariel-spawn left no history (status ${r.code}): ${r.stderr}`);
  return id;
}

/** A node child that prints `line N` every `everyMs` ms, `count` times. */
export function ticker(count: number, everyMs: number): string[] {
  return [
    NODE,
    "-e",
    `let i=0;const t=setInterval(()=>{console.log("line "+(++i));if(i>=${count})clearInterval(t)},${everyMs})`,
  ];
}

/**
 * Like {@link ticker}, but after line `holdAt` it waits until the file `go` exists: a run that
 * is surely live while a test reads it, however slow the machine.
 */
export function heldTicker(count: number, everyMs: number, holdAt: number, go: string): string[] {
  return [
    NODE,
    "-e",
    `const fs=require("fs");let i=0;const t=setInterval(()=>{if(i===${holdAt}&&!fs.existsSync(${JSON.stringify(go)}))return;console.log("line "+(++i));if(i>=${count})clearInterval(t)},${everyMs})`,
  ];
}

export interface LiveRun {
  runId: string;
  child: ChildProcess;
  done: Promise<void>;
}

/** Start `ariel-spawn -- argv` in `root` and resolve once its history file exists. */
export async function liveRun(root: string, argv: readonly string[]): Promise<LiveRun> {
  const before = new Set(runIds(root));
  const [exe, ...pre] = cliCommand("spawn");
  const child = spawn(exe as string, [...pre, "-C", root, "--", ...argv], { cwd: root, stdio: "ignore" });
  const done = new Promise<void>((r) => child.once("exit", () => r()));
  for (let i = 0; i < 200; i++) {
    const id = runIds(root).find((x) => !before.has(x));
    if (id) return { runId: id, child, done };
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill("SIGKILL");
  throw new Error("the live run's history never appeared");
}

export interface Server {
  url: string;
  port: number;
  /** The `server` record it printed. */
  record: Record<string, unknown>;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * `ariel-fleet serve --addr 127.0.0.1:0 --json ...args`; resolves with its URL once it listens.
 * Under `npm run mutate` (ARIEL_TEST_IN_PROCESS=1) it serves from this process: see
 * {@link serveInProcess}.
 */
export function serve(
  args: readonly string[],
  env: Record<string, string>,
  runtime: Runtime = "node",
): Promise<Server> {
  if (inProcessCli("fleet", runtime === "node" ? undefined : runtime)) return serveInProcess(args, env);
  const [exe, ...pre] = cliCommand("fleet", runtime);
  const child = spawn(exe as string, [...pre, "serve", "--addr", "127.0.0.1:0", "--json", ...args], {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  watchJsonLines(child, "ariel-fleet serve", ["--json", ...args]);
  let err = "";
  child.stderr?.on("data", (b: Buffer) => {
    err += b.toString();
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return new Promise((resolve, reject) => {
    let out = "";
    const fail = () => reject(new Error(`ariel-fleet serve ended before listening: ${err}`));
    child.once("exit", fail);
    child.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      child.off("exit", fail);
      const rec = JSON.parse(out.slice(0, nl)) as { url: string; port: number };
      resolve({
        url: rec.url,
        port: rec.port,
        record: rec as unknown as Record<string, unknown>,
        child,
        stderr: () => err,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    });
  });
}

/**
 * {@link serve} from this process: `ariel-fleet serve` run by `runCli` until `stop()` aborts it as
 * SIGINT would, with `env` set on this process meanwhile (the run monitors it starts inherit it).
 * `child` is a stand-in that has no pid: nothing may signal this process.
 */
async function serveInProcess(args: readonly string[], env: Record<string, string>): Promise<Server> {
  const [command, { runInProcess }] = await Promise.all([
    commandOf("fleet"),
    import("../packages/core/src/host/cli/_fixture.ts"),
  ]);
  const restore = actAsProcessOf("fleet", env);
  const ac = new AbortController();
  let out = "";
  let listening: (line: string) => void = () => {};
  const first = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const done = runInProcess(command, ["serve", "--addr", "127.0.0.1:0", "--json", ...args], {
    cwd: process.cwd(),
    env: { ...env, ARIEL_TEST_IN_PROCESS: undefined },
    signal: ac.signal,
    onStdout: (t) => {
      out += t;
      const nl = out.indexOf("\n");
      if (nl >= 0) listening(out.slice(0, nl));
    },
  }).finally(restore);
  const line = await Promise.race([
    first,
    done.then((r) => {
      throw new Error(`ariel-fleet serve ended before listening: ${r.stderr}`);
    }),
  ]);
  const rec = JSON.parse(line) as { url: string; port: number };
  let stderr = "";
  void done.then((r) => {
    stderr = r.stderr;
  });
  return {
    url: rec.url,
    port: rec.port,
    record: rec as unknown as Record<string, unknown>,
    child: undefined as unknown as ChildProcess,
    stderr: () => stderr,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

/**
 * One HTTP request on a connection of its own (`fetch` keeps idle connections and sends a later
 * request on one the server may be closing at that moment: a `fetch failed` that says nothing of
 * the server). Resolves with the status, the headers and the body as text; a connection that
 * fails rejects with its own error (ECONNRESET, ECONNREFUSED, …).
 */
export function httpRequest(
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? "GET", headers: init.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, one);
          }
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString("utf8") });
        });
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/**
 * Read SSE messages from `url` until `until` says stop (or the server ends the stream); the
 * connection is then dropped. Returns the messages and the response status.
 */
export async function readSse(
  url: string,
  headers: Record<string, string> = {},
  until: (m: SseMessage, all: SseMessage[]) => boolean = () => false,
): Promise<{ status: number; messages: SseMessage[]; ended: boolean }> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: ac.signal });
  const messages: SseMessage[] = [];
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel();
    return { status: res.status, messages, ended: true };
  }
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buf += dec.decode(value, { stream: true });
      let stop = false;
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const m: SseMessage = { event: "message", data: "" };
        const data: string[] = [];
        for (const line of block.split("\n")) {
          const c = line.indexOf(":");
          if (c === 0) continue;
          const [k, v] = c < 0 ? [line, ""] : [line.slice(0, c), line.slice(c + 1).replace(/^ /, "")];
          if (k === "id") m.id = v;
          else if (k === "event") m.event = v;
          else if (k === "data") data.push(v);
        }
        if (data.length === 0) continue;
        m.data = data.join("\n");
        messages.push(m);
        if (until(m, messages)) {
          stop = true;
          break;
        }
      }
      if (stop) break;
    }
  } finally {
    ac.abort();
    await reader.cancel().catch(() => {});
  }
  return { status: res.status, messages, ended };
}

/** The seq of every message that has one (run streams number them). */
export function seqs(messages: readonly SseMessage[]): number[] {
  return messages.filter((m) => m.id !== undefined).map((m) => Number(m.id));
}
