import { taskOutput } from "@ariel/core";
import { type ArgsDef, adoptWorktree, defineCommand, type RunContext } from "@ariel/core/host";
import { COMMON_ARGS, dryRunExit, MUTATING_ARGS, printRows, workspaceOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...MUTATING_ARGS,
  path: { type: "positional", valueHint: "PATH", description: "the worktree's directory" },
  task: {
    type: "string",
    valueHint: "ID",
    description: "take it into this task (new, or one without a leg of that source); default: a new id",
  },
} as const satisfies ArgsDef;

/** `ariel-worktree adopt`: a worktree made by git or another tool becomes a task's leg. */
export const adoptCommand = defineCommand({
  meta: {
    name: "adopt",
    description:
      "take a worktree made elsewhere (git, Claude Code, …) into a task: recorded, locked, fingerprinted",
    usage: "PATH [--task ID] [OPTIONS]",
    examples: [
      [
        "ariel-worktree adopt api/.claude/worktrees/fix-login --task fix-login",
        "make Claude Code's worktree task fix-login",
      ],
      ["ariel-worktree adopt api/.worktrees/spike", "adopt a worktree git made, into a new task"],
      ["ariel-worktree adopt -n web/.worktrees/x --json", "check that it can be adopted; change nothing"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { ports, root, via } = await workspaceOf(ctx);
  const path = ctx.args.path.startsWith("/") ? ctx.args.path : `${ctx.cwd}/${ctx.args.path}`;
  const dryRun = ctx.args["dry-run"] === true;
  const task = ctx.args.task;
  const r = await adoptWorktree(ports, {
    root,
    path,
    dryRun,
    via,
    ...(task !== undefined ? { taskId: task } : {}),
  });
  if (dryRun) {
    if (ctx.args.json) {
      ctx.out.record({
        v: 1,
        type: "plan",
        action: "worktree.adopt",
        task: r.record.taskId,
        source: r.leg.source,
        branch: r.leg.branch,
        path: r.leg.worktreePath,
      });
    } else
      printRows(
        ctx,
        ["ACTION", "TASK", "SOURCE", "BRANCH", "PATH"],
        [["adopt", r.record.taskId, r.leg.source, r.leg.branch, r.leg.worktreePath]],
      );
    return dryRunExit(ctx, 1);
  }
  if (ctx.args.json) ctx.out.record(taskOutput(r.record));
  else
    printRows(
      ctx,
      ["TASK", "SOURCE", "BRANCH", "PATH"],
      [[r.record.taskId, r.leg.source, r.leg.branch, r.leg.worktreePath]],
    );
  ctx.log.info(`adopted ${r.leg.worktreePath} into task ${r.record.taskId}`);
  return 0;
}
