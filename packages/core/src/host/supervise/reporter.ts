/**
 * The agents' reporter (docs/runs.md, "What agents report"): what an agent's hook or notify
 * program runs. It reads the agent's payload (stdin for Claude Code and Gemini CLI hooks, the
 * last argument for Codex's notify), cuts it to size and hands it to the run's monitor over the
 * workspace's socket with the run's secret, then exits 0. It never blocks or slows the agent:
 * short bounds on reading, connecting and writing, no reply awaited, nothing written to stdout
 * (Claude Code reads a hook's stdout as instructions) and no file written (it may run in a
 * sandbox). Outside a wired run (no ARIEL_REPORT_* in its environment) it does nothing.
 *
 * It imports only node:net and two small modules: it is bundled alone (dist/ariel-report.cjs)
 * and must start about as fast as `node -e 0` (bench/reports.mjs).
 */
import type { Socket } from "node:net";
import { boundPayload } from "../../runs/agents/bound.ts";
import { MAX_REPORT_LINE, REPORT_ENV, type ReportRequest } from "./protocol.ts";

/** The agents the reporter reads for (REPORTING_AGENTS, spelled here to keep the bundle small). */
const AGENTS = new Set(["claude", "codex", "gemini"]);

/**
 * How long the reporter may take once it runs, whatever the monitor does (ms): counted from the
 * call, not the process's start, so a slow start (Deno loading the whole CLI, a loaded machine)
 * does not leave it no time to send.
 */
const DEADLINE_MS = 1000;
/**
 * The part of the deadline kept for sending: stdin that never ends is read until this much is
 * left, so what came is still sent (not left a millisecond to connect).
 */
const SEND_RESERVE_MS = 300;
/** The most of stdin it reads (a tool's whole input may be in it); past this the payload is "too large". */
const MAX_INPUT = 1 << 20;

export interface ReporterIo {
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream & { destroy?: () => void };
  /** Debug lines (ARIEL_REPORT_DEBUG=1), on stderr; never stdout. */
  debug?: (line: string) => void;
  /** When this process started (ms since the epoch): the report's time. */
  startedMs: number;
}

/**
 * Report once and resolve (never rejects, never longer than {@link DEADLINE_MS}). `argv`: the
 * agent's name, then (Codex) its payload.
 */
export async function runReporter(argv: readonly string[], io: ReporterIo): Promise<void> {
  const agent = argv[0] ?? "";
  const socket = io.env[REPORT_ENV.socket];
  const runId = io.env[REPORT_ENV.run];
  const token = io.env[REPORT_ENV.token];
  if (!AGENTS.has(agent) || !socket || !runId || !token) {
    io.debug?.(`ariel report: not a wired run (or agent ${JSON.stringify(agent)} unknown): nothing sent`);
    return;
  }
  const deadline = Date.now() + DEADLINE_MS;
  const input =
    argv.length > 1
      ? { text: argv[argv.length - 1]!, large: false }
      : await readInput(io.stdin, deadline - SEND_RESERVE_MS);
  const req: ReportRequest = { v: 1, op: "report", runId, token, agent, at: io.startedMs, payload: null };
  if (input.large) req.problem = "too large";
  else {
    try {
      req.payload = boundPayload(JSON.parse(input.text));
    } catch {
      req.problem = "not JSON";
    }
  }
  let line = `${JSON.stringify(req)}\n`;
  if (line.length > MAX_REPORT_LINE)
    line = `${JSON.stringify({ ...req, payload: null, problem: "too large" })}\n`;
  await send(socket, line, deadline, io.debug);
}

/** Stdin as text, up to {@link MAX_INPUT} bytes and the deadline (then `large` or what came). */
function readInput(stdin: ReporterIo["stdin"], deadline: number): Promise<{ text: string; large: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (large: boolean) => {
      clearTimeout(timer);
      stdin.removeAllListeners("data");
      stdin.destroy?.();
      resolve({ text: Buffer.concat(chunks).toString("utf8"), large });
    };
    const timer = setTimeout(() => done(false), Math.max(0, deadline - Date.now()));
    stdin.on("data", (b: Buffer) => {
      size += b.length;
      if (size > MAX_INPUT) return done(true);
      chunks.push(b);
    });
    stdin.once("end", () => done(false));
    stdin.once("error", () => done(false));
  });
}

/** Write `line` to the monitor's socket and close; give up at the deadline. Resolves either way. */
function send(path: string, line: string, deadline: number, debug?: (line: string) => void): Promise<void> {
  const net = (process.getBuiltinModule?.("node:net") ?? require("node:net")) as typeof import("node:net");
  return new Promise((resolve) => {
    let sock: Socket;
    const finish = (why: string) => {
      clearTimeout(timer);
      debug?.(`ariel report: ${why}`);
      sock?.destroy();
      resolve();
    };
    const timer = setTimeout(
      () => finish("the monitor did not take the report in time"),
      Math.max(1, deadline - Date.now()),
    );
    try {
      sock = net.connect(path);
    } catch (e) {
      return finish(`no monitor (${(e as Error).message})`);
    }
    sock.once("error", (e) => finish(`no monitor (${(e as NodeJS.ErrnoException).code ?? e.message})`));
    sock.once("connect", () => sock.end(line, () => finish("sent")));
  });
}
