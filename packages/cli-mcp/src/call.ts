/**
 * Run one ariel CLI for a tool call: `node <bundle> -C ROOT …args` in its own process group, no
 * shell, output captured with a cap, stopped (TERM, then KILL) when the call is cancelled or runs
 * past its bound. Returns the NDJSON records it printed on stdout and the error record it printed
 * on stderr, if any.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { ArielError } from "@ariel/core";
import type { CliCall, CliName } from "./tools.ts";

/** What one CLI call printed and how it ended. */
export interface CallResult {
  exit: number;
  records: Record<string, unknown>[];
  /** The CLI's error record (stderr), when it failed with one. */
  error?: Record<string, unknown>;
  /** stderr's other lines (warnings, summaries), redacted by the CLI already. */
  messages: string[];
  /** stdout went past the cap and was cut. */
  truncated: boolean;
  /** Stopped by the bound or a cancellation. */
  stopped?: "timeout" | "cancelled";
}

/** The most stdout a call keeps (bytes); past it the call is reported truncated. */
export const STDOUT_CAP = 1 << 20;
const STDERR_CAP = 64 << 10;
const KILL_GRACE_MS = 2_000;

const PACKAGE: Record<CliName, string> = {
  discover: "@ariel/cli-discover",
  worktree: "@ariel/cli-worktree",
  spawn: "@ariel/cli-spawn",
  runs: "@ariel/cli-runs",
};

/**
 * The argv that starts an ariel CLI. On Node: `node <bundle>`, the bundle being
 * `ARIEL_MCP_BIN_DIR/ariel-<name>.cjs` when set, else the `bin` export of its package, found
 * beside this one (the meta package `ariel` installs them together; so does the repository).
 * On Deno (running the sources): `deno run -A` of the CLI's sibling source.
 */
export function cliArgv(cli: CliName, env: NodeJS.ProcessEnv): string[] {
  if ("Deno" in globalThis) {
    const main = join(dirname(process.argv[1] ?? ""), `../../cli-${cli}/src/main.ts`);
    return [process.execPath, "run", "-A", "--quiet", main];
  }
  const dir = env.ARIEL_MCP_BIN_DIR;
  if (dir) return [process.execPath, join(dir, `ariel-${cli}.cjs`)];
  try {
    return [process.execPath, createRequire(join(here(), "package.json")).resolve(`${PACKAGE[cli]}/bin`)];
  } catch {
    throw new ArielError(
      "ERR_UNAVAILABLE",
      `ariel-mcp needs ariel-${cli}, which is not installed beside it`,
      {
        hint: "install every CLI together: npm install -g ariel",
      },
    );
  }
}

/** The directory of this bundle (CommonJS), or of the program that runs it. */
function here(): string {
  return typeof __dirname === "string" ? __dirname : dirname(process.argv[1] ?? "");
}

export interface CallOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  boundMs: number;
  signal: AbortSignal;
  /** Each stdout record as it arrives (progress). */
  onRecord?: (record: Record<string, unknown>) => void;
  /** Each stderr line as it arrives (the server's log). */
  onStderr?: (line: string) => void;
}

/** Run `call` against the workspace `root` and collect what it printed. */
export function runCli(call: CliCall, opts: CallOptions): Promise<CallResult> {
  const [exe, ...pre] = cliArgv(call.cli, opts.env);
  const child = spawn(exe as string, [...pre, `--workspace-root=${opts.root}`, ...call.args], {
    cwd: opts.root,
    env: { ...opts.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const out = new LineCollector(STDOUT_CAP, (line) => {
    const rec = parseRecord(line);
    if (rec) opts.onRecord?.(rec);
  });
  const err = new LineCollector(STDERR_CAP, opts.onStderr);
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => err.push(b));
  let stopped: CallResult["stopped"];
  // Also after the CLI itself exited: a process it left behind that still holds its output
  // keeps the call open ("close" waits for the pipes), and the group is stopped with it.
  const stop = (why: "timeout" | "cancelled") => {
    if (stopped) return;
    stopped = why;
    signalGroup(child.pid, "SIGTERM");
    setTimeout(() => signalGroup(child.pid, "SIGKILL"), KILL_GRACE_MS).unref();
  };
  const timer = setTimeout(() => stop("timeout"), opts.boundMs);
  const onAbort = () => stop("cancelled");
  opts.signal.addEventListener("abort", onAbort);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      opts.signal.removeEventListener("abort", onAbort);
      out.end();
      err.end();
      const stderr = err.lines.map((l) => ({ l, rec: parseRecord(l) }));
      const error = stderr.find((e) => e.rec?.type === "error")?.rec ?? undefined;
      const result: CallResult = {
        exit: code ?? 128 + signalNumber(sig),
        records: out.lines.map(parseRecord).filter((r): r is Record<string, unknown> => r !== null),
        messages: stderr.filter((e) => e.rec === null && e.l.trim() !== "").map((e) => e.l),
        truncated: out.truncated,
      };
      if (error) result.error = error;
      if (stopped) result.stopped = stopped;
      resolve(result);
    });
  });
}

function signalGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // already gone
  }
}

function signalNumber(sig: NodeJS.Signals | null): number {
  return sig === null ? 0 : constants.signals[sig];
}

/** A line that is a record: JSON that starts with `{` (so an object), else null. */
function parseRecord(line: string): Record<string, unknown> | null {
  if (!line.startsWith("{")) return null;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** Splits a byte stream into lines, keeping at most `cap` bytes of them. */
class LineCollector {
  lines: string[] = [];
  truncated = false;
  #size = 0;
  #partial = "";
  readonly #decoder = new TextDecoder();
  readonly cap: number;
  readonly onLine: ((line: string) => void) | undefined;
  constructor(cap: number, onLine?: (line: string) => void) {
    this.cap = cap;
    this.onLine = onLine;
  }

  push(b: Buffer): void {
    const text = this.#partial + this.#decoder.decode(b, { stream: true });
    const parts = text.split("\n");
    this.#partial = parts.pop() as string; // split gives at least one part
    for (const p of parts) this.#line(p);
  }

  end(): void {
    if (this.#partial !== "") this.#line(this.#partial);
  }

  #line(line: string): void {
    if (this.truncated) return;
    if (this.#size + line.length + 1 > this.cap) {
      this.truncated = true;
      return;
    }
    this.#size += line.length + 1;
    this.lines.push(line);
    this.onLine?.(line);
  }
}
