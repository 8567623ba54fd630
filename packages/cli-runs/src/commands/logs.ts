import { ArielError, type RunBackend, rootForNextCommand, runEndLine, runEndRecord } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, streamLogs, waitRuns } from "@ariel/core/host";
import { intOf, oneRun, RUN_OUTPUT_ARGS, sinksOf, streamsOf, warnDropped } from "./_common.ts";

const args = {
  ...RUN_OUTPUT_ARGS,
  follow: { type: "boolean", alias: "f", description: "keep printing as the run writes, until it ends" },
  tail: { type: "string", valueHint: "N", description: "start at the last N lines" },
} as const satisfies ArgsDef;

/** `ariel-runs logs RUN`: a run's output, from a sequence number or its tail, optionally followed. */
export const logsCommand = defineCommand({
  meta: {
    name: "logs",
    description: "print a run's output (-f follows it until the run ends, then says how it ended)",
    usage: "RUN [-f] [--from SEQ] [--tail N] [--stream stdout|stderr] [OPTIONS]",
    examples: [
      ["ariel-runs logs -f fix-login", "follow a run until it ends"],
      ["ariel-runs logs --tail 50 --stream stderr fix-login", "the last 50 lines of its stderr"],
      ["ariel-runs logs --json --from 1024 fix-login", "output records from sequence 1024 on"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  const from = intOf("from", a.from);
  const tail = intOf("tail", a.tail);
  if (from !== null && tail !== null)
    throw new ArielError("ERR_USAGE", "--from and --tail exclude each other");
  const streams = streamsOf(a.stream);
  const { backend, runId, ws } = await oneRun(ctx);
  await streamLogs(backend, runId, {
    streams,
    from,
    tail,
    follow: a.follow === true,
    json: a.json === true,
    out: ctx.out,
    sinks: sinksOf(ctx, streams),
    onDropped: warnDropped(ctx),
    signal: ctx.signal,
  });
  if (a.follow === true && !ctx.signal?.aborted)
    await sayEnd(ctx, backend, runId, rootForNextCommand(ws, ctx.cwd));
  return 0;
}

/**
 * After `-f`: once the run is settled (an isolated run's worktree removed or kept), its final
 * state and status, and what it left: an `end` record with --json, else a line on stderr.
 */
async function sayEnd(
  ctx: RunContext<typeof args>,
  backend: RunBackend,
  runId: string,
  root: string | undefined,
): Promise<void> {
  const [view] = (await waitRuns(backend, [runId], { timeoutMs: null, signal: ctx.signal })) ?? [];
  if (!view) return;
  const end = runEndRecord(view, root);
  if (ctx.args.json) ctx.out.record({ ...end });
  else ctx.log.info(runEndLine(end));
}
