import {
  ArielError,
  formatBytes,
  GC_DEFAULT_OLDER_THAN_MS,
  type GcAction,
  type GcPolicy,
  type GcSkip,
  nextRemoveCommand,
  parseDuration,
  parseSize,
  plural,
  type TaskRecord,
} from "@ariel/core";
import {
  type ArgsDef,
  blockingFs,
  defineCommand,
  gc,
  printLifecyclePlan,
  type RunContext,
} from "@ariel/core/host";
import {
  COMMON_ARGS,
  dryRunExit,
  MUTATING_ARGS,
  NO_HOOKS_ARG,
  printRows,
  rootArg,
  workspaceOf,
} from "./_common.ts";

const STATES = ["active", "cleaning", "closed", "unknown"] as const;

const args = {
  ...COMMON_ARGS,
  ...MUTATING_ARGS,
  ...NO_HOOKS_ARG,
  "older-than": {
    type: "string",
    valueHint: "AGE",
    description: "only tasks and runs at least this old, e.g. 12h, 7d (default 7d)",
  },
  state: {
    type: "string",
    multiple: true,
    valueHint: "STATE",
    description: "task states to reclaim: closed (default), active, unknown, cleaning; repeatable",
  },
  "keep-bytes": {
    type: "string",
    valueHint: "SIZE",
    description: "also remove worktrees, oldest task first, until at most SIZE stay (e.g. 20G)",
  },
  "prune-merged": {
    type: "boolean",
    description: "delete the branches of archived tasks that are fully merged into their source's HEAD",
  },
} as const satisfies ArgsDef;

/** `ariel-worktree gc`: reclaim closed records, old worktrees (snapshotted first), old run output. */
export const gcCommand = defineCommand({
  meta: {
    name: "gc",
    description:
      "reclaim disk: archive closed task records, remove old worktrees (local work snapshotted first), drop finished runs' output and restored snapshots",
    usage: "[--older-than AGE] [--state STATE...] [--keep-bytes SIZE] [--prune-merged] [OPTIONS]",
    examples: [
      ["ariel-worktree gc -n", "show what gc would reclaim, change nothing"],
      [
        "ariel-worktree gc --state active --older-than 14d",
        "snapshot and remove worktrees untouched for 14 days",
      ],
      ["ariel-worktree gc --keep-bytes 50G", "remove the oldest tasks' worktrees until 50 GiB stay"],
    ],
  },
  args,
  run,
});

function policyOf(a: RunContext<typeof args>["args"]): GcPolicy {
  const states = a.state.length > 0 ? a.state : ["closed"];
  for (const s of states) {
    if (!(STATES as readonly string[]).includes(s)) {
      throw new ArielError("ERR_USAGE", `--state: unknown task state "${s}"`, {
        hint: `use one of: ${STATES.join(", ")}`,
        context: { value: s },
      });
    }
  }
  return {
    olderThanMs:
      a["older-than"] !== undefined
        ? parseDuration(a["older-than"], "--older-than")
        : GC_DEFAULT_OLDER_THAN_MS,
    states: states as TaskRecord["state"][],
    ...(a["keep-bytes"] !== undefined ? { keepBytes: parseSize(a["keep-bytes"], "--keep-bytes") } : {}),
    pruneMerged: a["prune-merged"] === true,
  };
}

