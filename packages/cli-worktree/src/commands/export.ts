import { plural } from "@ariel/core";
import { type ArgsDef, defineCommand, exportTask, type RunContext } from "@ariel/core/host";
import { COMMON_ARGS, TASK_ARG, workspaceOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...TASK_ARG,
  output: { type: "string", alias: "o", required: true, valueHint: "FILE", description: "the file to write" },
} as const satisfies ArgsDef;

/** `ariel-worktree export`: a task's record and branches (and snapshot refs) in one file. */
export const exportCommand = defineCommand({
  meta: {
    name: "export",
    description: "write a task to one file: its record and a git bundle of its branches and snapshot refs",
    usage: "--task ID -o FILE [OPTIONS]",
    examples: [
      [
        "ariel-worktree remove --task t1 --snapshot && ariel-worktree export --task t1 -o t1.ariel",
        "hand t1 over with its local work",
      ],
      ["ariel-worktree -C ~/other import t1.ariel", "recreate it in another workspace"],
    ],
  },
  args,
  async run(ctx: RunContext<typeof args>) {
    const { ports, root } = await workspaceOf(ctx);
    const file = ctx.args.output.startsWith("/") ? ctx.args.output : `${ctx.cwd}/${ctx.args.output}`;
    const r = await exportTask(ports, { root, taskId: ctx.args.task, file });
    if (ctx.args.json)
      ctx.out.record({ v: 1, type: "export", task: r.record.taskId, file, bytes: r.bytes, refs: r.refs });
    else
      ctx.log.info(
        `wrote task ${r.record.taskId} to ${file} (${plural(r.bytes, "byte")}, ${plural(r.refs.length, "ref")})`,
      );
    return 0;
  },
});
