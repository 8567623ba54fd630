import {
  ArielError,
  DEFAULT_KILL_GRACE_MS,
  type OutputStream,
  type Ports,
  parseDuration,
  type RunBackend,
  type RunProblem,
  type RunView,
  resolveWorkspaceRoot,
  type Workspace,
} from "@ariel/core";
import {
  type ArgsDef,
  corruptRunHint,
  DRY_RUN_ARGS,
  hostPorts,
  JSON_ARG,
  noteInTask,
  type RunAttentionNow,
  type RunContext,
  resolveRunId,
  runsBackend,
  type TextSink,
  WORKSPACE_ROOT_ARG,
  warnWithHint,
  writeRuns,
} from "@ariel/core/host";

/** Flags every ariel-runs command takes; also accepted before the command's name. */
export const COMMON_ARGS = {
  ...WORKSPACE_ROOT_ARG,
  ...JSON_ARG,
} as const satisfies ArgsDef;

/** -n and --detailed-exitcode: the shared block (the shell refuses --detailed-exitcode without -n). */
export { DRY_RUN_ARGS as DRY_RUN_ARG, dryRunExit } from "@ariel/core/host";

export const GRACE_ARG = {
  grace: {
    type: "string",
    valueHint: "DURATION",
    description: `time between SIGTERM and SIGKILL to the process group (default ${DEFAULT_KILL_GRACE_MS / 1000}s)`,
  },
} as const satisfies ArgsDef;

/** The one RUN a command acts on: a run id, a unique prefix of one, or a name. */
export const RUN_ARG = {
  run: { type: "positional", valueHint: "RUN", description: "a run id, a unique prefix of one, or a name" },
} as const satisfies ArgsDef;

/** --stream of logs and attach. */
export const STREAM_ARG = {
  stream: { type: "string", valueHint: "S", description: "only stdout or stderr (default both)" },
} as const satisfies ArgsDef;

/** The flags of the commands that read one run's output (logs, attach). */
export const RUN_OUTPUT_ARGS = {
  ...COMMON_ARGS,
  ...RUN_ARG,
  from: {
    type: "string",
    valueHint: "SEQ",
    description: "start at this byte offset (an output record's seq) instead of the start",
  },
  ...STREAM_ARG,
} as const satisfies ArgsDef;

/** The flags of the commands that stop or replace one run (kill, respawn, rm). */
export const RUN_CONTROL_ARGS = {
  ...COMMON_ARGS,
  ...RUN_ARG,
  ...DRY_RUN_ARGS,
  ...GRACE_ARG,
} as const satisfies ArgsDef;

type CommonContext = RunContext<typeof COMMON_ARGS>;

/** The workspace, its ports and its run backend. */
export async function backendOf(
  ctx: CommonContext,
): Promise<{ ports: Ports; ws: Workspace; backend: RunBackend }> {
  const ports = hostPorts({ env: ctx.env, cwd: ctx.cwd });
  const ws = await resolveWorkspaceRoot(ports, ctx.args["workspace-root"]);
  noteInTask(ctx.log, ws);
  return { ports, ws, backend: runsBackend(ws.root, ws.hash) };
}

/** The run a command acts on: the workspace, its ports and backend, and RUN as a run id. */
export async function oneRun(
  ctx: RunContext<typeof COMMON_ARGS & typeof RUN_ARG>,
): Promise<{ ports: Ports; ws: Workspace; backend: RunBackend; runId: string }> {
  const b = await backendOf(ctx);
  return { ...b, runId: runIdOf(b.ws.root, ctx.args.run) };
}

/**
 * What kill, respawn and rm start with: their usage checked first (--grace a duration; the shell
 * checked -n and --detailed-exitcode), then {@link oneRun}.
 */
export async function controlledRun(
  ctx: RunContext<typeof RUN_CONTROL_ARGS>,
): Promise<Awaited<ReturnType<typeof oneRun>> & { graceMs: number; dryRun: boolean }> {
  const graceMs = graceOf(ctx.args.grace);
  return { ...(await oneRun(ctx)), graceMs, dryRun: ctx.args["dry-run"] === true };
}

/**
 * The run `rm --force` names by its exact id when that run's record cannot be read (null when
 * RUN names no such run): the usage checked first, as {@link controlledRun} does.
 */
