import type { Ports, WorkspaceVia } from "@ariel/core";
import { resolveWorkspaceRoot, rootForNextCommand } from "@ariel/core";
import {
  type Align,
  type ArgsDef,
  DRY_RUN_ARGS,
  dryRunExit as dryRunStatus,
  hostPorts,
  JSON_ARG,
  type LifecyclePlan,
  noteWorkspace,
  type OnProgress,
  ProgressLine,
  printLifecyclePlan as printHostLifecyclePlan,
  type RunContext,
  renderRows,
  WORKSPACE_ROOT_ARG,
} from "@ariel/core/host";

/** Flags every ariel-worktree command takes; also accepted before the command's name. */
export const COMMON_ARGS = {
  ...WORKSPACE_ROOT_ARG,
  ...JSON_ARG,
} as const satisfies ArgsDef;

/** Flags of the commands that change something: the shared -n / --detailed-exitcode block. */
export const MUTATING_ARGS = DRY_RUN_ARGS;

/** --no-hooks of the commands that fire lifecycle hooks (docs/lifecycle.md). */
export const NO_HOOKS_ARG = {
  "no-hooks": { type: "boolean", description: "run no lifecycle hook (docs/lifecycle.md)" },
} as const satisfies ArgsDef;

/** The required --task of the commands that act on one task. */
export const TASK_ARG = {
  task: { type: "string", required: true, valueHint: "ID", description: "the task id" },
} as const satisfies ArgsDef;

/** --source of the commands that can act on some legs only. */
export const LEG_SOURCE_ARG = {
  source: { type: "string", multiple: true, valueHint: "NAME", description: "only this leg (repeatable)" },
} as const satisfies ArgsDef;

type CommonContext = RunContext<typeof COMMON_ARGS>;

/** Host ports for this run, the canonical workspace root and how it was found. */
export async function workspaceOf(
  ctx: CommonContext,
): Promise<{ ports: Ports; root: string; via: WorkspaceVia }> {
  const ports = hostPorts({ env: ctx.env, cwd: ctx.cwd });
  const ws = await resolveWorkspaceRoot(ports, ctx.args["workspace-root"]);
  noteWorkspace(ctx.log, ws, ctx.term.stderr);
  return { ports, root: ws.root, via: ws.via };
}

/**
 * Run `fn` with a progress line on stderr (on a terminal, never with --json), erased at the end
 * whatever happens. Messages queued before it are written first.
 */
export async function withProgress<T>(
  ctx: CommonContext,
  fn: (onProgress: OnProgress) => Promise<T>,
): Promise<T> {
  await ctx.log.flush();
  const progress = new ProgressLine(ctx.stderr, ctx.term.stderr && ctx.args.json !== true);
  try {
    return await fn(progress.report);
  } finally {
    progress.clear();
  }
}

/** `{ root }` when a next command must name the root: it was given and is not the cwd. */
export function rootArg(ctx: Pick<RunContext, "cwd">, root: string, via: WorkspaceVia): { root?: string } {
  const named = rootForNextCommand({ root, via }, ctx.cwd);
  return named !== undefined ? { root: named } : {};
}

/** Human rows: a table on a TTY, tab-separated lines in a pipe. */
export function printRows(
  ctx: Pick<RunContext, "out" | "term">,
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): void {
  if (rows.length === 0) return;
  ctx.out.write(renderRows(header, rows, ctx.term.stdout, align));
}

/** The lifecycle half of a plan (ports, hooks) after the command's own rows; see the host's. */
export function printLifecyclePlan(
  ctx: Pick<RunContext<typeof COMMON_ARGS>, "out" | "term" | "log" | "args">,
  task: string,
  plan: LifecyclePlan | undefined,
): void {
  printHostLifecyclePlan({ out: ctx.out, log: ctx.log, tty: ctx.term.stdout }, ctx.args.json === true, [
    { task, plan },
  ]);
}

/** Exit status of a finished dry run: 2 with --detailed-exitcode when the plan has changes. */
export function dryRunExit(ctx: RunContext<typeof MUTATING_ARGS>, changes: number): number {
  return dryRunStatus(ctx.args, changes);
}

/** An ArielError for a refused leg (one home: core, which the terminal UI uses too). */
export { refusalError } from "@ariel/core";
