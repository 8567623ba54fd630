import { type ArgsDef, defineCommand, hostPorts, listPortLeases, type RunContext } from "@ariel/core/host";
import { COMMON_ARGS, printRows } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
} as const satisfies ArgsDef;

/** `ariel-worktree ports`: the machine's port leases, every task of every workspace (docs/lifecycle.md). */
export const portsCommand = defineCommand({
  meta: {
    name: "ports",
    description: "list the ports leased to tasks on this machine (every workspace)",
    usage: "[--json]",
    examples: [
      ["ariel-worktree ports", "port, name, task and workspace of every lease"],
      ["ariel-worktree ports --json | jq -r 'select(.task == \"t1\") | .port'", "the ports of task t1"],
    ],
  },
  args,
  async run(ctx: RunContext<typeof args>) {
    const leases = await listPortLeases(hostPorts({ env: ctx.env, cwd: ctx.cwd }));
    if (ctx.args.json) {
      for (const l of leases) ctx.out.record({ v: 1, type: "port", ...l });
    } else {
      printRows(
        ctx,
        ["PORT", "NAME", "TASK", "WORKSPACE"],
        leases.map((l) => [String(l.port), l.name, l.task, l.workspace.root]),
        ["right", "left", "left", "left"],
      );
      if (leases.length === 0 && ctx.term.stdout) ctx.log.info("no ports are leased on this machine");
    }
    return 0;
  },
});
