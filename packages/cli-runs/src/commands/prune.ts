import { ArielError, FINAL_STATES, parseDuration, planPrune } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, stillSettling, withRunLock } from "@ariel/core/host";
import { backendOf, COMMON_ARGS, DRY_RUN_ARG, dryRunExit, warnUnreadable } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...DRY_RUN_ARG,
  "older-than": { type: "string", valueHint: "DURATION", description: "e.g. 7d, 12h (required)" },
} as const satisfies ArgsDef;

/** `ariel-runs prune --older-than 7d`: remove runs that ended long enough ago. */
export const pruneCommand = defineCommand({
  meta: {
    name: "prune",
    description:
      "remove ended runs older than --older-than (live runs are never touched; an unreadable one is reported, exit 1)",
    usage: "--older-than DURATION [OPTIONS]",
    examples: [
      ["ariel-runs prune --older-than 7d", "runs that ended more than a week ago"],
      ["ariel-runs prune --older-than 1d -n", "list what would go"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  if (a["older-than"] === undefined) throw new ArielError("ERR_USAGE", "prune needs --older-than DURATION");
  const olderThanMs = parseDuration(a["older-than"], "--older-than");
  const { ws, ports, backend } = await backendOf(ctx);
  const { runs, problems } = await backend.list();
  warnUnreadable(ctx, problems);
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
  const dryRun = a["dry-run"] === true;
  let removed = 0;
  for (const r of plan.remove) {
    if (!dryRun) {
      const done = await withRunLock(ws.root, r.runId, async () => {
        const v = await backend.get(r.runId).catch(() => null);
        // An ended run its monitor is still settling (worktree, --on-exit hook) is left for later.
        if (!v || !FINAL_STATES.has(v.state) || stillSettling(ws.root, v)) return false;
        await backend.remove(r.runId);
        return true;
      }).catch(() => false);
      if (!done) continue;
      removed++;
    }
    if (a.json) {
      ctx.out.record({
        v: 1,
        type: dryRun ? "plan" : "removed",
        action: "run.remove",
        runId: r.runId,
        state: r.state,
      });
    } else ctx.out.write(`${dryRun ? "would remove" : "removed"} ${r.runId} (${r.state})\n`);
  }
  if (!a.json && !dryRun) ctx.log.info(`removed ${removed} of ${runs.length} runs`);
  if (problems.length > 0) return 1;
  return dryRun ? dryRunExit(a, plan.remove.length) : 0;
}
