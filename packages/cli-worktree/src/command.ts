import type { CommandSpec } from "@ariel/core/host";
import { addCommand } from "./commands/add.ts";
import { listCommand } from "./commands/list.ts";
import { reconcileCommand } from "./commands/reconcile.ts";
import { removeCommand } from "./commands/remove.ts";
import { restoreCommand } from "./commands/restore.ts";
import { verifyCommand } from "./commands/verify.ts";

/** ariel-worktree: task worktrees that never lose work (DESIGN.md §5, docs/worktree.md). */
export const command: CommandSpec = {
  name: "ariel-worktree",
  description: "isolated, locked git worktrees per task; removal never loses work",
  flags: {},
  subCommands: {
    add: addCommand,
    list: listCommand,
    verify: verifyCommand,
    remove: removeCommand,
    restore: restoreCommand,
    reconcile: reconcileCommand,
  },
};
