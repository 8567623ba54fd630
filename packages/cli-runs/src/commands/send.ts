import { ArielError } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, sendToRun } from "@ariel/core/host";
import { COMMON_ARGS, oneRun, RUN_ARG } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...RUN_ARG,
  input: { type: "positional", valueHint: "TEXT", description: "what to type", required: false },
  text: {
    type: "string",
    valueHint: "TEXT",
    description: "what to type, as a flag: for text that starts with '-' (--text=-y)",
  },
  enter: {
    type: "boolean",
    description: "press Enter after TEXT (a carriage return on a tty run, else a newline)",
  },
} as const satisfies ArgsDef;

/** `ariel-runs send RUN TEXT [--enter]`: type into a tty (or --interactive) run from a script. */
export const sendCommand = defineCommand({
  meta: {
    name: "send",
    description: "type TEXT into a live tty or --interactive run; --enter presses Enter after it",
    usage: "RUN [TEXT] [--enter] [OPTIONS]",
    examples: [
      ["ariel-runs send agent-1 1 --enter", "choose option 1 in the menu the agent shows"],
      ["ariel-runs send agent-1 --enter", "press Enter"],
      ["ariel-runs send agent-1 --text=-y --enter", "type text that starts with '-'"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  if (ctx.args.input !== undefined && ctx.args.text !== undefined) {
    throw new ArielError("ERR_USAGE", "send takes TEXT or --text, not both");
  }
  const text = ctx.args.text ?? ctx.args.input ?? "";
  if (text === "" && !ctx.args.enter) throw new ArielError("ERR_USAGE", "send needs TEXT, --enter, or both");
  const { backend, runId } = await oneRun(ctx);
  await sendToRun(backend, runId, text, ctx.args.enter === true, ctx.args.run);
  return 0;
}
