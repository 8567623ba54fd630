import type { CommandSpec } from "@ariel/core/host";
import { addCommand } from "./commands/add.ts";
import { removeCommand } from "./commands/remove.ts";

/** ariel-worktree: task worktrees that never lose work (DESIGN.md §5). */
export const command: CommandSpec = {
  name: "ariel-worktree",
  description: "isolated, locked git worktrees per task; removal never loses work",
  flags: {},
  subCommands: {
    add: addCommand,
    remove: removeCommand,
  },
};
