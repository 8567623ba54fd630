import {
  ArielError,
  type OutputStream,
  type Ports,
  parseDuration,
  type RunBackend,
  type RunView,
  redactText,
  resolveRun,
  resolveWorkspaceRoot,
  type Workspace,
} from "@ariel/core";
import {
  type ArgsDef,
  hostPorts,
  JSON_ARG,
  type RunContext,
  renderRows,
  runRecordOut,
  runsBackend,
  type TextSink,
  WORKSPACE_ROOT_ARG,
  warnWithHint,
} from "@ariel/core/host";

/** Flags every ariel-runs command takes; also accepted before the command's name. */
export const COMMON_ARGS = {
  ...WORKSPACE_ROOT_ARG,
  ...JSON_ARG,
} as const satisfies ArgsDef;

export const DRY_RUN_ARG = {
  "dry-run": { type: "boolean", alias: "n", description: "print what would be done and change nothing" },
  "detailed-exitcode": {
    type: "boolean",
    description: "with --dry-run: exit 2 when something would be done, 0 when nothing would",
  },
} as const satisfies ArgsDef;

/**
 * The exit status of a finished dry run: 2 with --detailed-exitcode when `changes` > 0; and
 * --detailed-exitcode without --dry-run is a usage error (checked before anything happens).
 */
export function dryRunExit(
  args: { "dry-run"?: boolean; "detailed-exitcode"?: boolean },
  changes: number,
): number {
  return args["detailed-exitcode"] === true && changes > 0 ? 2 : 0;
}

/** --detailed-exitcode only means something with --dry-run. */
export function checkDryRunArgs(args: { "dry-run"?: boolean; "detailed-exitcode"?: boolean }): void {
  if (args["detailed-exitcode"] && !args["dry-run"]) {
    throw new ArielError("ERR_USAGE", "--detailed-exitcode needs --dry-run");
  }
}

export const GRACE_ARG = {
  grace: {
    type: "string",
    valueHint: "DURATION",
    description: "time between SIGTERM and SIGKILL to the process group (default 10s)",
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
  ...DRY_RUN_ARG,
  ...GRACE_ARG,
} as const satisfies ArgsDef;

type CommonContext = RunContext<typeof COMMON_ARGS>;

/** The workspace, its ports and its run backend. */
export async function backendOf(
  ctx: CommonContext,
): Promise<{ ports: Ports; ws: Workspace; backend: RunBackend }> {
  const ports = hostPorts({ env: ctx.env, cwd: ctx.cwd });
  const ws = await resolveWorkspaceRoot(ports, ctx.args["workspace-root"]);
  return { ports, ws, backend: runsBackend(ws.root, ws.hash) };
}

/** The run a command acts on: the workspace, its ports and backend, and RUN as a run id. */
export async function oneRun(
  ctx: RunContext<typeof COMMON_ARGS & typeof RUN_ARG>,
): Promise<{ ports: Ports; ws: Workspace; backend: RunBackend; runId: string }> {
  const b = await backendOf(ctx);
  return { ...b, runId: await runIdOf(b.backend, ctx.args.run) };
}

/**
 * What kill, respawn and rm start with: their usage checked first (--detailed-exitcode needs
 * --dry-run, --grace a duration), then {@link oneRun}.
 */
export async function controlledRun(
  ctx: RunContext<typeof RUN_CONTROL_ARGS>,
): Promise<Awaited<ReturnType<typeof oneRun>> & { graceMs: number; dryRun: boolean }> {
  checkDryRunArgs(ctx.args);
  const graceMs = graceOf(ctx.args.grace);
  return { ...(await oneRun(ctx)), graceMs, dryRun: ctx.args["dry-run"] === true };
}

/** A RUN argument (id, unique prefix or name) as a run id; a corrupt run named exactly is refused. */
export async function runIdOf(backend: RunBackend, ref: string): Promise<string> {
  const { runs, problems } = await backend.list();
  const bad = problems.find((p) => p.runId === ref);
  if (bad) throw new ArielError("ERR_RECORD_CORRUPT", bad.message, { context: { runId: ref } });
  return resolveRun(
    runs.map((r) => r.record),
    ref,
  ).runId;
}

/** --grace as milliseconds (default 10 s). */
export function graceOf(grace: string | undefined): number {
  return grace === undefined ? 10_000 : parseDuration(grace, "--grace");
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
): (stream: OutputStream, from: number, to: number) => void {
  return (stream, from, to) =>
    warnWithHint(ctx.log, {
      code: "WARN_OUTPUT_DROPPED",
      message: `${stream} sequences ${from} to ${to - 1} were dropped by the output cap; continuing at ${to}`,
      hint: "the monitor keeps the last ARIEL_RUN_OUTPUT_CAP bytes (64 MiB unless set) of each stream; read sooner or raise the cap",
      context: { stream, from, to },
    });
}

/** One run per line: a `run` record with --json, else a row. */
export function printRuns(
  ctx: CommonContext,
  views: readonly RunView[],
  activity?: (v: RunView) => string | null,
): void {
  if (ctx.args.json) {
    for (const v of views) {
      const a = activity?.(v) ?? null;
      ctx.out.record(a === null ? runRecordOut(v) : { ...runRecordOut(v), activity: a });
    }
    return;
  }
  if (views.length === 0) return;
  // `list` (which passes `activity`) has an ACTIVITY column after STATE; kill, respawn, wait not.
  const head = activity ? ["RUN", "NAME", "STATE", "ACTIVITY"] : ["RUN", "NAME", "STATE"];
  ctx.out.write(
    renderRows(
      [...head, "SOURCE", "PID", "EXIT", "COMMAND"],
      views.map((v) => [
        v.record.runId,
        v.record.name ?? "-",
        v.state,
        ...(activity ? [activity(v) ?? "-"] : []),
        v.record.source ?? "-",
        String(v.record.child?.pid ?? "-"),
        v.exit ? String(v.exit.status) : "-",
        v.record.argv.map(redactText).join(" "),
      ]),
      ctx.term.stdout,
    ),
  );
}
