import { defineCommand } from "@ariel/core/host";
import { COMMON_ARGS } from "./commands/_common.ts";

/**
 * ariel-worktree: task worktrees that never lose work (docs/worktree.md). Each sub-command is
 * loaded when it is run, so `list` does not pay for `reconcile`.
 */
export const command = defineCommand({
  meta: {
    name: "ariel-worktree",
    description: "isolated, locked git worktrees per task; removal never loses work",
    examples: [
      [
        "ariel-worktree add --source api --source web --task t1",
        "make task t1: a worktree of api and of web",
      ],
      ["ariel-worktree -C ~/ws list", "list the task worktrees of the workspace ~/ws"],
      ["ariel-worktree remove --task t1 --snapshot", "save t1's local work as commits, then remove it"],
      ["ariel-worktree help remove", "show the help of remove"],
    ],
  },
  args: COMMON_ARGS,
  subCommands: {
    add: () => import("./commands/add.ts").then((m) => m.addCommand),
    du: () => import("./commands/du.ts").then((m) => m.duCommand),
    gc: () => import("./commands/gc.ts").then((m) => m.gcCommand),
    export: () => import("./commands/export.ts").then((m) => m.exportCommand),
    import: () => import("./commands/import.ts").then((m) => m.importCommand),
    hooks: () => import("./commands/hooks.ts").then((m) => m.hooksCommand),
    list: () => import("./commands/list.ts").then((m) => m.listCommand),
    ports: () => import("./commands/ports.ts").then((m) => m.portsCommand),
    verify: () => import("./commands/verify.ts").then((m) => m.verifyCommand),
    remove: () => import("./commands/remove.ts").then((m) => m.removeCommand),
    restore: () => import("./commands/restore.ts").then((m) => m.restoreCommand),
    reconcile: () => import("./commands/reconcile.ts").then((m) => m.reconcileCommand),
    trust: () => import("./commands/trust.ts").then((m) => m.trustCommand),
    adopt: () => import("./commands/adopt.ts").then((m) => m.adoptCommand),
    hook: () => import("./commands/hook.ts").then((m) => m.hookCommand),
    path: () => import("./commands/path.ts").then((m) => m.pathCommand),
    "shell-init": () => import("./commands/shell_init.ts").then((m) => m.shellInitCommand),
    diff: () => import("./commands/diff.ts").then((m) => m.diffCommand),
    land: () => import("./commands/land.ts").then((m) => m.landCommand),
  },
});
