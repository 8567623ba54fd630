import type { CommandSpec, RunContext } from "@ariel/core/host";
import { listTasks } from "@ariel/core/host";
import { COMMON_FLAGS, noPositionals, printRows, str, workspaceOf } from "./_common.ts";

/** `ariel-worktree list`: the workspace's task worktrees as git and the disk see them. */
export const listCommand: CommandSpec = {
  name: "list",
  description: "list task worktrees: status (active, dirty, missing, removed, orphaned), branch, path, bytes",
  usage: "[--task ID] [OPTIONS]",
  flags: {
    ...COMMON_FLAGS,
    task: { type: "string", valueHint: "ID", description: "only this task" },
    "no-bytes": { type: "boolean", description: "skip the disk usage walk (bytes: 0)" },
  },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  noPositionals(ctx);
  const { ports, root } = await workspaceOf(ctx);
  const taskId = str(ctx, "task");
  const { rows, problems } = await listTasks(ports, {
    root,
    bytes: ctx.flags["no-bytes"] !== true,
    ...(taskId !== undefined ? { taskId } : {}),
  });
  for (const p of problems) ctx.log.warn(p.code, p.message, p.context);
  if (ctx.flags.json) {
    for (const r of rows) ctx.out.record({ ...r });
  } else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "STATUS", "LOCK", "BRANCH", "BYTES", "PATH"],
      rows.map((r) => [
        r.task,
        r.source ?? "-",
        r.status,
        r.locked ? (r.lockReason ?? "") || "locked" : "-",
        r.branch ?? "-",
        String(r.bytes),
        r.path,
      ]),
    );
  }
  return problems.length > 0 ? 1 : 0;
}
