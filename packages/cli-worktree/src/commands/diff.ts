import { type ArgsDef, defineCommand, diffTask, type LegDiff, type RunContext } from "@ariel/core/host";
import { COMMON_ARGS, LEG_SOURCE_ARG, TASK_ARG, workspaceOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...TASK_ARG,
  ...LEG_SOURCE_ARG,
  stat: { type: "boolean", description: "add git's diffstat of each leg's commits" },
  patch: {
    type: "boolean",
    alias: "p",
    description: "add the patch: the commits', then the uncommitted work's",
  },
} as const satisfies ArgsDef;

/** `ariel-worktree diff`: what a task did, leg by leg, before it is landed. */
export const diffCommand = defineCommand({
  meta: {
    name: "diff",
    description: "review a task: per leg, commits ahead of its base, files changed, uncommitted work",
    usage: "--task ID [--source NAME...] [--stat] [--patch] [OPTIONS]",
    examples: [
      ["ariel-worktree diff --task t1", "each leg's commits (subjects), changed files and local work"],
      ["ariel-worktree diff --task t1 --patch | less", "the whole patch, leg by leg"],
      ["ariel-worktree diff --task t1 --json | jq -r '.commits[].subject'", "the subjects of every commit"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { ports, root } = await workspaceOf(ctx);
  const sources = ctx.args.source;
  const legs = await diffTask(ports, {
    root,
    taskId: ctx.args.task,
    ...(sources.length > 0 ? { sources } : {}),
    stat: ctx.args.stat === true,
    patch: ctx.args.patch === true,
  });
  for (const d of legs) {
    if (ctx.args.json) ctx.out.record({ ...d });
    else ctx.out.write(renderLeg(d));
  }
  return 0;
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

/** One leg for a person: a summary line, the commits, the files, the local work, then stat/patch. */
export function renderLeg(d: LegDiff): string {
  const lines = [
    `${d.source}\t${d.branch}\t${plural(d.commits.length, "commit")} ahead of ${d.base.slice(0, 12)}, ${plural(d.files.length, "file")} changed, ${d.uncommitted.length} uncommitted${d.state === "active" ? "" : ` (${d.state})`}`,
    ...d.commits.map((c) => `  commit ${c.commit.slice(0, 12)} ${c.subject}`),
    ...d.files.map((f) => `  ${f.status} ${f.path}\t+${f.added ?? "-"} -${f.deleted ?? "-"}`),
    ...d.uncommitted.map((p) => `  uncommitted ${p}`),
  ];
  let out = `${lines.join("\n")}\n`;
  if (d.stat) out += d.stat;
  if (d.patch) out += d.patch;
  return out;
}
