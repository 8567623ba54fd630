import { ArielError, type OutputStream } from "@ariel/core";
import { type CommandSpec, type RunContext, streamLogs } from "@ariel/core/host";
import { backendOf, COMMON_FLAGS, intOf, runArgs, runIdOf, sinksOf, str } from "./_common.ts";

/** `ariel-runs logs RUN`: a run's output, from a sequence number or its tail, optionally followed. */
export const logsCommand: CommandSpec = {
  name: "logs",
  description: "print a run's output (-f follows it until the run ends)",
  usage: "RUN [-f] [--from SEQ] [--tail N] [--stream stdout|stderr] [OPTIONS]",
  positionals: true,
  flags: {
    ...COMMON_FLAGS,
    follow: { type: "boolean", short: "f", description: "keep printing as the run writes, until it ends" },
    from: {
      type: "string",
      valueHint: "SEQ",
      description: "start at this byte offset (an output record's seq)",
    },
    tail: { type: "string", valueHint: "N", description: "start at the last N lines" },
    stream: { type: "string", valueHint: "S", description: "only stdout or stderr (default both)" },
  },
  run,
};

/** The streams a --stream flag selects. */
export function streamsOf(ctx: RunContext): OutputStream[] {
  const s = str(ctx, "stream");
  if (s === undefined) return ["stdout", "stderr"];
  if (s !== "stdout" && s !== "stderr")
    throw new ArielError("ERR_USAGE", `--stream needs stdout or stderr, got ${JSON.stringify(s)}`);
  return [s];
}

async function run(ctx: RunContext): Promise<number> {
  const [ref] = runArgs(ctx);
  const from = intOf(ctx, "from");
  const tail = intOf(ctx, "tail");
  if (from !== null && tail !== null)
    throw new ArielError("ERR_USAGE", "--from and --tail exclude each other");
  const streams = streamsOf(ctx);
  const { backend } = await backendOf(ctx);
  const runId = await runIdOf(backend, ref!);
  await streamLogs(backend, runId, {
    streams,
    from,
    tail,
    follow: ctx.flags.follow === true,
    json: ctx.flags.json === true,
    out: ctx.out,
    sinks: sinksOf(ctx, streams),
    signal: ctx.signal,
  });
  return 0;
}
