import {
  ACTIVITIES,
  ArielError,
  presetFor,
  RUN_STATES,
  type RunState,
  type RunView,
  resumeArgv,
} from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, runActivity } from "@ariel/core/host";
import { backendOf, COMMON_ARGS, printRuns } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  all: { type: "boolean", alias: "a", description: "also runs that ended (exited, failed, killed)" },
  state: {
    type: "string",
    valueHint: "S[,S]",
    description: `only these states (${RUN_STATES.join(", ")}) or activities (${ACTIVITIES.join(", ")})`,
  },
  source: { type: "string", valueHint: "NAME", description: "only runs of this source" },
  task: { type: "string", valueHint: "ID", description: "only runs of this task" },
} as const satisfies ArgsDef;

/** `ariel-runs list`: the workspace's runs, newest first (live and lost ones unless --all). */
export const listCommand = defineCommand({
  meta: {
    name: "list",
    description: "list runs with their state (live and lost ones; --all for every run)",
    usage: "[--all] [--state S[,S]] [--source NAME] [--task ID] [OPTIONS]",
    examples: [
      ["ariel-runs list", "the runs still going (and lost ones)"],
      ["ariel-runs list --all --state failed,lost", "the runs that need a look"],
      ["ariel-runs list --state waiting", "the agents that wait for an answer"],
      ["ariel-runs list --json | jq -r '.runId'", "their ids"],
    ],
  },
  args,
  run,
});

const ENDED: ReadonlySet<RunState> = new Set(["exited", "failed", "killed"]);

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  const states = a.state?.split(",") ?? null;
  for (const s of states ?? []) {
    if (![...RUN_STATES, ...ACTIVITIES].includes(s as RunState)) {
      throw new ArielError("ERR_USAGE", `unknown state ${JSON.stringify(s)}`, {
        hint: `states: ${RUN_STATES.join(", ")}; activities: ${ACTIVITIES.join(", ")}`,
      });
    }
  }
  const { backend, ws } = await backendOf(ctx);
  const { runs, problems } = await backend.list();
  const now = Date.now();
  const activity = new Map<RunView, string | null>(runs.map((v) => [v, runActivity(ws.root, v, now)]));
  const shown = runs.filter(
    (v) =>
      (states
        ? states.includes(v.state) || states.includes(activity.get(v) ?? "")
        : a.all === true || !ENDED.has(v.state)) &&
      (a.source === undefined || v.record.source === a.source) &&
      (a.task === undefined || v.record.task === a.task),
  );
  for (const p of problems) {
    ctx.log.warn("WARN_RUN_UNREADABLE", `run ${p.runId} skipped: ${p.message}`, {
      runId: p.runId,
      code: p.code,
    });
  }
  printRuns(ctx, shown, (v) => activity.get(v) ?? null);
  if (!a.json) offerResume(ctx, shown);
  if (shown.length === 0 && !a.json && ctx.term.stderr) {
    ctx.log.info(`no ${a.all ? "" : "live "}runs in ${ws.root}${a.all ? "" : " (--all shows ended ones)"}`);
  }
  return problems.length > 0 ? 1 : 0;
}

/** A lost or crashed agent whose preset can resume its conversation: say how (stderr). */
function offerResume(ctx: RunContext<typeof args>, shown: readonly RunView[]): void {
  for (const v of shown) {
    if (v.state !== "lost" && v.state !== "crashed") continue;
    if (resumeArgv(presetFor(v.record.agent, v.record.argv), v.record.argv) === null) continue;
    const ref = v.record.name ?? v.record.runId;
    ctx.log.info(`run ${ref} is ${v.state}; go on with its conversation: ariel-runs respawn --resume ${ref}`);
  }
}
