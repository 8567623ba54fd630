import { closeSync, promises as fsp, mkdirSync, openSync, statSync } from "node:fs";
import type { Socket } from "node:net";
import { ArielError } from "../../errors.ts";
import { monitorPaths } from "../../runs/paths.ts";
import { STATE_DIR } from "../../workspace.ts";
import { nodeChildProcess } from "../builtins.ts";
import { withLockFile } from "../lock-file.ts";
import { sleep } from "../proc.ts";
import { MONITOR_ARG, type MonitorReply, type MonitorRequest } from "./protocol.ts";

/** Longest unix socket path we bind (the kernel's limit is 108 bytes with the NUL). */
const MAX_SOCKET_PATH = 100;
/**
 * How long a CLI waits for a monitor it started to listen: 30 s, or `ARIEL_MONITOR_START_MS`.
 * A start is quick on a quiet machine; on one busy with many processes it can take seconds, and
 * a monitor still alive is waited for rather than given up on early.
 */
export function startTimeoutMs(env: Record<string, string | undefined> = process.env): number {
  const ms = Number(env.ARIEL_MONITOR_START_MS);
  return Number.isFinite(ms) && ms > 0 ? ms : 30_000;
}

function net(): typeof import("node:net") {
  return process.getBuiltinModule?.("node:net") ?? (require("node:net") as typeof import("node:net"));
}

/**
 * The monitor's socket: `<root>/.ariel/monitor.sock`, or, when that path is too long for a
 * unix socket, `<tmpdir>/ariel-<uid>/<hash>.sock` (a directory only this user can enter).
 */
export function monitorSocketPath(root: string, hash: string): string {
  const path = monitorPaths(root).socket;
  if (new TextEncoder().encode(path).length <= MAX_SOCKET_PATH) return path;
  const os = process.getBuiltinModule?.("node:os") ?? (require("node:os") as typeof import("node:os"));
  const dir = `${os.tmpdir()}/ariel-${process.getuid?.() ?? "user"}`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return `${dir}/${hash}.sock`;
}

/**
 * How to start a monitor: this very CLI (its bundle under Node, its source under Deno) with the
 * hidden {@link MONITOR_ARG}.
 */
export function monitorCommand(): string[] {
  const deno = (globalThis as { Deno?: { execPath(): string; mainModule?: string } }).Deno;
  if (deno) return [deno.execPath(), "run", "-A", "--quiet", process.argv[1] ?? "", MONITOR_ARG];
  return [process.execPath, process.argv[1] ?? "", MONITOR_ARG];
}

function connect(path: string): Promise<Socket | null> {
  return new Promise((resolve) => {
    const sock = net().connect(path);
    sock.once("connect", () => {
      sock.removeAllListeners("error");
      sock.on("error", () => {});
      resolve(sock);
    });
    sock.once("error", () => {
      sock.destroy();
      resolve(null);
    });
  });
}

/**
 * A connection to the workspace's monitor, started first when none answers. Starting happens
 * under `.ariel/monitor.lock`, so two CLIs never start two monitors; a socket file nobody
 * listens on (a monitor that died) is removed first.
 */
export async function connectMonitor(root: string, hash: string): Promise<Socket> {
  const socketPath = monitorSocketPath(root, hash);
  const first = await connect(socketPath);
  if (first) return first;
  const startMs = startTimeoutMs();
  // Those queued behind a start wait for it to end, however it ends, and a little more.
  return withLockFile(
    monitorPaths(root).lock,
    { what: "monitor lock", timeoutMs: startMs + 5_000 },
    async () => {
      const again = await connect(socketPath);
      if (again) return again;
      await fsp.rm(socketPath, { force: true });
      const started = startMonitor(root, socketPath);
      const deadline = Date.now() + startMs;
      for (let delay = 5; started.ended() === undefined; delay = Math.min(delay * 2, 50)) {
        if (Date.now() >= deadline) {
          // One that listened since the last look is used (another CLI may have asked it
          // something already); one that did not is not left to listen later beside the
          // monitor the next CLI starts.
          const late = await connect(socketPath);
          if (late) return late;
          started.kill();
          throw notStarted(root, socketPath, `it did not listen within ${startMs} ms`);
        }
        await sleep(delay);
        const sock = await connect(socketPath);
        if (sock) return sock;
      }
      throw notStarted(root, socketPath, started.ended()!);
    },
  );
}

/** ERR_MONITOR: the monitor this CLI started did not start, and `why`. */
function notStarted(root: string, socket: string, why: string): ArielError {
  return new ArielError("ERR_MONITOR", `the run monitor for ${root} did not start: ${why}`, {
    hint: `see ${root}/${STATE_DIR}/monitor.log`,
    context: { root, socket },
  });
}

