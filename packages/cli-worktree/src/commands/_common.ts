import type { Ports, WorkspaceVia } from "@ariel/core";
import { ArielError, ERROR_CODES, type ErrorCode, resolveWorkspaceRoot } from "@ariel/core";
import {
  type FlagSpec,
  hostPorts,
  isTerminal,
  noteShadowedCheckout,
  type OnProgress,
  ProgressLine,
  type RunContext,
  renderRows,
} from "@ariel/core/host";

/** Flags every ariel-worktree command takes. */
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

/** Flags of the commands that change something. */
export const MUTATING_FLAGS: Record<string, FlagSpec> = {
  "dry-run": { type: "boolean", short: "n", description: "print the plan records and change nothing" },
  "detailed-exitcode": {
    type: "boolean",
    description: "with --dry-run: exit 2 when the plan has changes, 0 when there is nothing to do",
  },
};

export const TASK_FLAG: FlagSpec = { type: "string", valueHint: "ID", description: "the task id" };

/** Host ports for this run, the canonical workspace root and how it was found. */
export async function workspaceOf(
  ctx: RunContext,
): Promise<{ ports: Ports; root: string; via: WorkspaceVia }> {
  const ports = hostPorts({ env: ctx.env, cwd: ctx.cwd });
  const flag = ctx.flags["workspace-root"];
  const ws = await resolveWorkspaceRoot(ports, typeof flag === "string" ? flag : undefined);
  noteShadowedCheckout(ctx.log, ws, isTerminal("stderr", ctx.env));
  return { ports, root: ws.root, via: ws.via };
}

/**
 * Run `fn` with a progress line on stderr (on a terminal, never with --json), erased at the end
 * whatever happens.
 */
export async function withProgress<T>(
  ctx: RunContext,
  fn: (onProgress: OnProgress) => Promise<T>,
): Promise<T> {
  const progress = new ProgressLine(ctx.log.sink, isTerminal("stderr", ctx.env) && ctx.flags.json !== true);
  try {
    return await fn(progress.report);
  } finally {
    progress.clear();
  }
}

/** Whether stdout is a terminal (a person reads the output). */
export function stdoutIsTerminal(ctx: RunContext): boolean {
  return isTerminal("stdout", ctx.env);
}

/** `{ root }` when a next command must name the root: it was given and is not the cwd. */
export function rootArg(ctx: RunContext, root: string, via: WorkspaceVia): { root?: string } {
  return (via === "flag" || via === "env") && root !== ctx.cwd ? { root } : {};
}

/** A string flag's value, or undefined. */
export function str(ctx: RunContext, name: string): string | undefined {
  const v = ctx.flags[name];
  return typeof v === "string" ? v : undefined;
}

/** A repeatable string flag's values. */
export function list(ctx: RunContext, name: string): string[] {
  const v = ctx.flags[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

/** The required --task value. */
export function taskOf(ctx: RunContext): string {
  const t = str(ctx, "task");
  if (t === undefined) throw new ArielError("ERR_USAGE", `${ctx.commandPath} needs --task ID`);
  return t;
}

/** No positionals are taken: a stray word is a usage error. */
export function noPositionals(ctx: RunContext): void {
  if (ctx.positionals.length > 0 || ctx.rest.length > 0) {
    throw new ArielError("ERR_USAGE", `unexpected argument '${[...ctx.positionals, ...ctx.rest][0]}'`);
  }
}

/** Human rows: a table on a TTY, tab-separated lines in a pipe. */
export function printRows(
  ctx: RunContext,
  header: readonly string[],
  rows: readonly (readonly string[])[],
): void {
  if (rows.length === 0) return;
  ctx.out.write(renderRows(header, rows, stdoutIsTerminal(ctx)));
}

/** Exit status of a finished dry run: 2 with --detailed-exitcode when the plan has changes. */
export function dryRunExit(ctx: RunContext, changes: number): number {
  return ctx.flags["detailed-exitcode"] === true && changes > 0 ? 2 : 0;
}

/** An ArielError for a refusal, whose hint says that nothing was changed. */
export function refusalError(code: string, message: string, context: Record<string, unknown>): ArielError {
  const c = (code in ERROR_CODES ? code : "ERR_REFUSED") as ErrorCode;
  return new ArielError(c, message, { hint: `${ERROR_CODES[c].hint}; nothing was changed`, context });
}
