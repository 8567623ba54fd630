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
import { WORKSPACE_HASH_PATTERN } from "../hash.ts";
import type { RecordedSandbox } from "../sandbox/settings.ts";
import { lazy } from "../schema/lazy.ts";
import { RUN_ID_PATTERN } from "../spawn/run_id.ts";
import { EXIT_STATES, isExitState, RUN_STATES } from "./state.ts";

/** How long an `--on-exit` hook may run unless `--on-exit-timeout` says otherwise: 60 s. */
export const ON_EXIT_TIMEOUT_MS = 60_000;
const OUTCOMES = ["removed", "kept", "snapshotted"] as const;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

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
  /** In run.json a copy of exit.json's final state and reason (so `list` reads one file a run). */
  state?: "exited" | "failed" | "killed";
  reason?: string | null;
}

/** One leg an isolated run works in: its source, its worktree and the branch checked out there. */
export interface RunLeg {
  source: string;
  worktree: string;
  branch: string;
}

/** How one leg of a run over several legs (`--span`) ended up when the run ended. */
export interface LegOutcome {
  source: string;
  outcome: "removed" | "kept" | "snapshotted";
  reason: string | null;
}

/** What became of an isolated run's worktrees when it ended (the monitor's settle). */
export interface WorktreeOutcomeRecord {
  /** The run's whole outcome: `kept` when any leg was kept, else `snapshotted` when any was, else `removed`. */
  outcome: "removed" | "kept" | "snapshotted";
  /** Why it was kept (the first kept leg's reason), else null. */
  reason: string | null;
  /** A run over several legs (`--span`): each leg's own outcome, in the legs' order. */
  legs?: LegOutcome[];
}

/** What `run.json` holds. */
export interface RunRecord {
  v: 1;
  type: "run";
  runId: string;
  name: string | null;
  /**
   * The runs started by one `ariel-spawn` call share it (a run id's shape; `ariel-runs wait
   * --group`); a respawn keeps it. Absent in records written before groups existed.
   */
  group?: string | null;
  backend: "local" | "k8s";
  workspace: { root: string; hash: string };
  source: string | null;
  cwd: string;
  task: string | null;
  worktree: string | null;
  branch: string | null;
  /**
   * An isolated local run: every leg it works in (one for a run in one leg's worktree, each leg
   * of the task for `--span`), in the task's order. Absent for a run in a checkout (and in records
   * written before it existed: then `worktree` is its one leg).
   */
  legs?: RunLeg[];
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
  /**
   * How long the `--on-exit` hook may run (ms, `--on-exit-timeout`; absent in records written
   * before it existed: {@link ON_EXIT_TIMEOUT_MS}). Then TERM, and KILL after `graceMs`, to its
   * process group.
   */
  onExitTimeoutMs?: number;
  interactive: boolean;
  /** With --isolate: what happens to the worktree at exit (remove if clean, or keep). */
  isolate: {
    onExit: "remove" | "keep" | "snapshot";
    created: boolean;
    /** With --join: the runs at work in the existing task when this one joined it. */
    joined?: string[];
  } | null;
  /** Set by `kill` (or the monitor's --timeout) before it signals: makes the end `killed`. */
  kill: { requestedAt: string; signal: string; reason: "kill" | "timeout" | "respawn" } | null;
  /** Filled by the monitor after an isolated run: removed, kept (and why) or snapshotted; per leg for `--span`. */
  worktreeOutcome: WorktreeOutcomeRecord | null;
  /** A `k8s` run's Job (absent for local runs): where it is and which one (its uid). */
  k8s?: K8sRef;
  /** `--tty`: the child's terminal size (its last resize); absent or null for a piped run. */
  tty?: { cols: number; rows: number } | null;
  /** The attention preset (`--agent`, else argv[0]'s basename when one matches, else generic). */
  agent?: string | null;
  /** `--notify CMD` argv: run on each move into `waiting` and at exit. */
  notify?: string[] | null;
  /**
   * `--sandbox`: what the run may write and may not read, and its network (docs/sandbox.md);
   * absent or null for a run without a sandbox. A respawn starts in the same one.
   */
  sandbox?: RecordedSandbox | null;
  /**
   * How the run's agent reports its own state, wired by the monitor at each start of the child
   * (docs/runs.md, "What agents report"); absent or null: not wired (its screen alone tells).
   */
  reports?: {
    agent: "claude" | "codex" | "gemini";
    via: "claude-hooks" | "codex-notify" | "gemini-hooks";
  } | null;
  version: number;
  fencingToken: number;
}

