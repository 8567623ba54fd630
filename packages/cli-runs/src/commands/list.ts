import {
  ACTIVITIES,
  ArielError,
  isExitState,
  presetFor,
  RUN_STATES,
  type RunRef,
  type RunState,
  type RunView,
  resumeArgv,
  rootForNextCommand,
  runArg,
  supersededKept,
} from "@ariel/core";
import { type ArgsDef, defineCommand, keptOnDisk, type RunContext, runAttention } from "@ariel/core/host";
import { backendOf, COMMON_ARGS, printRuns, warnUnreadable } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  all: {
    type: "boolean",
    alias: "a",
    description: "also runs that ended and left nothing (exited, failed, killed)",
  },
  state: {
    type: "string",
    valueHint: "S[,S]",
    description: `only these states (${RUN_STATES.join(", ")}) or activities (${ACTIVITIES.join(", ")})`,
  },
  source: {
    type: "string",
    valueHint: "NAME",
    description: "only runs of this source (a --span run's every leg counts)",
  },
  task: { type: "string", valueHint: "ID", description: "only runs of this task" },
  group: { type: "string", valueHint: "G", description: "only the runs one ariel-spawn call started" },
} as const satisfies ArgsDef;

/**
 * `ariel-runs list`: the workspace's runs, newest first: unless --all, the live and lost ones and
 * the ended ones whose kept worktree is still on disk (each said on stderr with its next command).
 */
export const listCommand = defineCommand({
  meta: {
    name: "list",
    description:
      "list runs with their state (live and lost ones, and ended ones that kept a worktree; --all for every run)",
    usage: "[--all] [--state S[,S]] [--source NAME] [--task ID] [--group G] [OPTIONS]",
    examples: [
      ["ariel-runs list", "the runs still going (and lost ones)"],
      ["ariel-runs list --all --state failed,lost", "the runs that need a look"],
      ["ariel-runs list --all --group 20261203T091500Z-q7w1e0", "every run one ariel-spawn call started"],
      ["ariel-runs list --state waiting", "the agents that wait for an answer"],
      ["ariel-runs list --json | jq -r '.runId'", "their ids"],
    ],
  },
  args,
  run,
});

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
  const attention = new Map(runs.map((v) => [v, runAttention(ws.root, v, now)]));
  // A kept worktree is the newest run's to name, and no one's while a run works in it.
  const superseded = supersededKept(runs.map((v) => ({ ...v.record, live: !isExitState(v.state) })));
  const keptHere = (v: RunView, root?: string) =>
    superseded.has(v.record.runId) ? null : keptOnDisk(v, root);
  const shown = runs.filter(
    (v) =>
      (states
        ? states.includes(v.state) || states.includes(attention.get(v)?.activity ?? "")
        : a.all === true || !isExitState(v.state) || keptHere(v) !== null) &&
      (a.source === undefined ||
        v.record.source === a.source ||
        (v.record.legs ?? []).some((l) => l.source === a.source)) &&
      (a.task === undefined || v.record.task === a.task) &&
      (a.group === undefined || v.record.group === a.group),
  );
  warnUnreadable(ctx, problems);
  printRuns(ctx, shown, (v) => attention.get(v) ?? null);
  const all = runs.map((v) => v.record);
  sayKept(ctx, shown, (v) => keptHere(v, rootForNextCommand(ws, ctx.cwd)));
  if (!a.json) offerResume(ctx, shown, all);
  if (shown.length === 0 && !a.json && ctx.term.stderr) {
    ctx.log.info(`no ${a.all ? "" : "live "}runs in ${ws.root}${a.all ? "" : " (--all shows ended ones)"}`);
  }
  return problems.length > 0 ? 1 : 0;
}

/** Each listed run that kept its worktree, with the command that deals with it (one line each). */
function sayKept(
  ctx: RunContext<typeof args>,
  views: readonly RunView[],
  keptOf: (v: RunView) => ReturnType<typeof keptOnDisk>,
): void {
  for (const v of views) {
    const kept = keptOf(v);
    if (kept)
      ctx.log.info(`${v.record.name ?? v.record.runId} kept its worktree (${kept.reason}): ${kept.next}`);
  }
}

/** A lost or crashed agent whose preset can resume its conversation: say how (stderr), naming it by its name while that means it. */
function offerResume(ctx: RunContext<typeof args>, shown: readonly RunView[], all: readonly RunRef[]): void {
  for (const v of shown) {
    if (v.state !== "lost" && v.state !== "crashed") continue;
    if (resumeArgv(presetFor(v.record.agent, v.record.argv), v.record.argv) === null) continue;
    const ref = runArg(v.record, all);
    ctx.log.info(`run ${ref} is ${v.state}; go on with its conversation: ariel-runs respawn --resume ${ref}`);
  }
}
