import { formatBytes } from "@ariel/core";
import {
  type ArgsDef,
  blockingFs,
  defineCommand,
  listTasks,
  type RunContext,
  type WorktreeRow,
} from "@ariel/core/host";
import { COMMON_ARGS, printRows, workspaceOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  task: { type: "string", valueHint: "ID", description: "only this task (shown even when closed)" },
  all: {
    type: "boolean",
    alias: "a",
    description: "also tasks with nothing left (closed, every leg removed without a snapshot)",
  },
  "no-bytes": { type: "boolean", description: "skip the disk usage walk (BYTES shows -, bytes is null)" },
} as const satisfies ArgsDef;

/** `ariel-worktree list`: the workspace's task worktrees as git and the disk see them. */
export const listCommand = defineCommand({
  meta: {
    name: "list",
    description:
      "list task worktrees: status (active, dirty, missing, snapshotted, removed, orphaned), branch, path, bytes (--all: tasks with nothing left too)",
    usage: "[--all] [--task ID] [OPTIONS]",
    examples: [
      ["ariel-worktree list", "every task that still holds something: worktrees, snapshots"],
      ["ariel-worktree list --all", "tasks with nothing left too (every leg removed clean)"],
      ["ariel-worktree list --task t1 --no-bytes", "task t1 only, without measuring disk usage"],
      [
        "ariel-worktree list --json | jq -r 'select(.status == \"dirty\") | .path'",
        "the paths of dirty legs",
      ],
    ],
  },
  args,
  run,
});

/** The BYTES cell: human-readable on a terminal, the exact count in a pipe, `-` when not measured. */
function bytesCell(bytes: number | null, tty: boolean): string {
  if (bytes === null) return "-";
  return tty ? formatBytes(bytes) : String(bytes);
}

/**
 * On a terminal, the rows of a task together (a leftover directory in a task's folder, listed
 * after the tasks, joins its task's legs) and a `(task)` row with the total after the rows of a
 * task with more than one (in a pipe the rows stay as listed, one leg per line; the total is
 * `taskBytes` with --json).
 */
function withTaskTotals(
  rows: readonly WorktreeRow[],
  tty: boolean,
): (WorktreeRow | { task: string; total: number })[] {
  if (!tty) return [...rows];
  const groups = new Map<string, WorktreeRow[]>();
  for (const r of rows) groups.set(r.task, [...(groups.get(r.task) ?? []), r]);
  const out: (WorktreeRow | { task: string; total: number })[] = [];
  for (const [task, legs] of groups) {
    out.push(...legs);
    const total = legs.find((x) => x.taskBytes != null)?.taskBytes;
    if (legs.length > 1 && total != null) out.push({ task, total });
  }
  return out;
}

/** The PORTS cell: `web=20000,api=20001`, `-` for none. */
function portsCell(ports: Record<string, number> | undefined): string {
  if (!ports || Object.keys(ports).length === 0) return "-";
  return Object.entries(ports)
    .map(([n, p]) => `${n}=${p}`)
    .join(",");
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { ports, root } = await workspaceOf(ctx);
  const taskId = ctx.args.task;
  // Read-only and short-lived: synchronous reads skip a thread-pool hop per file, which is most
  // of the cost of looking at a thousand closed task records.
  const { rows, problems } = await listTasks(
    { ...ports, fs: blockingFs },
    {
      root,
      bytes: ctx.args["no-bytes"] !== true,
      all: ctx.args.all === true,
      ...(taskId !== undefined ? { taskId } : {}),
    },
  );
  for (const p of problems) ctx.log.warn(p.code, p.message, p.context);
  if (ctx.args.json) {
    for (const r of rows) ctx.out.record({ ...r });
  } else {
    // SETUP and PORTS only when some task has them: a workspace without hooks or ports reads as before.
    const setup = rows.some((r) => r.setup !== undefined);
    const portsCol = rows.some((r) => r.ports !== undefined);
    const extra = (r: WorktreeRow | null): string[] => [
      ...(setup ? [r?.setup ?? (r ? "-" : "")] : []),
      ...(portsCol ? [r ? portsCell(r.ports) : ""] : []),
    ];
    printRows(
      ctx,
      [
        "TASK",
        "SOURCE",
        "STATUS",
        "LOCK",
        "BRANCH",
        ...(setup ? ["SETUP"] : []),
        ...(portsCol ? ["PORTS"] : []),
        "BYTES",
        "PATH",
      ],
      withTaskTotals(rows, ctx.term.stdout).map((r) =>
        "total" in r
          ? [r.task, "(task)", "", "", "", ...extra(null), bytesCell(r.total, true), ""]
          : [
              r.task,
              r.source ?? "-",
              r.status,
              r.locked ? (r.lockReason ?? "") || "locked" : "-",
              r.branch ?? "-",
              ...extra(r),
              bytesCell(r.bytes, ctx.term.stdout),
              r.path,
            ],
      ),
      ["left", "left", "left", "left", "left", ...extra(null).map(() => "left" as const), "right", "left"],
    );
  }
  return problems.length > 0 ? 1 : 0;
}
