import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import type { WorkspaceVia } from "../../workspace.ts";
import { type ClaudeHookEvent, claudeTaskId } from "../../worktree/claude_hook.ts";
import { REFUSALS } from "../../worktree/refusals.ts";
import { addTask } from "./add.ts";
import { sourceOf } from "./adopt.ts";
import { listWorktrees } from "./facts.ts";
import { gitRaw } from "./git.ts";
import { type RemoveTaskResult, removeTask, requireTask, snapshotLeg, withTaskLease } from "./remove.ts";
import { writeTask } from "./store.ts";
import { readAllTasks } from "./tasks.ts";
import { openWorkspace, type WorktreeWorkspace } from "./workspace.ts";

/**
 * Where an event's directory (`base_path`, else `cwd`) really is: the path itself when it is a
 * directory, else its nearest ancestor that is one. Claude Code names the directory it would
 * make its worktrees in (`<repo>/.claude/worktrees`), which a fresh repository does not have
 * yet; the repository and the workspace are found from what exists. Relative paths are taken
 * from `cwd`.
 *
 * @example
 * ```ts
 * eventDir("/work/api/.claude/worktrees", "/"); // "/work/api" when only that exists
 * ```
 */
export function eventDir(dir: string | null, cwd: string): string {
  let at = resolve(cwd, dir ?? cwd);
  for (;;) {
    try {
      if (statSync(at).isDirectory()) return at;
    } catch {
      // not there (yet): its parent
    }
    const up = dirname(at);
    if (up === at) return cwd;
    at = up;
  }
}

type CreateEvent = Extract<ClaudeHookEvent, { event: "create" }>;
type RemoveEvent = Extract<ClaudeHookEvent, { event: "remove" }>;

/** The workspace source holding `dir`: its repository's main worktree, relative to the root. */
async function sourceNameOf(ws: WorktreeWorkspace, dir: string): Promise<string> {
  const top = await gitRaw(ws.ports, dir, ["rev-parse", "--show-toplevel"]);
  const main = top.code === 0 ? (await listWorktrees(ws.ports, top.stdout.trim()))[0]?.path : undefined;
  if (main === undefined) {
    throw new ArielError("ERR_SOURCE_NOT_FOUND", `${dir} is not inside a git checkout`, {
      context: { path: dir },
    });
  }
  const source = await sourceOf(ws, main);
  if (source === null) {
    throw new ArielError("ERR_SOURCE_NOT_FOUND", `${main} is no source of the workspace ${ws.root}`, {
      context: { path: main },
    });
  }
  return source.name;
}

/**
 * WorktreeCreate: make (or, repeated, return) the task named after Claude Code's worktree, with
 * one leg of the repository the event names, by the same code as `ariel-worktree add` (records,
 * overlay, lock). Its worktree path is what Claude Code gets.
 */
export async function claudeCreate(
  ports: Ports,
  options: { root: string; via: WorkspaceVia; event: CreateEvent },
): Promise<{ path: string; record: TaskRecord }> {
  const ws = await openWorkspace(ports, options.root);
  const source = await sourceNameOf(ws, eventDir(options.event.dir, ports.cwd));
  const { record } = await addTask(ports, {
    root: ws.root,
    via: options.via,
    taskId: claudeTaskId(options.event.name),
    sources: [source],
    ...(options.event.base !== null ? { base: options.event.base } : {}),
  });
  const leg = record.legs.find((l) => l.source === source)!;
  return { path: leg.worktreePath, record };
}

/** What WorktreeRemove did with the worktree. */
export type ClaudeRemoveResult =
  | { outcome: "removed"; task: string; leg: Leg }
  /** It held local work: saved under the snapshot ref, the worktree kept. */
  | { outcome: "kept"; task: string; leg: Leg; snapshot: { ref: string; commit: string } }
  /** A refusal no snapshot answers (a foreign lock, a branch mismatch…): nothing changed. */
  | { outcome: "refused"; task: string; leg: Leg; removal: RemoveTaskResult };

async function legAt(ws: WorktreeWorkspace, path: string): Promise<{ task: string; leg: Leg } | null> {
  const { records } = await readAllTasks(ws);
  for (const r of records) {
    const leg = r.legs.find((l) => l.worktreePath === path && l.state === "active");
    if (leg) return { task: r.taskId, leg };
  }
  return null;
}

/**
 * WorktreeRemove: remove the leg at `worktree_path` as `ariel-worktree remove` would; when only
 * local work stands in the way (refusals a snapshot answers), save it under
 * `refs/ariel/snapshots/<task>/<leg>` and keep the worktree: a dirty worktree is never deleted.
 * A path no task of the workspace holds is ERR_NOT_OURS (3), left alone.
 */
export async function claudeRemove(
  ports: Ports,
  options: { root: string; event: RemoveEvent },
): Promise<ClaudeRemoveResult> {
  const ws = await openWorkspace(ports, options.root);
  const path = await ports.fs.realpath(options.event.worktreePath).catch(() => options.event.worktreePath);
  const found = await legAt(ws, path);
  if (!found) {
    throw new ArielError(
      "ERR_NOT_OURS",
      `${quoteValue(path)} is a worktree of no ariel task in ${ws.root}; left alone`,
      {
        context: { path },
      },
    );
  }
  const { task, leg } = found;
  const removal = await removeTask(ports, { root: ws.root, taskId: task, sources: [leg.source] });
  if (!removal.refused) return { outcome: "removed", task, leg };
  const standing = removal.plan.legs.flatMap((l) => l.standing);
  if (!standing.every((r) => REFUSALS[r.reason].snapshot)) return { outcome: "refused", task, leg, removal };
  const snapshot = await withTaskLease(ports, ws, task, async (lease) => {
    const record = await requireTask(ws, task);
    const artifacts = [...record.artifacts];
    const snap = await snapshotLeg(ports, lease, task, leg, artifacts);
    await writeTask(ports, { ...record, artifacts }, record.version, lease);
    return { ref: snap.ref, commit: snap.commit };
  });
  return { outcome: "kept", task, leg, snapshot };
}
