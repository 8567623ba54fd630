import { ArielError, RUN_STATES, type RunState } from "@ariel/core";
import type { CommandSpec, RunContext } from "@ariel/core/host";
import { backendOf, COMMON_FLAGS, printRuns, str } from "./_common.ts";

/** `ariel-runs list`: the workspace's runs, newest first (live ones unless --all). */
export const listCommand: CommandSpec = {
  name: "list",
  description: "list runs with their state (live and lost ones; --all for every run)",
  usage: "[--all] [--state S[,S]] [--source NAME] [--task ID] [OPTIONS]",
  flags: {
    ...COMMON_FLAGS,
    all: { type: "boolean", short: "a", description: "also runs that ended (exited, failed, killed)" },
    state: {
      type: "string",
      valueHint: "S[,S]",
      description: `only these states (${RUN_STATES.join(", ")})`,
    },
    source: { type: "string", valueHint: "NAME", description: "only runs of this source" },
    task: { type: "string", valueHint: "ID", description: "only runs of this task" },
  },
  run,
};

const ENDED: ReadonlySet<RunState> = new Set(["exited", "failed", "killed"]);

async function run(ctx: RunContext): Promise<number> {
  if (ctx.positionals.length > 0)
    throw new ArielError("ERR_USAGE", `unexpected argument '${ctx.positionals[0]}'`);
  const states = str(ctx, "state")?.split(",") ?? null;
  for (const s of states ?? []) {
    if (!(RUN_STATES as readonly string[]).includes(s)) {
      throw new ArielError("ERR_USAGE", `unknown state ${JSON.stringify(s)}`, {
        hint: `states: ${RUN_STATES.join(", ")}`,
      });
    }
  }
  const { backend, ws } = await backendOf(ctx);
  const { runs, problems } = await backend.list();
  const source = str(ctx, "source");
  const task = str(ctx, "task");
  const shown = runs.filter(
    (v) =>
      (states ? states.includes(v.state) : ctx.flags.all === true || !ENDED.has(v.state)) &&
      (source === undefined || v.record.source === source) &&
      (task === undefined || v.record.task === task),
  );
  for (const p of problems)
    ctx.log.warn("WARN_RUN_UNREADABLE", `run ${p.runId} skipped: ${p.message}`, {
      runId: p.runId,
      code: p.code,
    });
  printRuns(ctx, shown);
  if (shown.length === 0 && !ctx.flags.json && process.stderr.isTTY) {
    ctx.log.info(
      `no ${ctx.flags.all ? "" : "live "}runs in ${ws.root}${ctx.flags.all ? "" : " (--all shows ended ones)"}`,
    );
  }
  return problems.length > 0 ? 1 : 0;
}
