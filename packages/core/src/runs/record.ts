/**
 * `run.json` and `exit.json` of a detached run (docs/runs.md): the run's spec and the identities
 * of its monitor and child, CAS-written like task records; `exit.json` written once, by temp
 * file + rename, when the child ended. No environment value is ever stored.
 *
 * @example
 * ```ts
 * const r = z.safeParse(runRecordSchema(), JSON.parse(text));
 * ```
 */
import * as z from "zod/mini";

/** The identity that tells our process from a later one with the same pid. */
export interface ProcessRef {
  pid: number;
  /** /proc/PID/stat field 22 (clock ticks since boot); null where /proc is missing. */
  startTime: string | null;
}

export interface MonitorRef extends ProcessRef {
  bootId: string | null;
}

export interface ChildRef extends ProcessRef {
  pgid: number;
}

export interface ExitInfo {
  /** The exit code, or null when a signal ended the child (or it never started). */
  code: number | null;
  signal: string | null;
  /** Shell-style: the code, 128+N for signal N, 126/127 when it could not start. */
  status: number;
  endedAt: string;
}

/** What `run.json` holds. */
export interface RunRecord {
  v: 1;
  type: "run";
  runId: string;
  name: string | null;
  backend: "local" | "k8s";
  workspace: { root: string; hash: string };
  source: string | null;
  cwd: string;
  task: string | null;
  worktree: string | null;
  branch: string | null;
  argv: string[];
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  monitor: MonitorRef | null;
  child: ChildRef | null;
  restart: { policy: "no" | "on-failure"; max: number; count: number };
  respawnOf: string | null;
  exit: ExitInfo | null;
  /** `--timeout` in ms, `--grace` in ms, `--on-exit` argv, `--interactive`. */
  timeoutMs: number | null;
  graceMs: number;
  onExit: string[] | null;
  interactive: boolean;
  /** With --isolate: what happens to the worktree at exit (remove if clean, or keep). */
  isolate: { onExit: "remove" | "keep" | "snapshot"; created: boolean } | null;
  /** Set by `kill` (or the monitor's --timeout) before it signals: makes the end `killed`. */
  kill: { requestedAt: string; signal: string; reason: "kill" | "timeout" | "respawn" } | null;
  /** Filled by the monitor after an isolated run: removed, kept (and why) or snapshotted. */
  worktreeOutcome: { outcome: "removed" | "kept" | "snapshotted"; reason: string | null } | null;
  version: number;
  fencingToken: number;
}

/** What `exit.json` holds. */
export interface ExitRecord extends ExitInfo {
  v: 1;
  type: "exit";
  runId: string;
  /** The final state this exit gives the run. */
  state: "exited" | "failed" | "killed";
  /** Why it ended when ariel ended it (`kill`, `timeout`, `respawn`), or could not start (`spawn`). */
  reason: string | null;
}

let memo: { run: z.ZodMiniType; exit: z.ZodMiniType } | undefined;

function build() {
  const isoTime = z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/));
  const absPath = z.string().check(z.regex(/^\//));
  const pid = z.int().check(z.minimum(1));
  const startTime = z.nullable(z.string());
  const exitInfo = {
    code: z.nullable(z.int()),
    signal: z.nullable(z.string()),
    status: z.int().check(z.minimum(0), z.maximum(255)),
    endedAt: isoTime,
  };
  const run = z.looseObject({
    v: z.literal(1),
    type: z.literal("run"),
    runId: z.string().check(z.regex(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/)),
    name: z.nullable(z.string().check(z.minLength(1), z.maxLength(256))),
    backend: z.enum(["local", "k8s"]),
    workspace: z.object({ root: absPath, hash: z.string().check(z.regex(/^[0-9a-f]{16}$/)) }),
    source: z.nullable(z.string()),
    cwd: absPath,
    task: z.nullable(z.string()),
    worktree: z.nullable(absPath),
    branch: z.nullable(z.string()),
    argv: z.array(z.string()).check(z.minLength(1)),
    createdAt: isoTime,
    startedAt: z.nullable(isoTime),
    endedAt: z.nullable(isoTime),
    monitor: z.nullable(z.object({ pid, startTime, bootId: z.nullable(z.string()) })),
    child: z.nullable(z.object({ pid, pgid: pid, startTime })),
    restart: z.object({
      policy: z.enum(["no", "on-failure"]),
      max: z.int().check(z.minimum(0)),
      count: z.int().check(z.minimum(0)),
    }),
    respawnOf: z.nullable(z.string()),
    exit: z.nullable(z.object(exitInfo)),
    timeoutMs: z.nullable(z.int().check(z.minimum(1))),
    graceMs: z.int().check(z.minimum(0)),
    onExit: z.nullable(z.array(z.string()).check(z.minLength(1))),
    interactive: z.boolean(),
    isolate: z.nullable(z.object({ onExit: z.enum(["remove", "keep", "snapshot"]), created: z.boolean() })),
    kill: z.nullable(
      z.object({ requestedAt: isoTime, signal: z.string(), reason: z.enum(["kill", "timeout", "respawn"]) }),
    ),
    worktreeOutcome: z.nullable(
      z.object({ outcome: z.enum(["removed", "kept", "snapshotted"]), reason: z.nullable(z.string()) }),
    ),
    version: z.int().check(z.minimum(1)),
    fencingToken: z.int().check(z.minimum(0)),
    /** On stdout only (never stored): the state derived when the record was printed. */
    state: z.optional(z.enum(["starting", "running", "exited", "failed", "killed", "lost", "crashed"])),
  });
  const exit = z.looseObject({
    v: z.literal(1),
    type: z.literal("exit"),
    runId: z.string(),
    ...exitInfo,
    state: z.enum(["exited", "failed", "killed"]),
    reason: z.nullable(z.string()),
  });
  return { run, exit };
}

/** The zod/mini schema of `run.json` (built on first use). */
export function runRecordSchema(): z.ZodMiniType {
  memo ??= build();
  return memo.run;
}

/** The zod/mini schema of `exit.json` (built on first use). */
export function exitRecordSchema(): z.ZodMiniType {
  memo ??= build();
  return memo.exit;
}
