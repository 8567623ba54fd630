import { resolveWorkspaceRoot, VERSION } from "@ariel/core";
import {
  type ArgsDef,
  defineCommand,
  hostPorts,
  noteInTask,
  type RunContext,
  WORKSPACE_ROOT_ARG,
} from "@ariel/core/host";

const args = {
  ...WORKSPACE_ROOT_ARG,
  "allow-land": {
    type: "boolean",
    description: "also offer land_task (landing changes the target branches)",
  },
} as const satisfies ArgsDef;

/**
 * ariel-mcp: an MCP server over stdio whose tools are ariel's operations, with the same rules
 * (docs/mcp.md). stdout is the protocol; messages go to stderr.
 */
export const command = defineCommand({
  meta: {
    name: "ariel-mcp",
    description: "serve ariel's worktree and run operations as MCP tools over stdio, bound to one workspace",
    usage: "[-C ROOT] [--allow-land]",
    examples: [
      ["claude mcp add ariel -- ariel-mcp -C ~/ws", "make ariel's tools available to Claude Code"],
      ["ariel-mcp -C . --allow-land", "serve this workspace, landing allowed"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const ports = hostPorts({ env: ctx.env, cwd: ctx.cwd });
  const ws = await resolveWorkspaceRoot(ports, ctx.args["workspace-root"]);
  noteInTask(ctx.log, ws);
  const { serve } = await import("./server.ts");
  ctx.log.info(`serving ${JSON.stringify(ws.root)} over stdio (MCP)`);
  await serve({ root: ws.root, version: VERSION, allowLand: ctx.args["allow-land"] === true, env: ctx.env });
  return 0;
}