export async function corruptRunOf(
  ctx: RunContext<typeof RUN_CONTROL_ARGS>,
): Promise<{ ws: Workspace; backend: RunBackend; runId: string; dryRun: boolean } | null> {
  graceOf(ctx.args.grace);
  const { ws, backend } = await backendOf(ctx);
  const { problems } = await backend.list();
  if (!problems.some((p) => p.runId === ctx.args.run)) return null;
  return { ws, backend, runId: ctx.args.run, dryRun: ctx.args["dry-run"] === true };
}

/**
 * One warning per run whose record cannot be read (`list` and `prune` go on with the others and
 * exit 1): its id, why, and how to keep or remove it.
 */
export function warnUnreadable(ctx: RunContext<typeof COMMON_ARGS>, problems: readonly RunProblem[]): void {
  for (const p of problems) {
    ctx.log.warn("WARN_RUN_UNREADABLE", `run ${p.runId} skipped: ${p.message}`, {
      runId: p.runId,
      code: p.code,
      ...(p.code === "ERR_RECORD_CORRUPT" ? { hint: corruptRunHint(p.runId) } : {}),
    });
  }
}

/**
 * A RUN argument (id, unique prefix or name) as a run id, from the run records alone (no run's
 * state is derived: a k8s run costs no API request); a corrupt run named exactly is refused.
 */
export function runIdOf(root: string, ref: string): string {
  return resolveRunId(root, ref);
}

/** A run named exactly (by id) whose record cannot be read is refused: ERR_RECORD_CORRUPT (65). */
export function refuseCorrupt(problems: readonly RunProblem[], refs: readonly string[]): void {
  const bad = problems.find((p) => refs.includes(p.runId));
  if (bad) {
    throw new ArielError("ERR_RECORD_CORRUPT", bad.message, {
      hint: corruptRunHint(bad.runId),
      context: { runId: bad.runId },
    });
  }
}

/** --grace as milliseconds (default {@link DEFAULT_KILL_GRACE_MS}). */
export function graceOf(grace: string | undefined): number {
  return grace === undefined ? DEFAULT_KILL_GRACE_MS : parseDuration(grace, "--grace");
}

/** A non-negative integer flag, or null when absent. */
export function intOf(name: string, v: string | undefined): number | null {
  if (v === undefined) return null;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new ArielError("ERR_USAGE", `--${name} needs an integer >= 0, got ${JSON.stringify(v)}`);
  }
  return Number(v);
}

/** The streams a --stream flag selects. */
export function streamsOf(stream: string | undefined): OutputStream[] {
  if (stream === undefined) return ["stdout", "stderr"];
  if (stream !== "stdout" && stream !== "stderr") {
    throw new ArielError("ERR_USAGE", `--stream needs stdout or stderr, got ${JSON.stringify(stream)}`);
  }
  return [stream];
}

/**
 * Where each stream goes in human mode: one stream asked for is the data; both go each to its
 * own channel, as the child wrote them.
 */
export function sinksOf(
  ctx: Pick<RunContext, "out" | "stderr">,
  streams: readonly OutputStream[],
): Record<OutputStream, TextSink> {
  return streams.length === 1
    ? { stdout: ctx.out, stderr: ctx.out }
    : { stdout: ctx.out, stderr: ctx.stderr };
}

/**
 * `logs`/`attach` met sequences the output cap dropped: a warning (a record with --json) naming
 * the gap; the reader goes on at the oldest byte kept.
 */
export function warnDropped(
  ctx: Pick<RunContext, "log">,
): (stream: OutputStream, from: number, to: number) => Promise<void> {
  return async (stream, from, to) => {
    warnWithHint(ctx.log, {
      code: "WARN_OUTPUT_DROPPED",
      message: `${stream} sequences ${from} to ${to - 1} were dropped by the output cap; continuing at ${to}`,
      hint: "the monitor keeps the last ARIEL_RUN_OUTPUT_CAP bytes (64 MiB unless set) of each stream; read sooner or raise the cap",
      context: { stream, from, to },
    });
    // Out before the data after the gap (a person's warning waits for its printer to load).
    await ctx.log.flush();
  };
}

/** One run per line: a `run` record with --json, else a row (as ariel-spawn --detach prints them). */
export function printRuns(
  ctx: CommonContext,
  views: readonly RunView[],
  attention?: (v: RunView) => RunAttentionNow | null,
): void {
  writeRuns(ctx.out, views, {
    json: ctx.args.json === true,
    tty: ctx.term.stdout,
    ...(attention ? { attention } : {}),
  });
}
