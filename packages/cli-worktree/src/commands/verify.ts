import { verifySummary } from "@ariel/core";
import type { CommandSpec, RunContext } from "@ariel/core/host";
import { verifyTask } from "@ariel/core/host";
import {
  COMMON_FLAGS,
  noPositionals,
  printRows,
  refusalError,
  rootArg,
  TASK_FLAG,
  taskOf,
  workspaceOf,
} from "./_common.ts";

/** `ariel-worktree verify`: the resume gate. */
export const verifyCommand: CommandSpec = {
  name: "verify",
  description: "check a task before resuming it: containment, presence, head, fingerprint (exit 0, 3 or 77)",
  usage: "--task ID [OPTIONS]",
  flags: { ...COMMON_FLAGS, task: TASK_FLAG },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  noPositionals(ctx);
  const taskId = taskOf(ctx);
  const { ports, root, via } = await workspaceOf(ctx);
  const result = await verifyTask(ports, { root, taskId });
  if (ctx.flags.json) for (const l of result.legs) ctx.out.record({ ...l });
  else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "OK", "PROBLEM", "PATH"],
      result.legs.map((l) => [l.task, l.source, l.ok ? "ok" : "FAIL", l.code ?? "-", l.path]),
    );
  }
  for (const l of result.legs) {
    if (l.code && l.message) {
      const err = refusalError(l.code, l.message, { task: taskId, source: l.source, path: l.path });
      ctx.log.error(err);
    }
  }
  const failed = result.legs.flatMap((l) => (l.code ? [{ source: l.source, code: l.code }] : []));
  if (failed.length > 0) {
    ctx.log.info(
      verifySummary({ task: taskId, legs: result.legs.length, failed, ...rootArg(ctx, root, via) }),
    );
  }
  return result.exit;
}
