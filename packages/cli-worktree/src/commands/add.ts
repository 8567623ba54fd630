import { lockReason } from "@ariel/core";
import type { CommandSpec, RunContext } from "@ariel/core/host";
import { addTask } from "@ariel/core/host";
import {
  COMMON_FLAGS,
  dryRunExit,
  list,
  MUTATING_FLAGS,
  noPositionals,
  printRows,
  str,
  workspaceOf,
} from "./_common.ts";

/** `ariel-worktree add`: one locked worktree per source for a task. */
export const addCommand: CommandSpec = {
  name: "add",
  description: "make a task: one locked worktree per source on branch ariel/<task>",
  usage: "--source NAME... [--task ID] [--base REF] [--branch NAME] [OPTIONS]",
  flags: {
    ...COMMON_FLAGS,
    ...MUTATING_FLAGS,
    task: { type: "string", valueHint: "ID", description: "task id (default: <first source>-<6 chars>)" },
    source: {
      type: "string",
      multiple: true,
      valueHint: "NAME",
      description: "a source of the workspace ('.' for the root); repeatable, one leg each",
    },
    base: {
      type: "string",
      valueHint: "REF",
      description: "start every branch here (default: each source's HEAD)",
    },
    branch: {
      type: "string",
      valueHint: "NAME",
      description: "branch for every leg (default: ariel/<task>)",
    },
  },
  run,
};

async function run(ctx: RunContext): Promise<number> {
  noPositionals(ctx);
  const { ports, root } = await workspaceOf(ctx);
  const sources = list(ctx, "source");
  const taskId = str(ctx, "task");
  const base = str(ctx, "base");
  const branch = str(ctx, "branch");
  if (sources.length === 0) {
    const { ArielError } = await import("@ariel/core");
    throw new ArielError("ERR_USAGE", "add needs at least one --source NAME");
  }
  const dryRun = ctx.flags["dry-run"] === true;
  const result = await addTask(ports, {
    root,
    sources,
    dryRun,
    ...(taskId !== undefined ? { taskId } : {}),
    ...(base !== undefined ? { base } : {}),
    ...(branch !== undefined ? { branch } : {}),
  });
  const { record, plan } = result;
  if (dryRun) {
    const legs = plan.kind === "create" ? plan.legs : [];
    for (const leg of legs) {
      const planned = record.legs.find((l) => l.source === leg.source);
      const rec = {
        v: 1,
        type: "plan",
        action: "worktree.add",
        task: record.taskId,
        source: leg.source,
        sourcePath: leg.sourcePath,
        branch: leg.branch,
        base: leg.base,
        path: leg.worktreePath,
        mode: leg.mode,
        lock: lockReason(record.taskId),
        overlay: planned?.overlay ?? [],
      };
      if (ctx.flags.json) ctx.out.record(rec);
    }
    if (!ctx.flags.json) {
      printRows(
        ctx,
        ["ACTION", "TASK", "SOURCE", "BRANCH", "PATH"],
        legs.map((l) => ["add", record.taskId, l.source, l.branch, l.worktreePath]),
      );
    }
    if (legs.length === 0) ctx.log.info(`task ${record.taskId} exists already; nothing to do`);
    return dryRunExit(ctx, legs.length);
  }
  if (ctx.flags.json) ctx.out.record({ ...record });
  else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "BRANCH", "PATH"],
      record.legs.map((l) => [record.taskId, l.source, l.branch, l.worktreePath]),
    );
    ctx.log.info(
      result.created ? `made task ${record.taskId}` : `task ${record.taskId} exists already; nothing changed`,
    );
  }
  return 0;
}
