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
  type FlagSpec,
  hostPorts,
  localBackend,
  type RunContext,
  renderRows,
  runRecordOut,
  type TextSink,
} from "@ariel/core/host";

/** Flags every ariel-runs command takes. */
export const COMMON_FLAGS: Record<string, FlagSpec> = {
  "workspace-root": {
    type: "string",
    short: "C",
    aliases: ["repo-root"],
    valueHint: "DIR",
    description: "the workspace root (default: $ARIEL_WORKSPACE_ROOT, .ariel/ or git top above the cwd)",
  },
  json: { type: "boolean", description: "NDJSON records on stdout (errors as NDJSON on stderr)" },
};

export const DRY_RUN_FLAG: Record<string, FlagSpec> = {
  "dry-run": { type: "boolean", short: "n", description: "print what would be done and change nothing" },
};

export const GRACE_FLAG: Record<string, FlagSpec> = {
  grace: {
    type: "string",
    valueHint: "DURATION",
    description: "time between SIGTERM and SIGKILL to the process group (default 10s)",
  },
};

/** The workspace, its ports and its run backend. */
export async function backendOf(
  ctx: RunContext,
): Promise<{ ports: Ports; ws: Workspace; backend: RunBackend }> {
  const ports = hostPorts({ env: ctx.env, cwd: ctx.cwd });
  const flag = ctx.flags["workspace-root"];
  const ws = await resolveWorkspaceRoot(ports, typeof flag === "string" ? flag : undefined);
  return { ports, ws, backend: localBackend(ws.root, ws.hash) };
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

/** The positional RUN arguments (at least one, at most `max`). */
export function runArgs(ctx: RunContext, max = 1): string[] {
  if (ctx.positionals.length === 0) throw new ArielError("ERR_USAGE", `${ctx.commandPath} needs RUN`);
  if (ctx.positionals.length > max) {
    throw new ArielError("ERR_USAGE", `unexpected argument '${ctx.positionals[max]}'`);
  }
  return ctx.positionals;
}

export function str(ctx: RunContext, name: string): string | undefined {
  const v = ctx.flags[name];
  return typeof v === "string" ? v : undefined;
}

/** --grace as milliseconds (default 10 s). */
export function graceOf(ctx: RunContext): number {
  const g = str(ctx, "grace");
  return g === undefined ? 10_000 : parseDuration(g, "--grace");
}

/** A non-negative integer flag, or null when absent. */
export function intOf(ctx: RunContext, name: string): number | null {
  const v = str(ctx, name);
  if (v === undefined) return null;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new ArielError("ERR_USAGE", `--${name} needs an integer ≥ 0, got ${JSON.stringify(v)}`);
  }
  return Number(v);
}

/** One run per line: a `run` record with --json, else a row. */
export function printRuns(ctx: RunContext, views: readonly RunView[]): void {
  if (ctx.flags.json) {
    for (const v of views) ctx.out.record(runRecordOut(v));
    return;
  }
  if (views.length === 0) return;
  ctx.out.write(
    renderRows(
      ["RUN", "NAME", "STATE", "SOURCE", "PID", "EXIT", "COMMAND"],
      views.map((v) => [
        v.record.runId,
        v.record.name ?? "-",
        v.state,
        v.record.source ?? "-",
        String(v.record.child?.pid ?? "-"),
        v.exit ? String(v.exit.status) : "-",
        v.record.argv.map(redactText).join(" "),
      ]),
      process.stdout.isTTY === true,
    ),
  );
}

/** Where each stream goes in human mode: one stream asked for is the data; both go each to its own channel, as the child wrote them. */
export function sinksOf(ctx: RunContext, streams: readonly OutputStream[]): Record<OutputStream, TextSink> {
  return streams.length === 1
    ? { stdout: ctx.out, stderr: ctx.out }
    : { stdout: ctx.out, stderr: process.stderr };
}