/** A monitor being started: why it ended (undefined while it runs), and a way to stop it. */
interface Starting {
  ended(): string | undefined;
  kill(): void;
}

/** Spawn the monitor detached (new session, no terminal). */
function startMonitor(root: string, socketPath: string): Starting {
  const [exe, ...args] = monitorCommand();
  const logFd = openSync(`${root}/${STATE_DIR}/monitor.log`, "a", 0o600);
  let ended: string | undefined;
  let child: import("node:child_process").ChildProcess;
  try {
    child = nodeChildProcess().spawn(exe!, [...args, root, socketPath], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "ignore", logFd],
      env: process.env,
    });
    child.once("error", (e: NodeJS.ErrnoException) => {
      ended ??= `it could not be spawned (${e.code ?? e.message})`;
    });
    child.once("exit", (code, signal) => {
      ended ??= code === null ? `it was killed by ${signal}` : `it exited with status ${code}`;
    });
    child.unref();
  } finally {
    closeSync(logFd);
  }
  return {
    ended: () => ended,
    kill: () => {
      if (ended === undefined) child.kill("SIGKILL");
    },
  };
}

/**
 * How long a CLI waits for the monitor's reply (starting a child is quick; a hung monitor is
 * not): 30 s, or `ARIEL_MONITOR_REPLY_MS`.
 */
function replyTimeoutMs(): number {
  return Number(process.env.ARIEL_MONITOR_REPLY_MS) || 30_000;
}

/** Send one request and read its one-line reply; ERR_MONITOR when none comes in time. */
export function request(sock: Socket, req: MonitorRequest): Promise<MonitorReply> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const ms = replyTimeoutMs();
    const timer = setTimeout(() => {
      sock.destroy();
      reject(
        new ArielError("ERR_MONITOR", `the run monitor did not reply within ${ms} ms`, {
          hint: "see .ariel/monitor.log; ariel-runs list shows what did start",
        }),
      );
    }, ms);
    const onData = (b: Buffer) => {
      buf += b.toString("utf8");
      const nl = buf.indexOf("\n");
      if (nl === -1) return;
      clearTimeout(timer);
      sock.off("data", onData);
      sock.off("close", onClose);
      try {
        resolve(JSON.parse(buf.slice(0, nl)) as MonitorReply);
      } catch (e) {
        reject(e);
      }
    };
    const onClose = () => {
      clearTimeout(timer);
      const e = new ArielError("ERR_MONITOR", "the run monitor closed the connection before it replied");
      if (buf === "") closedUnanswered.add(e);
      reject(e);
    };
    sock.on("data", onData);
    sock.once("close", onClose);
    sock.write(`${JSON.stringify(req)}\n`);
  });
}

/** The errors of {@link request} whose connection closed before a byte of reply came. */
const closedUnanswered = new WeakSet<Error>();

/** The errors of {@link connectAndRequest} from before its request reached any monitor. */
const unasked = new WeakSet<Error>();

/**
 * Whether `e`, thrown by {@link connectAndRequest}, came before any monitor was asked anything
 * (none could be reached or started): then nothing it asked for can have happened, now or later.
 */
export function neverAsked(e: unknown): boolean {
  return e instanceof Error && unasked.has(e);
}

/** The inode at `path`, or null when nothing is there. */
function inodeAt(path: string): number | null {
  try {
    return statSync(path).ino;
  } catch {
    return null;
  }
}

/**
 * Connect to the workspace's monitor (starting one when none answers) and send `req`; the
 * connection is returned with the reply, for more requests. When the monitor closes it before a
 * byte of reply and its socket is gone or another file since the connect, that was an idle
 * monitor leaving, which never read the request (it removes its socket first and exits only
 * with no connection accepted): connect once more and send again.
 */
export async function connectAndRequest(
  root: string,
  hash: string,
  req: MonitorRequest,
): Promise<{ sock: Socket; reply: MonitorReply }> {
  const socketPath = monitorSocketPath(root, hash);
  for (let attempt = 1; ; attempt++) {
    const sock = await connectMonitor(root, hash).catch((e: unknown) => {
      if (e instanceof Error) unasked.add(e);
      throw e;
    });
    const ino = inodeAt(socketPath);
    try {
      return { sock, reply: await request(sock, req) };
    } catch (e) {
      sock.destroy();
      const left =
        e instanceof Error && closedUnanswered.has(e) && (ino === null || inodeAt(socketPath) !== ino);
      if (attempt > 1 || !left) throw e;
    }
  }
}
