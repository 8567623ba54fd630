import { plural, type RunState, shellWords, type WorkspaceView } from "@ariel/core";
import { defineCommand, gatherFleet, type RunContext, renderRows } from "@ariel/core/host";
import { COMMON_ARGS, workspacesOf } from "./_common.ts";

const args = COMMON_ARGS;

/** `ariel-fleet status`: the FleetSnapshot of every known workspace. */
export const statusCommand = defineCommand({
  meta: {
    name: "status",
    description: "every workspace with its health, sources, tasks and runs by state",
    usage: "[--workspace DIR]... [--json]",
    examples: [
      ["ariel-fleet status", "a table of every registered workspace"],
      ["ariel-fleet status --workspace ~/ws --json", "the FleetSnapshot as one NDJSON record, with ~/ws too"],
      [
        "ariel-fleet status --json | jq -r '.workspaces[] | select(.health != \"ok\") | .root'",
        "the roots that need a look",
      ],
    ],
  },
  args,
  run,
});

function counts(c: Record<string, number>): string {
  const parts = Object.entries(c)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  return parts.length > 0 ? parts.join(", ") : "-";
}

function row(w: WorkspaceView): string[] {
  return [
    w.root,
    w.hash,
    w.health,
    String(w.sources),
    counts(w.tasks),
    counts(w.runs as Record<RunState, number>) + (w.sandboxed > 0 ? ` (${w.sandboxed} sandboxed)` : ""),
  ];
}

/** A workspace with runs that kept their worktrees: how many, and where to see each with its next command. */
function keptLine(w: WorkspaceView): string | null {
  if (w.kept === 0) return null;
  const runs = `${plural(w.kept, "run")} kept ${w.kept === 1 ? "its worktree" : "their worktrees"}`;
  return `${w.root}: ${runs}; see each with its next command: ${shellWords(["ariel-runs", "list", "-C", w.root])}`;
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { workspaces, problems } = await workspacesOf(ctx)();
  for (const p of problems) ctx.log.warn(p.code, p.message, p.context);
  const snapshot = await gatherFleet(workspaces, Date.now());
  if (ctx.args.json) ctx.out.record({ ...snapshot });
  else if (snapshot.workspaces.length === 0) {
    ctx.log.info(
      "no workspaces: none is registered yet (a workspace registers with its first ariel command); pass --workspace DIR",
    );
  } else {
    ctx.out.write(
      renderRows(
        ["ROOT", "HASH", "HEALTH", "SOURCES", "TASKS", "RUNS"],
        snapshot.workspaces.map(row),
        ctx.term.stdout,
      ),
    );
    for (const line of snapshot.workspaces.map(keptLine)) if (line !== null) ctx.log.info(line);
  }
  return problems.length > 0 ? 1 : 0;
}
