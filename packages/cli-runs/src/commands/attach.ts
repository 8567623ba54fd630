import { type CommandSpec, type RunContext, streamLogs } from "@ariel/core/host";
import { backendOf, COMMON_FLAGS, intOf, runArgs, runIdOf, sinksOf } from "./_common.ts";

import { streamsOf } from "./logs.ts";

/** `ariel-runs attach RUN`: replay the output, then follow it live; stdin goes to an --interactive run. */
export const attachCommand: CommandSpec = {
  name: "attach",
  description:
    "replay a run's output and follow it live (stdin forwarded when it is --interactive); Ctrl-C detaches",
  usage: "RUN [--from SEQ] [--stream S] [OPTIONS]",
  positionals: true,
  flags: {
    ...COMMON_FLAGS,
    from: {
      type: "string",
      valueHint: "SEQ",
      description: "replay from this byte offset instead of the start",
    },
    stream: { type: "string", valueHint: "S", description: "only stdout or stderr (default both)" },
  },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  const [ref] = runArgs(ctx);
  const streams = streamsOf(ctx);
  const from = intOf(ctx, "from");
  const { backend } = await backendOf(ctx);
  const runId = await runIdOf(backend, ref!);
  const view = await backend.get(runId);
  // Ctrl-C detaches: the run goes on; only this reader stops.
  const detach = new AbortController();
  const onInt = () => detach.abort();
  process.on("SIGINT", onInt);
  ctx.signal.addEventListener("abort", onInt, { once: true });
  let input: Promise<void> = Promise.resolve();
  const forward = () => {
    if (!view.record.interactive) return;
    input = (async () => {
      for await (const chunk of process.stdin) {
        if (detach.signal.aborted) return;
        await backend.sendInput(runId, chunk as Uint8Array).catch(() => {});
      }
      if (!detach.signal.aborted) await backend.sendInput(runId, new Uint8Array(0)).catch(() => {});
    })().catch(() => {}); // stdin destroyed when the run ended: nothing more to forward
  };
  try {
    await streamLogs(backend, runId, {
      streams,
      from,
      tail: null,
      follow: true,
      json: ctx.flags.json === true,
      out: ctx.out,
      sinks: sinksOf(ctx, streams),
      signal: detach.signal,
      onLive: forward,
    });
  } finally {
    process.off("SIGINT", onInt);
    process.stdin.destroy();
  }
  void input;
  if (detach.signal.aborted && !ctx.signal.aborted)
    ctx.log.info(`detached from ${runId}; it goes on (ariel-runs attach ${runId})`);
  return 0;
}
