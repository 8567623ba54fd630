import { ArielError, DEFAULT_TTY_SIZE, runPaths, shellWords } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, renderStoredScreen } from "@ariel/core/host";
import { COMMON_ARGS, oneRun, RUN_ARG } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...RUN_ARG,
  ansi: { type: "boolean", description: "with its colours and modes (to repaint a terminal)" },
} as const satisfies ArgsDef;

/** `ariel-runs screen RUN`: a tty run's screen, rendered from its stored output. */
export const screenCommand = defineCommand({
  meta: {
    name: "screen",
    description: "print a tty run's screen now (text; --ansi with colours; --json with cursor and size)",
    usage: "RUN [--ansi | --json] [OPTIONS]",
    examples: [
      ["ariel-runs screen agent-1", "what the agent shows, as text"],
      ["ariel-runs screen --json agent-1 | jq .cursor", "where its cursor is"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  if (ctx.args.ansi && ctx.args.json) throw new ArielError("ERR_USAGE", "--ansi and --json: choose one");
  const { ws, backend, runId } = await oneRun(ctx);
  const view = await backend.get(runId);
  if (!view.record.tty) {
    throw new ArielError("ERR_USAGE", `run ${runId} has no terminal: it was not started with --tty`, {
      hint: `read its output with ariel-runs logs ${shellWords([ctx.args.run])}`,
      context: { runId },
    });
  }
  const screen = await renderStoredScreen(runPaths(ws.root, runId), view.record.tty ?? DEFAULT_TTY_SIZE);
  try {
    if (ctx.args.json) ctx.out.record({ v: 1, type: "screen", runId, state: view.state, ...screen.json() });
    else ctx.out.write(ctx.args.ansi ? `${screen.ansi()}\x1b[0m\n` : screen.text());
  } finally {
    screen.dispose();
  }
  return 0;
}
