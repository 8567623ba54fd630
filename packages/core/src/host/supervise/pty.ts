import { EventEmitter } from "node:events";
import { closeSync, constants as fsConstants, openSync } from "node:fs";
import { ArielError } from "../../errors.ts";
import type { TtySize } from "../../runs/tty.ts";
import { loadRuntimeDependency } from "../runtime_dep.ts";
import { runExec } from "./exec.ts";

/** What ariel uses of `@lydell/node-pty` (loaded on first use: only tty runs need the addon). */
export interface PtyModule {
  spawn(
    file: string,
    args: string[],
    options: {
      cols: number;
      rows: number;
      cwd: string;
      env: Record<string, string>;
      encoding: null;
      name: string;
    },
  ): Pty;
}

export interface Pty {
  readonly pid: number;
  /** The terminal's device, /dev/pts/N. */
  readonly ptsName: string;
  onData(listener: (data: Uint8Array | string) => void): { dispose(): void };
  onExit(listener: (e: { exitCode: number; signal?: number }) => void): { dispose(): void };
  write(data: string | Uint8Array): void;
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
  kill(signal?: string): void;
}

let loaded: Promise<PtyModule> | undefined;

/**
 * The pseudo-terminal addon, or ERR_TTY_UNAVAILABLE (69) where it cannot load: Deno, Windows,
 * a platform with no prebuilt binary, a package installed without it (docs/runs.md).
 */
export function loadPty(): Promise<PtyModule> {
  loaded ??= (async () => {
    if ((globalThis as { Deno?: unknown }).Deno !== undefined) {
      throw unavailable("Deno runs ariel's CLIs from source, and the pseudo-terminal addon is a Node addon");
    }
    if (process.platform === "win32") throw unavailable("tty runs need a Unix pseudo-terminal");
    try {
      const m = (await loadRuntimeDependency("@lydell/node-pty")) as unknown as PtyModule & {
        default?: PtyModule;
      };
      return typeof m.spawn === "function" ? m : (m.default as PtyModule);
    } catch (e) {
      throw unavailable(`the pseudo-terminal addon did not load (${(e as Error).message.split("\n")[0]})`);
    }
  })();
  loaded.catch(() => {});
  return loaded;
}

function unavailable(why: string): ArielError {
  return new ArielError("ERR_TTY_UNAVAILABLE", `--tty is not available here: ${why}`, {
    hint: "run ariel-spawn --detach --tty with Node 20+ on Linux or macOS, or drop --tty (--interactive keeps a stdin pipe)",
  });
}

/**
 * A child on a pseudo-terminal, shaped like the part of a ChildProcess the monitor uses: `pid`,
 * `stdin.write/end` (keys typed into the terminal), and `exit (code, signal)` once its output
 * was read to the end. `data` gives the terminal's bytes as they come.
 */
export class PtyChild extends EventEmitter {
  readonly pid: number;
  readonly stdin: { write(b: Uint8Array): void; end(): void; on(e: string, f: () => void): void };
  readonly pty: Pty;
  size: TtySize;

  constructor(pty: Pty, size: TtySize) {
    super();
    this.pty = pty;
    this.pid = pty.pid;
    this.size = size;
    this.stdin = {
      write: (b) => this.write(b),
      end: () => this.write(new Uint8Array([4])), // ^D, as a terminal's end of input
      on: () => {},
    };
    // Held open by us too, so the terminal does not hang up the instant the child's end closes
    // it: what the child wrote last is read first (then node-pty reports the exit). Never our
    // controlling terminal (O_NOCTTY); closed by the monitor's death like the rest.
    const slave = holdOpen(pty.ptsName);
    pty.onData((d) => this.emit("data", typeof d === "string" ? Buffer.from(d, "utf8") : d));
    pty.onExit(({ exitCode, signal }) => {
      if (slave !== null) closeSync(slave);
      const name = signal ? signalName(signal) : null;
      this.emit("exit", name ? null : exitCode, name);
    });
  }

  write(b: Uint8Array | string): void {
    try {
      this.pty.write(typeof b === "string" || Buffer.isBuffer(b) ? b : Buffer.from(b));
    } catch {
      // the terminal closed with its child: keys to a gone run are dropped
    }
  }

  resize(size: TtySize): void {
    if (size.cols === this.size.cols && size.rows === this.size.rows) return;
    this.size = size;
    try {
      this.pty.resize(size.cols, size.rows);
    } catch {}
  }
}

function holdOpen(device: string): number | null {
  try {
    return openSync(device, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
  } catch {
    return null; // then the last bytes of a child may be lost at its end, as with node-pty alone
  }
}

function signalName(n: number): NodeJS.Signals | null {
  const os = process.getBuiltinModule?.("node:os") ?? (require("node:os") as typeof import("node:os"));
  for (const [name, num] of Object.entries(os.constants.signals))
    if (num === n) return name as NodeJS.Signals;
  return null;
}

/** Start `argv` on a new pseudo-terminal of `size` (its own session: the child leads it). */
export async function spawnOnPty(
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string>; size: TtySize },
): Promise<PtyChild> {
  const pty = await loadPty();
  const { file, args } = runExec(argv, options.cwd, options.env);
  const p = pty.spawn(file, args, {
    cols: options.size.cols,
    rows: options.size.rows,
    cwd: options.cwd,
    env: { TERM: "xterm-256color", ...options.env },
    encoding: null,
    name: options.env.TERM ?? "xterm-256color",
  });
  return new PtyChild(p, options.size);
}

/** The size of the terminal this process runs in (stdout's, else stderr's), or null in a pipe. */
export function terminalSize(): TtySize | null {
  for (const s of [process.stdout, process.stderr] as {
    isTTY?: boolean;
    columns?: number;
    rows?: number;
  }[]) {
    if (s.isTTY && s.columns && s.rows) return { cols: s.columns, rows: s.rows };
  }
  return null;
}
