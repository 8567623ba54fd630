import { ArielError, FINAL_STATES, parseDuration, planPrune } from "@ariel/core";
import { type CommandSpec, type RunContext, withRunLock } from "@ariel/core/host";
import { backendOf, COMMON_FLAGS, DRY_RUN_FLAG, str } from "./_common.ts";

/** `ariel-runs prune --older-than 7d`: remove runs that ended long enough ago. */
export const pruneCommand: CommandSpec = {
  name: "prune",
  description: "remove ended runs older than --older-than (live runs are never touched)",
  usage: "--older-than DURATION [OPTIONS]",
  flags: {
    ...COMMON_FLAGS,
    ...DRY_RUN_FLAG,
    "older-than": { type: "string", valueHint: "DURATION", description: "e.g. 7d, 12h (required)" },
  },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  if (ctx.positionals.length > 0)
    throw new ArielError("ERR_USAGE", `unexpected argument '${ctx.positionals[0]}'`);
  const older = str(ctx, "older-than");
  if (older === undefined) throw new ArielError("ERR_USAGE", "prune needs --older-than DURATION");
  const olderThanMs = parseDuration(older, "--older-than");
  const { ws, ports, backend } = await backendOf(ctx);
  const { runs } = await backend.list();
  const plan = planPrune(
    runs.map((v) => ({
      runId: v.record.runId,
      state: v.state,
      endedAtMs: v.exit ? Date.parse(v.exit.endedAt) : null,
      createdAtMs: Date.parse(v.record.createdAt),
    })),
    ports.clock.now(),
    olderThanMs,
  );
  const dryRun = ctx.flags["dry-run"] === true;
  let removed = 0;
  for (const r of plan.remove) {
    if (!dryRun) {
      const done = await withRunLock(ws.root, r.runId, async () => {
        const v = await backend.get(r.runId).catch(() => null);
        if (!v || !FINAL_STATES.has(v.state)) return false;
        await backend.remove(r.runId);
        return true;
      });
      if (!done) continue;
      removed++;
    }
    if (ctx.flags.json)
      ctx.out.record({
        v: 1,
        type: dryRun ? "plan" : "removed",
        action: "run.remove",
        runId: r.runId,
        state: r.state,
      });
    else ctx.out.write(`${dryRun ? "would remove" : "removed"} ${r.runId} (${r.state})\n`);
  }
  if (!ctx.flags.json && !dryRun) ctx.log.info(`removed ${removed} of ${runs.length} runs`);
  return 0;
}
