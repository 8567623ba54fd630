/**
 * Run one hook: its argv directly (no shell of ours; a string hook is `sh -c` by its own
 * argv), in its own process group, its output appended to the task's hook log and handed out
 * line by line. Bounded: past `timeoutMs` the group gets SIGTERM, then SIGKILL
 * {@link KILL_GRACE_MS} later. When the hook's process exits, what it left running in its group
 * gets SIGTERM too: a hook is a step, not a server (start those with `ariel-spawn --detach`).
 *
 * @example
 * ```ts
 * const r = await runHook({ argv: ["sh", "-c", "npm ci"], cwd: wt, env, timeoutMs: 600_000, log });
 * r.status; // "ok" | "failed" | "timeout" | "not-started"
 * ```
 */
import { appendFileSync, statSync } from "node:fs";
import { childStatus } from "../../spawn/exit.ts";
import { nodeChildProcess } from "../builtins.ts";
import { LineSplitter } from "../spawn/lines.ts";
import { signalNumber, startError } from "../spawn/process.ts";

/** Between SIGTERM and SIGKILL of a hook that ran out of time. */
export const KILL_GRACE_MS = 5_000;
/** How long output still in the pipes is read after the hook's process exited. */
const DRAIN_MS = 1_000;

export interface HookSpec {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** The log file the output is appended to. */
  log: string;
  /** Each line of output (stdout and stderr alike). */
  onLine?: (line: string) => void;
}

export interface HookRun {
  status: "ok" | "failed" | "timeout" | "not-started";
  /** Shell-style status: the code, 128+N for signal N, 125/126/127 when it never started. */
  exit: number;
  signal: string | null;
  durationMs: number;
  /** Why it could not start (command not found, …). */
  error?: string;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

/** Run one hook to its end (never rejects). */
export function runHook(spec: HookSpec): Promise<HookRun> {
  const started = Date.now();
  const append = (text: string | Uint8Array) => {
    try {
      appendFileSync(spec.log, text);
    } catch {
      // a log that cannot be written never fails the hook
    }
  };
  if (!isDirectory(spec.cwd)) {
    const error = `the worktree ${spec.cwd} is missing`;
    append(`${error}\n`);
    return Promise.resolve({ status: "not-started", exit: 125, signal: null, durationMs: 0, error });
  }
  return new Promise<HookRun>((resolve) => {
    const child = nodeChildProcess().spawn(spec.argv[0] ?? "", spec.argv.slice(1), {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      windowsHide: true,
    });
    const timers: ReturnType<typeof setTimeout>[] = [];
    let timedOut = false;
    let result: Omit<HookRun, "durationMs"> | null = null;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        ...(result ?? { status: "failed", exit: 1, signal: null }),
        durationMs: Date.now() - started,
      });
    };
    for (const stream of [child.stdout, child.stderr]) {
      const splitter = new LineSplitter();
      stream?.on("data", (chunk: Buffer) => {
        append(chunk);
        for (const l of splitter.push(chunk)) spec.onLine?.(l.line);
      });
      stream?.on("end", () => {
        for (const l of splitter.end()) spec.onLine?.(l.line);
      });
    }
    child.on("error", (e: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return;
      const err = startError(e, spec.argv[0] ?? "");
      append(`${err.message}\n`);
      result = { status: "not-started", exit: err.exit, signal: null, error: err.message };
      finish();
    });
    const pid = child.pid;
    if (pid === undefined) return;
    timers.push(
      setTimeout(() => {
        timedOut = true;
        killGroup(pid, "SIGTERM");
        timers.push(setTimeout(() => killGroup(pid, "SIGKILL"), KILL_GRACE_MS));
      }, spec.timeoutMs),
    );
    child.on("exit", (code, signal) => {
      const exit = childStatus(code, signalNumber(signal));
      result = { status: timedOut ? "timeout" : exit === 0 ? "ok" : "failed", exit, signal };
      // What the hook left behind in its group ends with it; its pipes are read a little longer.
      killGroup(pid, "SIGTERM");
      timers.push(setTimeout(finish, DRAIN_MS));
    });
    child.on("close", finish);
  });
}
