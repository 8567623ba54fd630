import { ArielError, parseDetachKey, resolveWorkspaceRoot } from "@ariel/core";
import {
  type ArgsDef,
  defineCommand,
  hostPorts,
  type RunContext,
  WORKSPACE_ROOT_ARG,
} from "@ariel/core/host";

const args = {
  ...WORKSPACE_ROOT_ARG,
  "detach-key": {
    type: "string",
    valueHint: "KEY",
    description: "the key that comes back from an attached run to the list (default ctrl-])",
  },
  "no-bell": { type: "boolean", description: "no bell when a run starts to wait (the list still marks it)" },
} as const satisfies ArgsDef;

/** `ariel` (ariel-tui): the fleet in your terminal (docs/tui.md). */
export const command = defineCommand({
  meta: {
    name: "ariel-tui",
    description:
      "the fleet in your terminal: every run grouped needs you / running / ended, its live screen or log, keys to attach, start, send, kill, respawn, diff, land and remove",
    usage: "[-C DIR] [--detach-key KEY] [--no-bell]",
    examples: [
      ["ariel", "every workspace the fleet knows (press ? for the keys)"],
      ["ariel -C ~/work/shop", "one workspace"],
      ["ariel --detach-key ctrl-b", "come back from an attached run with Ctrl-B"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const stdin = process.stdin as NodeJS.ReadStream;
  const stdout = process.stdout as NodeJS.WriteStream;
  // A bad --detach-key is a bad flag like any other: refused first (from a pipe too), not at the
  // first attach, and before anything is drawn.
  const detachKey = ctx.args["detach-key"] ?? "ctrl-]";
  parseDetachKey(detachKey);
  if (!stdin.isTTY || !stdout.isTTY || typeof stdin.setRawMode !== "function") {
    throw new ArielError(
      "ERR_NOT_A_TERMINAL",
      "ariel is a full-screen program: stdin and stdout must be a terminal",
      {
        hint: "from a script or a pipe: ariel-runs list (--json) lists the runs, ariel-fleet events --follow follows them",
      },
    );
  }
  const given = ctx.args["workspace-root"];
  const only =
    given === undefined
      ? null
      : await (async () => {
          const ws = await resolveWorkspaceRoot(hostPorts({ env: ctx.env, cwd: ctx.cwd }), given);
          return { root: ws.root, hash: ws.hash, origin: "flag" as const, exists: true };
        })();
  const { App } = await import("./app.ts");
  const app = new App({
    io: { input: stdin, output: stdout },
    env: ctx.env,
    cwd: ctx.cwd,
    only,
    detachKey,
    bell: ctx.args["no-bell"] !== true,
  });
  return app.run();
}
