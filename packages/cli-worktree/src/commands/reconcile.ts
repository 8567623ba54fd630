import { lockReason, quoteValue, type ReconcileStep, reconcileKeptSummary } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, reconcileWorkspace } from "@ariel/core/host";
import { COMMON_ARGS, dryRunExit, MUTATING_ARGS, printRows, workspaceOf } from "./_common.ts";

const args = { ...COMMON_ARGS, ...MUTATING_ARGS } as const satisfies ArgsDef;

/**
 * `ariel-worktree reconcile`: converge task records and git after a crash. Prints one `plan`
 * record (`action: "worktree.reconcile"`, `fix: …`) per change, applied or (with --dry-run)
 * planned; what it keeps or does not own is reported as warnings on stderr.
 */
export const reconcileCommand = defineCommand({
  meta: {
    name: "reconcile",
    description: "repair what a crash left: half-made worktrees, stale locks, records without worktrees",
    usage: "[--dry-run [--detailed-exitcode]] [OPTIONS]",
    examples: [
      ["ariel-worktree reconcile -n", "show what a crash left behind and how it would be repaired"],
      ["ariel-worktree reconcile", "repair it (what ariel does not own is reported, never deleted)"],
      [
        "ariel-worktree reconcile -n --detailed-exitcode || ariel-worktree reconcile",
        "repair only when needed",
      ],
    ],
  },
  args,
  run,
});

/** The plan record of one step. */
export function stepRecord(step: ReconcileStep): Record<string, unknown> {
  const { task, ...rest } = step;
  return { v: 1, type: "plan", action: "worktree.reconcile", ...(task ? { task } : {}), ...rest };
}

/** A step's row without --json: FIX, TASK, TARGET, DETAIL. */
export function stepRow(step: ReconcileStep): string[] {
  return [step.fix, step.task || "-", target(step), detail(step)];
}

function target(step: ReconcileStep): string {
  if (step.fix === "delete-branch") return step.branch;
  if (step.fix === "finish-sandbox") return step.run;
  return step.fix === "reopen" || step.fix === "release-ports" ? step.task : step.path;
}

function detail(step: ReconcileStep): string {
  switch (step.fix) {
    case "remove-worktree":
      return step.branch ?? "-";
    case "prune":
      return step.adminDir;
    case "relock":
      return `${step.from ?? "unlocked"} -> ${lockReason(step.task)}`;
    case "delete-branch":
      return step.tip;
    case "remove-dir":
    case "remove-stale-lock":
      return "-";
    case "mark-leg":
      return `${step.from} -> ${step.to} (task ${step.taskState})`;
    case "reopen":
      return `${step.from} -> ${step.taskState}`;
    case "release-ports":
      return step.ports.join(",");
    case "finish-land":
      return `${step.target} ${step.from.slice(0, 12)} -> ${step.to.slice(0, 12)}`;
    case "mark-landed":
      return `${step.target} at ${step.to.slice(0, 12)}`;
    case "finish-sandbox":
      return step.path;
    default:
      return "-";
  }
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { ports, root } = await workspaceOf(ctx);
  const dryRun = ctx.args["dry-run"] === true;
  const json = ctx.args.json === true;
  const shown: ReconcileStep[] = [];
  const result = await reconcileWorkspace(ports, {
    root,
    dryRun,
    onStep: (s) => {
      if (json) ctx.out.record(stepRecord(s));
      else shown.push(s);
    },
  });
  if (!json) {
    printRows(ctx, ["FIX", "TASK", "TARGET", "DETAIL"], shown.map(stepRow));
  }
  if (!json && result.plan.steps.length === 0 && ctx.term.stdout) {
    ctx.log.info(`nothing to reconcile in ${quoteValue(root)}`);
  }
  for (const n of result.plan.notes) {
    const { code, message, ...context } = n;
    ctx.log.warn(code, message, context);
  }
  const kept = reconcileKeptSummary(result.plan.notes);
  if (kept !== null) ctx.log.info(kept);
  if (dryRun) return dryRunExit(ctx, result.plan.steps.length);
  for (const task of result.busy) {
    ctx.log.warn("W_TASK_BUSY", `task ${task} is leased by a live process; skipped (retry later)`, { task });
  }
  for (const f of result.failed) {
    f.error.context.step = f.step.fix;
    f.error.context.task = f.step.task;
    ctx.log.error(f.error);
  }
  // Only refusals (a directory that gained content): 3, nothing of theirs touched; any other failure: 1.
  if (result.failed.length > 0) return result.failed.every((f) => f.error.code === "ERR_REFUSED") ? 3 : 1;
  return result.busy.length > 0 ? 75 : 0;
}
