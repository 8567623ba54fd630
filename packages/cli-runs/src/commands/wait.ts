import { ArielError, parseDuration } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, waitRuns, waitStatus } from "@ariel/core/host";
import { backendOf, COMMON_ARGS, printRuns, runIdOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  runs: { type: "positional", multiple: true, valueHint: "RUN...", description: "the runs to wait for" },
  timeout: { type: "string", valueHint: "DURATION", description: "give up after DURATION (exit 124)" },
} as const satisfies ArgsDef;

/** `ariel-runs wait RUN...`: until every run ended; the exit status is the run's. */
export const waitCommand = defineCommand({
  meta: {
    name: "wait",
    description: "wait until the runs ended; exit with the run's status (124 on --timeout)",
    usage: "RUN... [--timeout DURATION] [OPTIONS]",
    examples: [
      ["ariel-runs wait fix-login; echo $?", "the run's own exit status"],
      ["ariel-runs wait --timeout 1h a b c", "all three, or 124 after an hour"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  if (a.runs.length === 0) throw new ArielError("ERR_USAGE", `${ctx.commandPath} needs RUN`);
  const timeoutMs = a.timeout === undefined ? null : parseDuration(a.timeout, "--timeout");
  const { backend, ws } = await backendOf(ctx);
  const ids: string[] = [];
  for (const r of a.runs) ids.push(runIdOf(ws.root, r));
  const views = await waitRuns(backend, ids, { timeoutMs, signal: ctx.signal });
  if (views === null) {
    const what = ids.length === 1 ? `run ${ids[0]}` : `${ids.length} runs`;
    throw new ArielError("ERR_WAIT_TIMEOUT", `${what} still going after ${a.timeout}`, {
      context: { runs: ids },
    });
  }
  printRuns(ctx, views);
  for (const v of views) {
    if (!v.exit) {
      ctx.log.warn("WARN_EXIT_UNKNOWN", `run ${v.record.runId} is ${v.state}: its exit status is unknown`, {
        runId: v.record.runId,
        state: v.state,
      });
    }
  }
  const bad = views.find((v) => waitStatus(v) !== 0);
  return bad ? (views.length === 1 ? waitStatus(bad) : 1) : 0;
}
