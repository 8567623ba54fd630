import { ArielError, parseDuration } from "@ariel/core";
import { type CommandSpec, type RunContext, waitRuns, waitStatus } from "@ariel/core/host";
import { backendOf, COMMON_FLAGS, printRuns, runArgs, runIdOf, str } from "./_common.ts";

/** `ariel-runs wait RUN...`: until every run ended; the exit status is the run's. */
export const waitCommand: CommandSpec = {
  name: "wait",
  description: "wait until the runs ended; exit with the run's status (124 on --timeout)",
  usage: "RUN... [--timeout DURATION] [OPTIONS]",
  positionals: true,
  flags: {
    ...COMMON_FLAGS,
    timeout: { type: "string", valueHint: "DURATION", description: "give up after DURATION (exit 124)" },
  },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  const refs = runArgs(ctx, Number.POSITIVE_INFINITY);
  const t = str(ctx, "timeout");
  const timeoutMs = t === undefined ? null : parseDuration(t, "--timeout");
  const { backend } = await backendOf(ctx);
  const ids: string[] = [];
  for (const r of refs) ids.push(await runIdOf(backend, r));
  const views = await waitRuns(backend, ids, { timeoutMs, signal: ctx.signal });
  if (views === null) {
    throw new ArielError(
      "ERR_WAIT_TIMEOUT",
      `${ids.length === 1 ? `run ${ids[0]}` : `${ids.length} runs`} still going after ${t}`,
      {
        context: { runs: ids },
      },
    );
  }
  printRuns(ctx, views);
  for (const v of views) {
    if (!v.exit)
      ctx.log.warn("WARN_EXIT_UNKNOWN", `run ${v.record.runId} is ${v.state}: its exit status is unknown`, {
        runId: v.record.runId,
        state: v.state,
      });
  }
  const bad = views.find((v) => waitStatus(v) !== 0);
  return bad ? (views.length === 1 ? waitStatus(bad) : 1) : 0;
}