/** The Job a k8s run is, and the kubeconfig file it was created with (a path, never a credential). */
export interface K8sRef {
  namespace: string;
  job: string;
  uid: string;
  kubeconfig: string;
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

/**
 * The fields added since the first record (each optional, so an older record still reads): a k8s
 * run's Job, a tty run's size and agent, `--notify`, `--sandbox`, the agent's report wiring.
 */
function laterFields(absPath: z.ZodMiniString) {
  return {
    k8s: z.optional(
      z.object({ namespace: z.string(), job: z.string(), uid: z.string(), kubeconfig: absPath }),
    ),
    tty: z.optional(
      z.nullable(
        z.object({
          cols: z.int().check(z.minimum(2), z.maximum(1000)),
          rows: z.int().check(z.minimum(2), z.maximum(1000)),
        }),
      ),
    ),
    agent: z.optional(z.nullable(z.string().check(z.regex(/^[a-z][a-z0-9-]{0,31}$/)))),
    notify: z.optional(z.nullable(z.array(z.string()).check(z.minLength(1)))),
    sandbox: z.optional(
      z.nullable(
        z.object({
          write: z.array(absPath).check(z.maxLength(256)),
          hide: z.array(absPath).check(z.maxLength(256)),
          net: z.enum(["on", "none"]),
        }),
      ),
    ),
    reports: z.optional(
      z.nullable(
        z.object({
          agent: z.enum(["claude", "codex", "gemini"]),
          via: z.enum(["claude-hooks", "codex-notify", "gemini-hooks"]),
        }),
      ),
    ),
  };
}

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
    runId: z.string().check(z.regex(RUN_ID_PATTERN)),
    name: z.nullable(z.string().check(z.minLength(1), z.maxLength(256))),
    group: z.optional(z.nullable(z.string().check(z.regex(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/)))),
    backend: z.enum(["local", "k8s"]),
    workspace: z.object({ root: absPath, hash: z.string().check(z.regex(WORKSPACE_HASH_PATTERN)) }),
    source: z.nullable(z.string()),
    cwd: absPath,
    task: z.nullable(z.string()),
    worktree: z.nullable(absPath),
    branch: z.nullable(z.string()),
    legs: z.optional(
      z.array(z.object({ source: z.string(), worktree: absPath, branch: z.string() })).check(z.minLength(1)),
    ),
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
    exit: z.nullable(
      z.object({
        ...exitInfo,
        state: z.optional(z.enum(EXIT_STATES)),
        reason: z.optional(z.nullable(z.string())),
      }),
    ),
    timeoutMs: z.nullable(z.int().check(z.minimum(1))),
    graceMs: z.int().check(z.minimum(0)),
    onExit: z.nullable(z.array(z.string()).check(z.minLength(1))),
    onExitTimeoutMs: z.optional(z.int().check(z.minimum(1))),
    interactive: z.boolean(),
    isolate: z.nullable(
      z.object({
        onExit: z.enum(["remove", "keep", "snapshot"]),
        created: z.boolean(),
        joined: z.optional(z.array(z.string().check(z.regex(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/)))),
      }),
    ),
    kill: z.nullable(
      z.object({ requestedAt: isoTime, signal: z.string(), reason: z.enum(["kill", "timeout", "respawn"]) }),
    ),
    worktreeOutcome: z.nullable(
      z.object({
        outcome: z.enum(OUTCOMES),
        reason: z.nullable(z.string()),
        legs: z.optional(
          z.array(
            z.object({ source: z.string(), outcome: z.enum(OUTCOMES), reason: z.nullable(z.string()) }),
          ),
        ),
      }),
    ),
    ...laterFields(absPath),
    version: z.int().check(z.minimum(1)),
    fencingToken: z.int().check(z.minimum(0)),
    /** On stdout only (never stored): the state derived when the record was printed. */
    state: z.optional(z.enum(RUN_STATES)),
  });
  return run;
}

/**
 * The zod/mini schema of `run.json` (built on first use): the published schema
 * (docs/schema/run.schema.json) and the check of every write. Reading many records (`list`) uses
 * {@link runRecordProblem}, the same rules by hand at a fraction of the cost; a test holds the
 * two to the same verdicts.
 */
export const runRecordSchema: () => z.ZodMiniType = lazy(build);

const AGENT = /^[a-z][a-z0-9-]{0,31}$/;

type Check = (v: unknown) => boolean;
const str: Check = (v) => typeof v === "string";
const int =
  (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const nullable =
  (c: Check): Check =>
  (v) =>
    v === null || c(v);
const abs: Check = (v) => typeof v === "string" && v.startsWith("/");
const iso: Check = (v) => typeof v === "string" && ISO.test(v);
const oneOf =
  (...xs: string[]): Check =>
  (v) =>
    xs.includes(v as string);
const obj =
  (shape: Record<string, Check>): Check =>
  (v) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
    return Object.entries(shape).every(([k, c]) => c((v as Record<string, unknown>)[k]));
  };
const strings =
  (min: number): Check =>
  (v) =>
    Array.isArray(v) && v.length >= min && v.every(str);

const absList: Check = (v) => Array.isArray(v) && v.length <= 256 && v.every(abs);

