import { defineCommand } from "@ariel/core/host";
import { COMMON_ARGS } from "./commands/_common.ts";

/**
 * ariel-runs: background runs started by `ariel-spawn --detach` (docs/runs.md). Each sub-command
 * is loaded when it is run.
 */
export const command = defineCommand({
  meta: {
    name: "ariel-runs",
    description: "list, follow, attach to, wait for, kill, respawn and remove background runs",
    examples: [
      ["ariel-runs list --all", "every run of the workspace with its state"],
      ["ariel-runs logs -f fix-login", "follow the run named fix-login until it ends"],
      ["ariel-runs wait fix-login; echo $?", "wait for it; its exit status"],
      ["ariel-runs help kill", "show the help of kill"],
    ],
  },
  args: COMMON_ARGS,
  subCommands: {
    list: () => import("./commands/list.ts").then((m) => m.listCommand),
    logs: () => import("./commands/logs.ts").then((m) => m.logsCommand),
    attach: () => import("./commands/attach.ts").then((m) => m.attachCommand),
    screen: () => import("./commands/screen.ts").then((m) => m.screenCommand),
    send: () => import("./commands/send.ts").then((m) => m.sendCommand),
    wait: () => import("./commands/wait.ts").then((m) => m.waitCommand),
    kill: () => import("./commands/kill.ts").then((m) => m.killCommand),
    respawn: () => import("./commands/respawn.ts").then((m) => m.respawnCommand),
    rm: () => import("./commands/rm.ts").then((m) => m.rmCommand),
    prune: () => import("./commands/prune.ts").then((m) => m.pruneCommand),
    show: () => import("./commands/show.ts").then((m) => m.showCommand),
    report: () => import("./commands/report.ts").then((m) => m.reportCommand),
  },
});
