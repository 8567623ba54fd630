import {
  ArielError,
  checkShareNames,
  discoverLookup,
  lockReason,
  type Ports,
  parseShareMode,
  parseSize,
  sourceAtCwd,
} from "@ariel/core";
import {
  type ArgsDef,
  addTask,
  defineCommand,
  describeUsers,
  type RunContext,
  reportHooks,
  retryHooksCommand,
  shareLegs,
  taskUsers,
  warnWithHint,
} from "@ariel/core/host";
import {
  COMMON_ARGS,
  dryRunExit,
  MUTATING_ARGS,
  NO_HOOKS_ARG,
  printLifecyclePlan,
  printRows,
  rootArg,
  withProgress,
  workspaceOf,
} from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...MUTATING_ARGS,
  ...NO_HOOKS_ARG,
  task: { type: "string", valueHint: "ID", description: "task id (default: <first source>-<6 chars>)" },
  source: {
    type: "string",
    multiple: true,
    valueHint: "NAME",
    description:
      "a source of the workspace ('.' for the root); repeatable, one leg each (default: the source the cwd is in, else the root)",
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
  "with-changes": {
    type: "boolean",
    description: "carry each source's uncommitted changes (staged, unstaged, untracked) into its leg",
  },
  sparse: {
    type: "string",
    multiple: true,
    valueHint: "PATH",
    description: "cone-mode sparse checkout: only these directories (and top-level files); repeatable",
  },
  share: {
    type: "string",
    multiple: true,
    valueHint: "DIR",
    description:
      "give each leg its source's DIR (e.g. node_modules) as hardlinks when the lockfiles match; repeatable (default: config share)",
  },
  "share-mode": {
    type: "string",
    valueHint: "MODE",
    description:
      "how --share reaches a leg: tree (its own directories, files hardlinked) or store (links into one store per lockfile; docs/disk.md) (default: config shareMode, else tree)",
  },
  "min-free": {
    type: "string",
    valueHint: "SIZE",
    description:
      "refuse (exit 75) when the worktree root has less disk free, e.g. 5G (default: config minFreeBytes)",
  },
} as const satisfies ArgsDef;

/** `ariel-worktree add`: one locked worktree per source for a task. */
export const addCommand = defineCommand({
  meta: {
    name: "add",
    description: "make a task: one locked worktree per source on branch ariel/<task>",
    usage: "--source NAME... [--task ID] [--base REF] [--branch NAME] [--with-changes] [OPTIONS]",
    examples: [
      ["ariel-worktree add --source api --task t1", "make task t1: a worktree of api on branch ariel/t1"],
      ["ariel-worktree add --source api --source web --base main", "one task over two sources, from main"],
      ["ariel-worktree add -n --json --source api --task t1", "print the plan as NDJSON, change nothing"],
    ],
  },
  args,
  run,
});

/**
 * No --source: the source the cwd is in (as ariel-spawn and git find it), else the workspace
 * root when it is a checkout; a bare root needs a name.
 */
async function defaultSource(ports: Ports, root: string): Promise<string[]> {
  const lookup = discoverLookup(ports.fs, root);
  const here = (await sourceAtCwd(ports.fs, { root, cwd: ports.cwd, lookup })) ?? (await lookup("."));
  if (here?.checkout) return [here.name];
  throw new ArielError("ERR_USAGE", "add needs at least one --source NAME", {
    hint: "name a source of the workspace: ariel-worktree add --source NAME (ariel-discover lists them), or run it from inside one",
  });
}

