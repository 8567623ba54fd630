import type { CommandSpec } from "@ariel/core/host";
import { attachCommand } from "./commands/attach.ts";
import { killCommand } from "./commands/kill.ts";
import { listCommand } from "./commands/list.ts";
import { logsCommand } from "./commands/logs.ts";
import { pruneCommand } from "./commands/prune.ts";
import { respawnCommand } from "./commands/respawn.ts";
import { rmCommand } from "./commands/rm.ts";
import { waitCommand } from "./commands/wait.ts";

/** ariel-runs: background runs started by `ariel-spawn --detach` (docs/runs.md). */
export const command: CommandSpec = {
  name: "ariel-runs",
  description: "list, follow, attach to, wait for, kill, respawn and remove background runs",
  flags: {},
  subCommands: {
    list: listCommand,
    logs: logsCommand,
    attach: attachCommand,
    wait: waitCommand,
    kill: killCommand,
    respawn: respawnCommand,
    rm: rmCommand,
    prune: pruneCommand,
  },
};
