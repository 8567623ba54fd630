import {
  ArielError,
  parseDuration,
  plural,
  type RunSelection,
  rootForNextCommand,
  selectRuns,
  waitSummaryLine,
  worstStatus,
} from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, testPause, waitRuns } from "@ariel/core/host";
import { backendOf, COMMON_ARGS, printRuns, refuseCorrupt } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  runs: {
    type: "positional",
    multiple: true,
    required: false,
    valueHint: "RUN...",
    description: "the runs to wait for: ids, unique prefixes, names, or name globs ('agent-*')",
  },
  all: { type: "boolean", alias: "a", description: "every live run of the workspace" },
  group: {
    type: "string",
    valueHint: "G",
    description: "every run one ariel-spawn call started (its group id)",
  },
  timeout: { type: "string", valueHint: "DURATION", description: "give up after DURATION (exit 124)" },
} as const satisfies ArgsDef;

/** `ariel-runs wait RUN... | --all | --group G`: until every run ended; exit with the worst status. */
export const waitCommand = defineCommand({
  meta: {
    name: "wait",
    description: "wait until the runs ended; one summary line; exit with the worst status (124 on --timeout)",
    usage: "RUN... | --all | --group G [--timeout DURATION] [OPTIONS]",
    examples: [
      ["ariel-runs wait fix-login; echo $?", "the run's own exit status"],
      ["ariel-runs wait --group 20261203T091500Z-q7w1e0", "every run one ariel-spawn call started"],
      ["ariel-runs wait --all --timeout 8h", "everything still going, or 124 after eight hours"],
      ["ariel-runs wait 'agent-*'", "the newest run of each name that matches"],
    ],
  },
  args,
  run,
});

function selectionOf(a: RunContext<typeof args>["args"], commandPath: string): RunSelection {
  const given = [a.all === true, a.group !== undefined, a.runs.length > 0].filter(Boolean).length;
  if (given === 0) throw new ArielError("ERR_USAGE", `${commandPath} needs RUN..., --all or --group G`);
  if (given > 1) throw new ArielError("ERR_USAGE", "RUN..., --all and --group exclude each other");
  if (a.all) return { kind: "all" };
  if (a.group !== undefined) return { kind: "group", group: a.group };
  return { kind: "refs", refs: a.runs };
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  const selection = selectionOf(a, ctx.commandPath);
  const timeoutMs = a.timeout === undefined ? null : parseDuration(a.timeout, "--timeout");
  const { backend, ws } = await backendOf(ctx);
  const listed = await backend.list();
  if (selection.kind === "refs") refuseCorrupt(listed.problems, selection.refs);
  const ids = selectRuns(
    listed.runs.map((v) => ({ ...v.record, state: v.state })),
    selection,
  );
  await testPause("wait:selected");
  const views = await waitRuns(backend, ids, { timeoutMs, signal: ctx.signal });
  if (views === null) {
    const what = ids.length === 1 ? `run ${ids[0]}` : plural(ids.length, "run");
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
  if (views.length === 0) ctx.log.info(`no live runs in ${ws.root}: nothing to wait for`);
  else ctx.log.info(waitSummaryLine(views, rootForNextCommand(ws, ctx.cwd)));
  return worstStatus(views);
}
