import { formatBytes, plural, type Usage } from "@ariel/core";
import { type ArgsDef, defineCommand, diskUsage, type RunContext } from "@ariel/core/host";
import { COMMON_ARGS, printRows, workspaceOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  task: { type: "string", valueHint: "ID", description: "only this task" },
} as const satisfies ArgsDef;

/** `ariel-worktree du`: what the task worktrees cost on disk, and what is left. */
export const duCommand = defineCommand({
  meta: {
    name: "du",
    description:
      "disk usage per leg and task (allocated bytes: checkout, untracked, ignored, git admin; hardlinked: shared, not the leg's own) and free space",
    usage: "[--task ID] [OPTIONS]",
    examples: [
      ["ariel-worktree du", "every task's legs, the workspace total and the free space"],
      ["ariel-worktree du --task t1", "task t1 only"],
      ["ariel-worktree du --json | jq 'select(.type == \"du.task\") | .total'", "each task's total bytes"],
    ],
  },
  args,
  run,
});

/** The byte columns; `hardlinked` (files shared with another tree) is the part of `total` not the leg's own. */
const PARTS = ["checkout", "untracked", "ignored", "admin", "total", "hardlinked"] as const;

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { ports, root } = await workspaceOf(ctx);
  const taskId = ctx.args.task;
  const r = await diskUsage(ports, { root, ...(taskId !== undefined ? { taskId } : {}) });
  for (const w of r.warnings) ctx.log.warn(w.code, `${w.path}: not measured (${w.reason})`, { path: w.path });
  if (ctx.args.json) {
    for (const l of r.legs) {
      ctx.out.record({
        v: 1,
        type: "du.leg",
        task: l.task,
        source: l.source,
        path: l.path,
        present: l.present,
        ...l.usage,
      });
    }
    for (const t of r.tasks) ctx.out.record({ v: 1, type: "du.task", task: t.task, ...t.usage });
    for (const s of r.stores) {
      ctx.out.record({
        v: 1,
        type: "du.share",
        store: s.key,
        source: s.source,
        dir: s.dir,
        path: s.path,
        users: s.users,
        ...s.usage,
      });
    }
    ctx.out.record({
      v: 1,
      type: "du.workspace",
      root,
      tasks: r.tasks.length,
      ...r.total,
      free: r.free.free,
      fsSize: r.free.size,
      fsPath: r.free.path,
    });
    return r.warnings.length > 0 ? 1 : 0;
  }
  const tty = ctx.term.stdout;
  const cell = (n: number) => (tty ? formatBytes(n) : String(n));
  const cells = (u: Usage) => PARTS.map((p) => cell(u[p]));
  const rows: string[][] = [];
  for (const t of r.tasks) {
    const legs = r.legs.filter((l) => l.task === t.task);
    for (const l of legs) rows.push([l.task, l.source, ...cells(l.usage), l.present ? l.path : "(absent)"]);
    if (legs.length > 1) rows.push([t.task, "(task)", ...cells(t.usage), ""]);
  }
  for (const s of r.stores) rows.push(["(share)", `${s.source} ${s.dir}`, ...cells(s.usage), s.path]);
  rows.push(["(all)", plural(r.tasks.length, "task"), ...cells(r.total), ""]);
  printRows(
    ctx,
    ["TASK", "SOURCE", "CHECKOUT", "UNTRACKED", "IGNORED", "ADMIN", "TOTAL", "HARDLINKED", "PATH"],
    rows,
    ["left", "left", ...PARTS.map(() => "right" as const), "left"],
  );
  ctx.log.info(`${cell(r.free.free)} free of ${cell(r.free.size)} on ${r.free.path}`);
  return r.warnings.length > 0 ? 1 : 0;
}