/** An existing task stays what it is (exit 0); say which live runs work in it (WARN_TASK_IN_USE). */
async function sayWhoWorksIn(ctx: RunContext<typeof args>, root: string, taskId: string): Promise<void> {
  const users = await taskUsers(root, taskId);
  if (users.length === 0) return;
  ctx.log.warn(
    "WARN_TASK_IN_USE",
    `task ${taskId} exists already and ${describeUsers(users)} ${users.length === 1 ? "works" : "work"} in it`,
    {
      task: taskId,
      runs: users.map((u) => u.runId),
      hint: `its worktrees are shared with that run: ariel-runs wait ${users[0]?.ref} before changing them`,
    },
  );
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { ports, root, via } = await workspaceOf(ctx);
  const { task: taskId, base, branch } = ctx.args;
  const sources = ctx.args.source.length > 0 ? ctx.args.source : await defaultSource(ports, root);
  checkShareNames(ctx.args.share);
  const shareMode = ctx.args["share-mode"] !== undefined ? parseShareMode(ctx.args["share-mode"]) : undefined;
  const minFree = ctx.args["min-free"];
  const dryRun = ctx.args["dry-run"] === true;
  let sharing: Awaited<ReturnType<typeof shareLegs>> | null = null;
  const result = await withProgress(ctx, (onProgress) =>
    addTask(ports, {
      root,
      via,
      sources,
      dryRun,
      ...(taskId !== undefined ? { taskId } : {}),
      ...(base !== undefined ? { base } : {}),
      ...(branch !== undefined ? { branch } : {}),
      ...(ctx.args["with-changes"] === true ? { withChanges: true } : {}),
      ...(ctx.args.sparse.length > 0 ? { sparse: ctx.args.sparse } : {}),
      ...(minFree !== undefined ? { minFreeBytes: parseSize(minFree, "--min-free") } : {}),
      ...(ctx.args["no-hooks"] === true ? { noHooks: true } : {}),
      beforeHooks: async (made) => {
        sharing = await shareLegs(ports, root, made.legs, ctx.args.share, shareMode);
      },
      onProgress,
    }),
  );
  const { record, plan } = result;
  for (const w of result.warnings) warnWithHint(ctx.log, w);
  if (plan.kind === "existing") await sayWhoWorksIn(ctx, root, record.taskId);
  if (dryRun) return printPlan(ctx, result, taskId === undefined);
  if (sharing) reportSharing(ctx, sharing as Awaited<ReturnType<typeof shareLegs>>);
  return reportMade(ctx, result, rootArg(ctx, root, via).root);
}

type AddResult = Awaited<ReturnType<typeof addTask>>;

/** The dry run's plan: a `plan` record (or a row) per leg it would make; exit 2 with -D when any. */
function printPlan(ctx: RunContext<typeof args>, result: AddResult, generated: boolean): number {
  const { record, plan } = result;
  const legs = plan.kind === "create" ? plan.legs : [];
  if (ctx.args.json) {
    for (const leg of legs) {
      const planned = record.legs.find((l) => l.source === leg.source);
      ctx.out.record({
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
      });
    }
  } else {
    printRows(
      ctx,
      ["ACTION", "TASK", "SOURCE", "BRANCH", "PATH"],
      legs.map((l) => ["add", record.taskId, l.source, l.branch, l.worktreePath]),
    );
  }
  printLifecyclePlan(ctx, record.taskId, result.lifecycle);
  if (legs.length === 0) ctx.log.info(`task ${record.taskId} exists already; nothing to do`);
  else if (generated) {
    ctx.log.info(
      `task id ${record.taskId} was generated for this plan; add --task ${record.taskId} to make exactly this`,
    );
  }
  return dryRunExit(ctx, legs.length);
}

/** What --share did for each leg, and its warnings. */
function reportSharing(ctx: RunContext<typeof args>, sharing: Awaited<ReturnType<typeof shareLegs>>): void {
  for (const s of sharing.shared) {
    ctx.log.info(
      s.store
        ? `${s.source}: ${s.name} shared through store ${s.store.key}${s.store.made ? " (made now)" : ""} (${s.files} files hardlinked into the worktree)`
        : `${s.source}: ${s.name} shared from the source (${s.files} files hardlinked)`,
    );
  }
  for (const w of sharing.warnings) warnWithHint(ctx.log, w);
}

/** The task made (or found): its hooks, its record or rows, and the closing line; exit 1 when a setup failed. */
function reportMade(ctx: RunContext<typeof args>, result: AddResult, root: string | undefined): number {
  const { record } = result;
  const failed = reportHooks(ctx.log, result.hooks, {
    task: record.taskId,
    ...(root !== undefined ? { root } : {}),
  });
  if (ctx.args.json) ctx.out.record({ ...record });
  else {
    printRows(
      ctx,
      ["TASK", "SOURCE", "BRANCH", "PATH"],
      record.legs.map((l) => [record.taskId, l.source, l.branch, l.worktreePath]),
    );
    if (failed === 0) {
      ctx.log.info(
        result.created
          ? `made task ${record.taskId}`
          : `task ${record.taskId} exists already; nothing changed`,
      );
    }
  }
  if (failed > 0) {
    const legs = record.legs.filter((l) => l.setup === "failed").map((l) => l.source);
    ctx.log.info(
      `made task ${record.taskId}, but its setup failed in ${legs.join(", ")} (the legs are kept); log: ${result.hooks?.log}; retry: ${retryHooksCommand(record.taskId, "post-create", root)}`,
    );
    return 1;
  }
  return 0;
}
