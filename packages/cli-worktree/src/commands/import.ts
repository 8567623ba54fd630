import { type ArgsDef, defineCommand, importTask, type RunContext } from "@ariel/core/host";
import { COMMON_ARGS, dryRunExit, MUTATING_ARGS, printRows, workspaceOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...MUTATING_ARGS,
  file: { type: "positional", valueHint: "FILE", description: "a file written by ariel-worktree export" },
} as const satisfies ArgsDef;

/** `ariel-worktree import`: recreate an exported task in this workspace. */
export const importCommand = defineCommand({
  meta: {
    name: "import",
    description:
      "recreate an exported task here: fetch its refs into the matching sources, write its record, restore its worktrees",
    usage: "FILE [-C ROOT] [OPTIONS]",
    examples: [
      ["ariel-worktree -C ~/ws import t1.ariel", "recreate task t1 in ~/ws"],
      ["ariel-worktree import -n --json t1.ariel", "print the record it would write, change nothing"],
    ],
  },
  args,
  async run(ctx: RunContext<typeof args>) {
    const { ports, root } = await workspaceOf(ctx);
    const file = ctx.args.file.startsWith("/") ? ctx.args.file : `${ctx.cwd}/${ctx.args.file}`;
    const dryRun = ctx.args["dry-run"] === true;
    const { record } = await importTask(ports, { root, file, dryRun });
    if (ctx.args.json)
      ctx.out.record(dryRun ? { v: 1, type: "plan", action: "worktree.import", record } : { ...record });
    else {
      printRows(
        ctx,
        ["TASK", "SOURCE", "BRANCH", "PATH"],
        record.legs.map((l) => [record.taskId, l.source, l.branch, l.worktreePath]),
      );
    }
    return dryRun ? dryRunExit(ctx, 1) : 0;
  },
});
