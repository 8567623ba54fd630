import type { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { constants } from "node:os";
import { ArielError } from "../../errors.ts";
import { childStatus } from "../../spawn/exit.ts";
import { nodeChildProcess } from "../builtins.ts";
import { findOnPath } from "../which.ts";
import { LineSplitter, type OutputLine } from "./lines.ts";

export { findOnPath };

export type StreamName = "stdout" | "stderr";

export interface ChildOptions {
  argv: readonly string[];
  /**
   * The executable `argv[0]` names, when it was looked up along PATH already
   * ({@link findOnPath}); the child still sees `argv[0]` as given.
   */
  file?: string;
  cwd: string;
  env: Record<string, string>;
  /** Share ariel-spawn's stdin (one interactive child) or give it /dev/null. */
  stdin: "inherit" | "ignore";
  /**
   * Start the child in its own process group, so a termination reaches its whole tree. A child
   * that shares the terminal (stdin "inherit") stays in ours, or reading the TTY would stop it.
   */
  ownGroup: boolean;
  /** Each complete line (and a last partial one) of the child's stdout and stderr. */
  onLine: (stream: StreamName, line: OutputLine) => void;
  /** Raw decoded text as it arrives, before line splitting (for unprefixed pass-through). */
  onText?: (stream: StreamName, text: string) => void;
}

export interface ChildResult {
  code: number | null;
  signal: string | null;
  /** Shell-style status: the code, 128+N for signal N, or 125/126/127 when it never started. */
  status: number;
  pid: number | null;
  /** Set when the command could not be started (ERR_SPAWN, ERR_NOT_EXECUTABLE, ERR_COMMAND_NOT_FOUND). */
  error: ArielError | null;
}

export interface ChildHandle {
  readonly pid: number | null;
  /** Send a signal to the child (its process group when it has one); ignored once it exited. */
  kill(signal: NodeJS.Signals): void;
  readonly done: Promise<ChildResult>;
}

/** The number of a signal by name (SIGKILL → 9), or null when unknown. */
export function signalNumber(signal: string | null): number | null {
  if (!signal) return null;
  return (constants.signals as Record<string, number | undefined>)[signal] ?? null;
}

export function startError(e: NodeJS.ErrnoException, argv0: string): ArielError {
  if (e.code === "ENOENT") {
    return new ArielError("ERR_COMMAND_NOT_FOUND", `command not found: ${argv0}`, {
      context: { command: argv0 },
    });
  }
  if (e.code === "EACCES" || e.code === "EISDIR" || e.code === "ENOEXEC") {
    return new ArielError("ERR_NOT_EXECUTABLE", `command not executable: ${argv0}`, {
      context: { command: argv0, errno: e.code },
    });
  }
  return new ArielError("ERR_SPAWN", `cannot start ${argv0}: ${e.code ?? e.message}`, {
    context: { command: argv0, ...(e.code ? { errno: e.code } : {}) },
  });
}

/** A child that never started, ending with `error`'s status (125-127, or its own exit). */
export function failed(error: ArielError): ChildHandle {
  const result: ChildResult = { code: null, signal: null, status: error.exit, pid: null, error };
  return { pid: null, kill() {}, done: Promise.resolve(result) };
}

/**
 * Start one child directly (no shell), stream its output as lines, and resolve with how it
 * ended. Never rejects: a command that cannot start resolves with status 125/126/127 and `error`.
 */
export function startChild(options: ChildOptions): ChildHandle {
  const argv0 = options.argv[0];
  if (argv0 === undefined || argv0 === "") {
    return failed(new ArielError("ERR_SPAWN", "empty command"));
  }
  try {
    if (!statSync(options.cwd).isDirectory()) throw new Error("not a directory");
  } catch {
    return failed(
      new ArielError("ERR_SPAWN", `working directory missing: ${options.cwd}`, {
        context: { cwd: options.cwd },
      }),
    );
  }
  let child: ReturnType<typeof spawn>;
  try {
    child = nodeChildProcess().spawn(options.file ?? argv0, options.argv.slice(1), {
      argv0,
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin, "pipe", "pipe"],
      shell: false,
      detached: options.ownGroup,
      windowsHide: true,
    });
  } catch (e) {
    return failed(startError(e as NodeJS.ErrnoException, argv0));
  }
  let exited = child.pid === undefined;
  let reaped = exited;
  child.on("exit", () => {
    reaped = true;
  });
  const pid = child.pid ?? null;
  const done = new Promise<ChildResult>((resolve) => {
    let settled = false;
    const settle = (r: ChildResult) => {
      if (settled) return;
      settled = true;
      exited = true;
      resolve(r);
    };
    const wire = (stream: StreamName) => {
      const s = child[stream];
      if (!s) return;
      const splitter = new LineSplitter();
      const decoder = options.onText ? new TextDecoder() : null;
      s.on("data", (chunk: Buffer) => {
        if (decoder) options.onText?.(stream, decoder.decode(chunk, { stream: true }));
        for (const l of splitter.push(chunk)) options.onLine(stream, l);
      });
      s.on("close", () => {
        if (decoder) {
          const tail = decoder.decode();
          if (tail) options.onText?.(stream, tail);
        }
        for (const l of splitter.end()) options.onLine(stream, l);
      });
    };
    wire("stdout");
    wire("stderr");
    child.on("error", (e: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        const error = startError(e, argv0);
        settle({ code: null, signal: null, status: error.exit, pid: null, error });
      }
    });
    child.on("close", (code, signal) => {
      settle({ code, signal, status: childStatus(code, signalNumber(signal)), pid, error: null });
    });
  });
  return {
    pid,
    kill(signal) {
      if (exited || pid === null) return;
      // process.kill, never child.kill: Deno's ChildProcess#kill sends one signal per child (a
      // later SIGKILL is dropped) and makes "close" report the signal it sent, not how the
      // child ended. A child of its own group gets it with its descendants; a reaped child
      // (its pid may be reused) gets nothing.
      const targets = options.ownGroup ? [-pid, pid] : reaped ? [] : [pid];
      for (const target of targets) {
        try {
          process.kill(target, signal);
          return;
        } catch {
          // no such group (its leader made one of its own) or already gone: try the next
        }
      }
    },
    done,
  };
}