let runChecks: Record<string, Check> | undefined;
function buildRunChecks(): Record<string, Check> {
  const pid = int(1);
  return {
    v: (v) => v === 1,
    type: (v) => v === "run",
    runId: (v) => typeof v === "string" && RUN_ID_PATTERN.test(v),
    name: nullable((v) => typeof v === "string" && v.length >= 1 && v.length <= 256),
    group: (v) => v === undefined || v === null || (typeof v === "string" && RUN_ID_PATTERN.test(v)),
    backend: oneOf("local", "k8s"),
    workspace: obj({ root: abs, hash: (v) => typeof v === "string" && WORKSPACE_HASH_PATTERN.test(v) }),
    source: nullable(str),
    cwd: abs,
    task: nullable(str),
    worktree: nullable(abs),
    branch: nullable(str),
    legs: (v) =>
      v === undefined ||
      (Array.isArray(v) && v.length >= 1 && v.every(obj({ source: str, worktree: abs, branch: str }))),
    argv: strings(1),
    createdAt: iso,
    startedAt: nullable(iso),
    endedAt: nullable(iso),
    monitor: nullable(obj({ pid, startTime: nullable(str), bootId: nullable(str) })),
    child: nullable(obj({ pid, pgid: pid, startTime: nullable(str) })),
    restart: obj({ policy: oneOf("no", "on-failure"), max: int(0), count: int(0) }),
    respawnOf: nullable(str),
    exit: nullable(
      obj({
        code: nullable(int()),
        signal: nullable(str),
        status: int(0, 255),
        endedAt: iso,
        state: (v) => v === undefined || isExitState(v as string),
        reason: (v) => v === undefined || v === null || typeof v === "string",
      }),
    ),
    timeoutMs: nullable(int(1)),
    graceMs: int(0),
    onExit: nullable(strings(1)),
    onExitTimeoutMs: (v) => v === undefined || int(1)(v),
    interactive: (v) => typeof v === "boolean",
    isolate: nullable(
      obj({
        onExit: oneOf("remove", "keep", "snapshot"),
        created: (v) => typeof v === "boolean",
        joined: (v) =>
          v === undefined ||
          (Array.isArray(v) && v.every((id) => typeof id === "string" && RUN_ID_PATTERN.test(id))),
      }),
    ),
    kill: nullable(obj({ requestedAt: iso, signal: str, reason: oneOf("kill", "timeout", "respawn") })),
    worktreeOutcome: nullable(
      obj({
        outcome: oneOf(...OUTCOMES),
        reason: nullable(str),
        legs: (v) =>
          v === undefined ||
          (Array.isArray(v) &&
            v.every(obj({ source: str, outcome: oneOf(...OUTCOMES), reason: nullable(str) }))),
      }),
    ),
    k8s: (v) => v === undefined || obj({ namespace: str, job: str, uid: str, kubeconfig: abs })(v),
    tty: (v) => v === undefined || nullable(obj({ cols: int(2, 1000), rows: int(2, 1000) }))(v),
    agent: (v) => v === undefined || v === null || (typeof v === "string" && AGENT.test(v)),
    notify: (v) => v === undefined || nullable(strings(1))(v),
    sandbox: (v) =>
      v === undefined || nullable(obj({ write: absList, hide: absList, net: oneOf("on", "none") }))(v),
    reports: (v) =>
      v === undefined ||
      nullable(
        obj({
          agent: oneOf("claude", "codex", "gemini"),
          via: oneOf("claude-hooks", "codex-notify", "gemini-hooks"),
        }),
      )(v),
    version: int(1),
    fencingToken: int(0),
    state: (v) => v === undefined || oneOf(...RUN_STATES)(v),
  };
}

/**
 * The first field of a parsed `run.json` that breaks {@link runRecordSchema}'s rules, or null.
 *
 * @example
 * ```ts
 * runRecordProblem({ v: 2 }); // "v"
 * ```
 */
export function runRecordProblem(x: unknown): string | null {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return "(root)";
  runChecks ??= buildRunChecks();
  const r = x as Record<string, unknown>;
  for (const [k, c] of Object.entries(runChecks)) if (!c(r[k])) return k;
  return null;
}

/**
 * Why a parsed `exit.json` is not one, or null when it is: the same rules as
 * {@link exitRecordSchema}, checked by hand because `list` reads one per ended run.
 *
 * @example
 * ```ts
 * exitRecordProblem({ v: 1, type: "exit", runId: "r", code: 0, signal: null, status: 0,
 *   endedAt: "2026-12-02T11:09:43.000Z", state: "exited", reason: null }); // null
 * ```
 */
export function exitRecordProblem(x: unknown): string | null {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return "not a JSON object";
  const r = x as Record<string, unknown>;
  if (r.v !== 1 || r.type !== "exit") return "v/type: not an exit record";
  if (typeof r.runId !== "string") return "runId: expected a string";
  if (r.code !== null && !Number.isInteger(r.code)) return "code: expected an integer or null";
  if (r.signal !== null && typeof r.signal !== "string") return "signal: expected a string or null";
  if (!Number.isInteger(r.status) || (r.status as number) < 0 || (r.status as number) > 255)
    return "status: expected 0-255";
  if (typeof r.endedAt !== "string" || !ISO.test(r.endedAt)) return "endedAt: expected an ISO time";
  if (!isExitState(r.state as string)) return "state: expected exited, failed or killed";
  if (r.reason !== null && typeof r.reason !== "string") return "reason: expected a string or null";
  return null;
}
