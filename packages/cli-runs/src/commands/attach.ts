import { FINAL_STATES, parseDetachKey, shellWords } from "@ariel/core";
import { type ArgsDef, attachTty, defineCommand, type RunContext, streamLogs } from "@ariel/core/host";
import { intOf, oneRun, RUN_OUTPUT_ARGS, sinksOf, streamsOf, warnDropped } from "./_common.ts";

const args = {
  ...RUN_OUTPUT_ARGS,
  "read-only": { type: "boolean", description: "a tty run: watch it, type nothing into it" },
  "detach-key": {
    type: "string",
    valueHint: "KEY",
    description: "a tty run: the key that detaches (default ctrl-]; none for no key)",
  },
} as const satisfies ArgsDef;

/** `ariel-runs attach RUN`: replay the output, then follow it live; stdin goes to an --interactive run. */
export const attachCommand = defineCommand({
  meta: {
    name: "attach",
    description:
      "be a tty run's terminal (Ctrl-] detaches), or replay a run's output and follow it live (stdin to an --interactive run; Ctrl-C detaches)",
    usage: "RUN [--from SEQ] [--stream S] [OPTIONS]",
    examples: [
      ["ariel-runs attach fix-login", "replay, then live; Ctrl-C leaves it running"],
      ["ariel-runs attach --json --from 2048 fix-login", "resume a reader at sequence 2048"],
      ["ariel-runs attach agent-1", "a tty run: its screen, your keys; Ctrl-] leaves it running"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  const streams = streamsOf(a.stream);
  const from = intOf("from", a.from);
  const detachKey = parseDetachKey(a["detach-key"] ?? "ctrl-]");
  const { ws, backend, runId } = await oneRun(ctx);
  const view = await backend.get(runId);
  if (view.record.tty && !FINAL_STATES.has(view.state) && a.json !== true && a.from === undefined) {
    return attachTerminal(ctx, { root: ws.root, hash: ws.hash, runId, detachKey });
  }
  // Ctrl-C detaches: the run goes on; only this reader stops.
  const detach = new AbortController();
  const onInt = () => detach.abort();
  process.on("SIGINT", onInt);
  ctx.signal.addEventListener("abort", onInt, { once: true });
  const forward = () => {
    if (!view.record.interactive) return;
    void (async () => {
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
      json: a.json === true,
      out: ctx.out,
      sinks: sinksOf(ctx, streams),
      onDropped: warnDropped(ctx),
      signal: detach.signal,
      onLive: forward,
    });
  } finally {
    process.off("SIGINT", onInt);
    process.stdin.destroy();
  }
  if (detach.signal.aborted && !ctx.signal.aborted) {
    ctx.log.info(`detached from ${runId}; it goes on (ariel-runs attach ${shellWords([a.run])})`);
  }
  return 0;
}

/** A live tty run: this terminal becomes its terminal until the detach key, or its end. */
async function attachTerminal(
  ctx: RunContext<typeof args>,
  o: { root: string; hash: string; runId: string; detachKey: number | null },
): Promise<number> {
  const end = await attachTty({
    ...o,
    readOnly: ctx.args["read-only"] === true,
    input: process.stdin,
    output: process.stdout,
    signal: ctx.signal,
  });
  if (end.kind === "detached" || end.kind === "exited") {
    // Off the agent's screen line first, on its own: a message that began with it would leave
    // the CLI's name alone on a line ("ariel-runs: ", then the message below it).
    await ctx.log.flush();
    ctx.stderr.write("\r\n");
  }
  if (end.kind === "detached")
    ctx.log.info(`detached from ${o.runId}; it goes on (ariel-runs attach ${shellWords([ctx.args.run])})`);
  if (end.kind === "exited") ctx.log.info(`run ${o.runId} ended (status ${end.status})`);
  return 0;
}
