import { ArielError, HOOK_EVENTS, type HookEvent, isHookEvent, quoteValue } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, reportHooks, runTaskHooks } from "@ariel/core/host";
import {
  COMMON_ARGS,
  LEG_SOURCE_ARG,
  printRows,
  rootArg,
  TASK_ARG,
  withProgress,
  workspaceOf,
} from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...TASK_ARG,
  ...LEG_SOURCE_ARG,
  action: { type: "positional", valueHint: "run", description: "what to do: run" },
  event: {
    type: "string",
    valueHint: "EVENT",
    description: `the event whose hooks run: ${HOOK_EVENTS.join(", ")} (default post-create)`,
  },
} as const satisfies ArgsDef;

/** `ariel-worktree hooks run`: run a task's lifecycle hooks again (docs/lifecycle.md). */
export const hooksCommand = defineCommand({
  meta: {
    name: "hooks",
    description: "run a task's lifecycle hooks again (a failed post-create, or after trust)",
    usage: "run --task ID [--event EVENT] [--source NAME...] [OPTIONS]",
    examples: [
      [
        "ariel-worktree hooks run --task t1",
        "run t1's post-create hooks again; each leg's setup is recorded",
      ],
      [
        "ariel-worktree hooks run --task t1 --event pre-remove --source api",
        "run api's pre-remove hook only",
      ],
    ],
  },
  args,
  run,
});

function eventOf(value: string | undefined): HookEvent {
  if (value === undefined) return "post-create";
  if (isHookEvent(value)) return value;
  throw new ArielError("ERR_USAGE", `unknown hook event ${quoteValue(value)}`, {
    hint: `the events are: ${HOOK_EVENTS.join(", ")}`,
  });
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  if (ctx.args.action !== "run") {
    throw new ArielError("ERR_USAGE", `hooks: unknown action ${quoteValue(ctx.args.action ?? "")}`, {
      hint: "run: ariel-worktree hooks run --task ID [--event EVENT]",
    });
  }
  const event = eventOf(ctx.args.event);
  const { ports, root, via } = await workspaceOf(ctx);
  const taskId = ctx.args.task;
  const sources = ctx.args.source;
  const { hooks } = await withProgress(ctx, (onProgress) =>
    runTaskHooks(ports, { root, taskId, event, ...(sources.length > 0 ? { sources } : {}), onProgress }),
  );
  const failed = reportHooks(ctx.log, hooks, { task: taskId, ...rootArg(ctx, root, via) });
  if (ctx.args.json) {
    for (const r of hooks.results) ctx.out.record({ v: 1, type: "hook", task: taskId, ...r });
  } else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "EVENT", "ORIGIN", "STATUS", "EXIT", "HOOK"],
      hooks.results.map((r) => [taskId, r.source, r.event, r.origin, r.status, String(r.exit), r.hook]),
    );
  }
  if (hooks.results.length === 0 && hooks.warnings.length === 0) {
    ctx.log.info(`task ${taskId} has no ${event} hook to run`);
  }
  if (failed > 0) {
    ctx.log.info(`${failed} ${event} hook(s) of task ${taskId} failed; log: ${hooks.log}`);
    return 1;
  }
  return 0;
}
