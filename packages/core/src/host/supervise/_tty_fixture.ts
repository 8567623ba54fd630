/**
 * For the tty runs' unit tests only (tty_run_test.ts, tty_monitor_test.ts): tty runs started on
 * a monitor served in the test's own process (monitor/_monitor_fixture.ts), and the clients that
 * attach to them: a raw one on the monitor's socket (its lines as sent), the real `attachTty`
 * over pipes, and a pseudo-terminal of the test's own for a direct attach. Every client, pipe
 * and terminal made here is ended by {@link closeClients}.
 * @internal
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { runPaths } from "../../runs/paths.ts";
import type { TtySize } from "../../runs/tty.ts";
import { type LiveMonitor, newRunId, plannedRun, startRuns, until } from "./monitor/_monitor_fixture.ts";
import { attachTty, type TtyAttachEnd } from "./tty_attach.ts";
import type { TerminalId } from "./tty_direct.ts";
import type { TtyRun } from "./tty_run.ts";

const cleanups: (() => void)[] = [];

/** End every client, pipe and terminal the test made (its afterEach, before the monitor stops). */
export function closeClients(): void {
  for (const f of cleanups.splice(0).reverse()) {
    try {
      f();
    } catch {}
  }
}

/** Start a tty run of `argv` (a terminal of `size`) on the monitor; its id once it is started. */
export async function startTty(
  l: LiveMonitor,
  argv: string[],
  size: TtySize = { cols: 40, rows: 10 },
): Promise<string> {
  const runId = newRunId();
  const [r] = await startRuns(l, [plannedRun(l, runId, { argv, tty: size, agent: null })]);
  if (!r?.ok) throw new Error(`the tty run did not start: ${JSON.stringify(r)}`);
  return runId;
}

/** The run's TtyRun in the monitor (present while its child lives). */
export function ttyRun(l: LiveMonitor, runId: string): TtyRun {
  const run = l.m.ttys.runs.get(runId);
  if (!run) throw new Error(`no tty run ${runId}`);
  return run;
}

/** The run's stdout file as it is now. */
export function stdoutOf(l: LiveMonitor, runId: string): string {
  return readFileSync(runPaths(l.root, runId).stdout, "utf8");
}

/** Until `cond` holds (5 s at most), else an error naming `what`. */
export async function waitFor(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  if (!(await until(cond, ms))) throw new Error(`timed out waiting for ${what}`);
}

/** A client on the monitor's socket that sends lines as given and keeps every line it reads, parsed. */
export interface RawClient {
  sock: Socket;
  lines: Record<string, unknown>[];
  closed: boolean;
  send(x: unknown): void;
  /** Until the monitor has read all this client sent (it takes each line as it reads it). */
  synced(): Promise<void>;
}

export async function rawClient(l: LiveMonitor, allowHalfOpen = false): Promise<RawClient> {
  const before = new Set(l.conns);
  const sock = connect({ path: l.socket, allowHalfOpen });
  cleanups.push(() => sock.destroy());
  await new Promise<void>((resolve, reject) => {
    sock.once("connect", resolve);
    sock.once("error", reject);
  });
  await waitFor(() => [...l.conns].some((s) => !before.has(s)), "the monitor's end of the connection");
  const fresh = [...l.conns].filter((s) => !before.has(s));
  // Two clients connecting at once could not be told apart: a test connects one at a time.
  if (fresh.length !== 1) throw new Error(`${fresh.length} connections came at once`);
  const server = fresh[0]!;
  const c: RawClient = {
    sock,
    lines: [],
    closed: false,
    send: (x) => sock.write(`${typeof x === "string" ? x : JSON.stringify(x)}\n`),
    synced: () => waitFor(() => server.bytesRead === sock.bytesWritten, "the lines read"),
  };
  let buf = "";
  sock.on("data", (b: Buffer) => {
    buf += b.toString("utf8");
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      c.lines.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      buf = buf.slice(nl + 1);
    }
  });
  sock.on("error", () => {});
  sock.on("close", () => {
    c.closed = true;
  });
  return c;
}

/** What the output frames among `lines` carry, decoded and joined. */
export function framed(lines: readonly Record<string, unknown>[]): string {
  return lines
    .filter((f) => f.t === "o")
    .map((f) => Buffer.from(String(f.d), "base64").toString("utf8"))
    .join("");
}

/** The frames that are not output (bell, exit, detached). */
export function signals(lines: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return lines.filter((f) => "t" in f && f.t !== "o");
}

/** `text` as a client's input line. */
export const input = (text: string) => ({ op: "input", data: Buffer.from(text).toString("base64") });

/** The real attach client (`attachTty`) on pipes; its output a "terminal" of `size` when given. */
export function attachPiped(
  l: LiveMonitor,
  runId: string,
  opts: { readOnly?: boolean; size?: TtySize; detachKey?: number | null } = {},
) {
  const keys = new PassThrough();
  const output = Object.assign(new PassThrough(), opts.size ? { isTTY: true, columns: 0, rows: 0 } : {});
  if (opts.size) Object.assign(output, { columns: opts.size.cols, rows: opts.size.rows });
  let out = "";
  output.on("data", (b: Buffer) => {
    out += b.toString("utf8");
  });
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  const ended: Promise<TtyAttachEnd> = attachTty({
    root: l.root,
    hash: l.hash,
    runId,
    readOnly: opts.readOnly ?? false,
    detachKey: opts.detachKey === undefined ? 0x1d : opts.detachKey,
    input: keys,
    output,
    signal: abort.signal,
  });
  ended.catch(() => {});
  return {
    keys,
    ended,
    out: () => out,
    /** The "terminal" resized: what a real one says with SIGWINCH. */
    resize(size: TtySize) {
      Object.assign(output, { columns: size.cols, rows: size.rows });
      output.emit("resize");
    },
  };
}

interface Pty {
  readonly ptsName: string;
  onData(f: (d: string) => void): void;
  write(d: string): void;
  kill(signal?: string): void;
}
const nodePty = createRequire(join(import.meta.dirname, "../../../package.json"))("@lydell/node-pty") as {
  spawn(f: string, a: string[], o: Record<string, unknown>): Pty;
};

/**
 * A terminal of the test's own, as an attach client's (raw, no echo; a `sleep` on it that reads
 * nothing): its identity for a direct attach, what is written to it, and its keyboard.
 */
export function clientTerminal() {
  const p = nodePty.spawn("sleep", ["30"], { cols: 80, rows: 24, env: { PATH: process.env.PATH } });
  let killed = false;
  const kill = () => {
    if (!killed) p.kill("SIGKILL");
    killed = true;
  };
  cleanups.push(kill);
  execFileSync("stty", ["-F", p.ptsName, "raw", "-echo"]);
  let shown = "";
  p.onData((d) => {
    shown += d;
  });
  const s = statSync(p.ptsName);
  const id: TerminalId = { path: p.ptsName, dev: s.dev, ino: s.ino, rdev: s.rdev };
  return { id, shown: () => shown, type: (keys: string) => p.write(keys), hangUp: kill };
}
