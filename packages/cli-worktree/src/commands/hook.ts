import { ArielError, CLAUDE_PAYLOAD_MAX_BYTES, didYouMean, parseClaudeHook, shellWords } from "@ariel/core";
import {
  type ArgsDef,
  claudeCreate,
  claudeRemove,
  defineCommand,
  eventDir,
  type RunContext,
} from "@ariel/core/host";
import { COMMON_ARGS, refusalError, workspaceOf } from "./_common.ts";

const AGENTS = ["claude"] as const;

const args = {
  ...COMMON_ARGS,
  agent: { type: "positional", valueHint: "claude", description: "whose hook event is on stdin" },
} as const satisfies ArgsDef;

/** `ariel-worktree hook claude`: ariel as Claude Code's WorktreeCreate/WorktreeRemove backend. */
export const hookCommand = defineCommand({
  meta: {
    name: "hook",
    description:
      "handle an agent's worktree hook event on stdin (claude: WorktreeCreate prints the new worktree's path)",
    usage: "claude [OPTIONS] < EVENT.json",
    examples: [
      [
        "ariel-worktree hook claude < create.json",
        "WorktreeCreate: make the task, print only its worktree's path",
      ],
      [
        "ariel-worktree hook claude < remove.json",
        "WorktreeRemove: remove it, or snapshot its local work and keep it",
      ],
    ],
  },
  args,
  run,
});

/** stdin as text, at most `limit` bytes read (a longer event is refused by its parser). */
async function readStdin(stdin: AsyncIterable<Uint8Array | string>, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
    size += bytes.length;
    chunks.push(bytes);
    if (size > limit) break;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  if (ctx.args.agent !== "claude") {
    const suggestion = didYouMean(ctx.args.agent, AGENTS);
    throw new ArielError("ERR_USAGE", `unknown agent ${JSON.stringify(ctx.args.agent)}`, {
      hint: `${suggestion ? `${suggestion} ` : ""}use one of: ${AGENTS.join(", ")}`,
    });
  }
  const event = parseClaudeHook(await readStdin(ctx.stdin, CLAUDE_PAYLOAD_MAX_BYTES + 1));
  // The root from the event's directory (Claude Code's project, or the worktree itself) unless
  // -C or ARIEL_WORKSPACE_ROOT names one.
  // A directory that does not exist yet (Claude Code's `.claude/worktrees` in a fresh
  // repository) is looked up from its nearest existing ancestor.
  const { ports, root, via } = await workspaceOf({ ...ctx, cwd: eventDir(event.dir, ctx.cwd) });
  if (event.event === "create") {
    const { path, record } = await claudeCreate(ports, { root, via, event });
    ctx.out.write(`${path}\n`);
    ctx.log.info(`task ${record.taskId}: worktree ${path}`);
    return 0;
  }
  const r = await claudeRemove(ports, { root, event });
  if (r.outcome === "removed") {
    ctx.log.info(`task ${r.task}: removed ${r.leg.worktreePath} (branch ${r.leg.branch} kept)`);
    return 0;
  }
  if (r.outcome === "kept") {
    ctx.log.warn(
      "W_KEPT_WORK",
      `${r.leg.worktreePath} holds local work: saved at ${r.snapshot.ref}, worktree kept`,
      {
        task: r.task,
        source: r.leg.source,
        snapshotRef: r.snapshot.ref,
        snapshotCommit: r.snapshot.commit,
      },
    );
    ctx.log.info(`kept ${r.leg.source} (local work): ariel-worktree remove --task ${r.task} --snapshot`);
    return 0;
  }
  for (const l of r.removal.plan.legs) {
    for (const x of l.standing) {
      // The hook takes no --allow nor --snapshot: the hint names the command that does, whole.
      const hint = `${shellWords(["ariel-worktree", "remove", "-n", "--task", r.task, "--source", l.source])} shows what stands in the way and how past it; nothing was changed`;
      const err = refusalError(x.code, x.message, { task: r.task, source: l.source, reason: x.reason });
      ctx.log.error(new ArielError(err.code, err.message, { hint, context: err.context }));
    }
  }
  return 3;
}
