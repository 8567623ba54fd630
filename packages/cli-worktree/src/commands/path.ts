import { type ArgsDef, defineCommand, type RunContext, taskPath } from "@ariel/core/host";
import { COMMON_ARGS, workspaceOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  task: { type: "positional", valueHint: "TASK", description: "the task id" },
  source: {
    type: "positional",
    required: false,
    valueHint: "SOURCE",
    description: "the leg's source (default: the only leg, or the task directory)",
  },
} as const satisfies ArgsDef;

/** `ariel-worktree path`: where a task's leg lives, for `cd "$(ariel-worktree path t1 api)"`. */
export const pathCommand = defineCommand({
  meta: {
    name: "path",
    description: "print the path of a task's leg (exit 1 when there is none)",
    usage: "TASK [SOURCE] [OPTIONS]",
    examples: [
      ["ariel-worktree path t1 api", 'the api leg of task t1: cd "$(ariel-worktree path t1 api)"'],
      ["ariel-worktree path t1", "the only leg of t1, or its task directory when it has several"],
      ["ariel-worktree path t1 web || echo gone", "exit 1 when t1 has no web leg on disk"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { ports, root } = await workspaceOf(ctx);
  const source = ctx.args.source;
  const path = await taskPath(ports, {
    root,
    taskId: ctx.args.task,
    ...(source !== undefined ? { source } : {}),
  });
  if (ctx.args.json)
    ctx.out.record({ v: 1, type: "path", task: ctx.args.task, source: source ?? null, path });
  else ctx.out.write(`${path}\n`);
  return 0;
}