function subject(a: GcAction): string {
  switch (a.action) {
    case "run.drop":
      return a.run;
    case "share.drop":
      return a.store;
    case "branch.delete":
      return `${a.task} ${a.source} ${a.branch}`;
    case "snapshot.drop":
      return `${a.task} ${a.ref}`;
    default:
      return a.task;
  }
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const policy = policyOf(ctx.args);
  const { ports, root, via } = await workspaceOf(ctx);
  const dryRun = ctx.args["dry-run"] === true;
  const progress = ctx.term.stderr && !ctx.args.json;
  // Short-lived: synchronous file I/O skips a thread-pool hop per file, which is most of the
  // cost of reading a thousand closed task records and their leases.
  const r = await gc(
    { ...ports, fs: blockingFs },
    {
      root,
      policy,
      dryRun,
      ...(ctx.args["no-hooks"] === true ? { noHooks: true } : {}),
      ...(progress ? { onProgress: (i, n, a) => ctx.log.info(`[${i}/${n}] ${a.action} ${subject(a)}`) } : {}),
    },
  );
  for (const p of r.problems) ctx.log.warn(p.code, p.message);
  const tty = ctx.term.stdout;
  if (dryRun) {
    if (ctx.args.json) {
      for (const a of r.plan.actions) ctx.out.record({ v: 1, type: "plan", ...a, action: `gc.${a.action}` });
      for (const s of r.plan.skipped) ctx.out.record({ v: 1, type: "gc.skip", ...s });
    } else {
      printRows(
        ctx,
        ["ACTION", "WHAT", "BYTES"],
        r.plan.actions.map((a) => [
          a.action,
          subject(a),
          "bytes" in a ? (tty ? formatBytes(a.bytes) : String(a.bytes)) : "-",
        ]),
      );
      for (const s of r.plan.skipped) ctx.log.info(skipLine(s));
      ctx.log.info(`${plural(r.plan.actions.length, "action")}, ${formatBytes(r.plan.bytes)} to reclaim`);
    }
    printLifecyclePlan({ out: ctx.out, log: ctx.log, tty }, ctx.args.json === true, r.lifecycle ?? []);
    return r.problems.length > 0 ? 1 : dryRunExit(ctx, r.plan.actions.length);
  }
  const skipped = r.outcomes.filter((o) => o.outcome === "skipped");
  for (const o of skipped) {
    ctx.log.warn(
      "WARN_GC_SKIPPED",
      `${o.action.action} ${subject(o.action)} skipped: ${o.reason?.message ?? ""}`,
      {
        reason: o.reason?.code,
      },
    );
  }
  if (ctx.args.json) {
    for (const s of r.plan.skipped) ctx.out.record({ v: 1, type: "gc.skip", ...s });
    for (const o of r.outcomes) {
      ctx.out.record({
        v: 1,
        type: "gc",
        ...o.action,
        action: `gc.${o.action.action}`,
        outcome: o.outcome,
        ...(o.reason ? { refusal: o.reason } : {}),
        ...(o.snapshots ? { snapshots: o.snapshots } : {}),
      });
    }
  } else {
    printRows(
      ctx,
      ["ACTION", "WHAT", "OUTCOME"],
      r.outcomes.map((o) => [
        o.action.action,
        subject(o.action),
        o.reason ? `skipped: ${o.reason.code}` : o.outcome,
      ]),
    );
    for (const s of r.plan.skipped) ctx.log.info(skipLine(s));
    // Every skip counts, the plan's (a task leased, a run settling) and the apply's alike.
    const skips = skipped.length + r.plan.skipped.length;
    ctx.log.info(`${r.outcomes.length - skipped.length} done, ${skips} skipped`);
  }
  // Something planned and not done is not success: a refusal leaves work only the user can
  // decide on, exit 3 (as `remove`); any other skip (a lease taken meanwhile, a ref that moved),
  // exit 1 — a later gc may take it. What the plan itself left out (leased, running) is no skip
  // of a planned action: exit 0.
  const refused = r.outcomes.filter((o) => o.refused);
  if (refused.length > 0 && !ctx.args.json) {
    const what = refused.map((o) => `${subject(o.action)} (${o.reason?.code ?? "refused"})`).join(", ");
    // A task's removal refused: `remove` (without --snapshot, gc already tried it) shows what
    // stands in the way. A snapshot or branch kept (a record naming a ref not its own) has no
    // command to go on with: its warning says what to look at.
    const first = refused.find((o) => o.action.action === "task.remove");
    const next =
      first !== undefined && "task" in first.action
        ? `; next: ${nextRemoveCommand({ task: first.action.task, reasons: [first.reason?.code ?? "refused"], ...rootArg(ctx, root, via) })}`
        : "";
    ctx.log.info(`refused, kept: ${what}${next}`);
  }
  if (r.problems.length > 0) return 1;
  if (refused.length > 0) return 3;
  return skipped.length > 0 ? 1 : 0;
}

/**
 * The line of one thing gc left alone: `skip t1: not-merged (ariel/t1 in chalk)`; a leg's skip
 * names its source, so two legs of one task never print the same line.
 */
function skipLine(s: GcSkip): string {
  const where = "source" in s && s.source !== undefined ? ` in ${s.source}` : "";
  const detail = s.detail ? ` (${s.detail}${where})` : where ? ` (${where.slice(1)})` : "";
  return `skip ${"task" in s ? s.task : s.run}: ${s.reason}${detail}`;
}
