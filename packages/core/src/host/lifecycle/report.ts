/**
 * How a command tells what hooks did: each warning (untrusted hooks skipped, with the trust
 * command) and each failure as an error record naming the log and the retry command. Shared by
 * every CLI that fires an event.
 *
 * @example
 * ```ts
 * const failed = reportHooks(ctx.log, result.hooks, { task: "t1", root });
 * // ariel-worktree: error: api: post-create hook "npm ci" exited 1; the leg is kept (setup: failed) [ERR_HOOK_FAILED]
 * // ariel-worktree: hint: read /ws/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree hooks run --task t1 --event post-create
 * ```
 */
import { ArielError } from "../../errors.ts";
import { shellWords } from "../../shell_words.ts";
import type { Reporter } from "../cli/mod.ts";
import type { Output } from "../output.ts";
import { renderRows } from "../table.ts";
import { warnWithHint } from "../warn.ts";
import { lifecyclePlanRecords, lifecyclePlanTables, type TaskLifecyclePlan } from "./plan_hooks.ts";
import { hookFailureLine, type RunHooksResult } from "./run_hooks.ts";

/** The command that runs a task's hooks of `event` again. */
export function retryHooksCommand(task: string, event: string, root?: string): string {
  return shellWords([
    "ariel-worktree",
    ...(root ? ["-C", root] : []),
    "hooks",
    "run",
    "--task",
    task,
    "--event",
    event,
  ]);
}

/** Report warnings and failures of a hook run; returns how many hooks failed. */
export function reportHooks(
  log: Pick<Reporter, "warn" | "error">,
  hooks: RunHooksResult | undefined,
  o: { task: string; root?: string },
): number {
  if (!hooks) return 0;
  for (const w of hooks.warnings) warnWithHint(log, w);
  for (const f of hooks.failed) {
    const guard = f.event === "pre-remove" || f.event === "pre-land";
    const kept = f.event === "post-create" ? "; the leg is kept (setup: failed)" : "";
    log.error(
      new ArielError(guard ? "ERR_HOOK_REFUSED" : "ERR_HOOK_FAILED", `${hookFailureLine(f)}${kept}`, {
        hint: guard
          ? `nothing was changed; read ${hooks.log} and fix the cause, or pass --no-hooks to skip the hooks`
          : `read ${hooks.log}, fix the cause, then: ${retryHooksCommand(o.task, f.event, o.root)}`,
        context: {
          task: o.task,
          source: f.source,
          event: f.event,
          file: f.file,
          status: f.status,
          hookExit: f.exit,
          log: hooks.log,
        },
      }),
    );
  }
  return hooks.failed.length;
}

/**
 * The lifecycle half of a dry run's plan, after the command's own rows: the warnings the real run
 * would print (untrusted hooks skipped), then `port.lease` and `hook.run`/`hook.skip` records, or
 * a port table and a hook table (a blank line before each on a terminal). Nothing without ports
 * or hooks, so a plan without them reads as it always did.
 */
export function printLifecyclePlan(
  io: { out: Pick<Output, "record" | "write">; log: Pick<Reporter, "warn">; tty: boolean },
  json: boolean,
  plans: readonly TaskLifecyclePlan[],
): void {
  for (const { plan } of plans) for (const w of plan?.warnings ?? []) warnWithHint(io.log, w);
  if (json) {
    for (const r of lifecyclePlanRecords(plans)) io.out.record(r);
    return;
  }
  for (const t of lifecyclePlanTables(plans)) {
    if (io.tty) io.out.write("\n");
    io.out.write(renderRows(t.header, t.rows, io.tty));
  }
}
