import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import { joinPosix } from "../../paths.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import { compareBytewise, validateRequestNames } from "../../worktree/_deps.ts";
import type { WorktreeEntry } from "../../worktree/porcelain.ts";
import { diskBytes } from "./du.ts";
import { listWorktrees } from "./facts.ts";
import { indexEntries, nestedWork, statusPaths } from "./leg_facts.ts";
import { readAllTasks } from "./tasks.ts";
import { openWorkspace } from "./workspace.ts";

/**
 * One row of `list`: a leg of a task joined with what git and the disk say.
 * `status`: `active` (there, clean), `dirty` (there, with local changes), `missing` (the record
 * says active but the worktree is gone), `removed` / `snapshotted` (removed by ariel),
 * `orphaned` (a directory under the worktree root that git or the record no longer knows).
 */
export interface WorktreeRow {
  v: 1;
  type: "worktree";
  task: string;
  source: string | null;
  status: "active" | "dirty" | "missing" | "removed" | "snapshotted" | "orphaned" | "unknown";
  /** The leg's state in the record (null for an orphan). */
  state: string | null;
  branch: string | null;
  path: string;
  head: string | null;
  locked: boolean;
  lockReason: string | null;
  dirty: boolean | null;
  /** Allocated bytes on disk (links not followed); 0 when absent, null when not measured. */
  bytes: number | null;
  /** The sum of `bytes` over the task's legs (null when not measured). */
  taskBytes?: number | null;
  /** How the leg's post-create hooks went (absent: it has none). */
  setup?: "ok" | "failed" | "skipped";
  /** The task's leased ports by name (absent: it has none). */
  ports?: Record<string, number>;
}

export interface ListResult {
  rows: WorktreeRow[];
  /** Task records that could not be read (corrupt, foreign); reported, never touched. */
  problems: ArielError[];
}

/**
 * The workspace's tasks, one row per leg, plus orphaned directories under the worktree root.
 * A closed task with nothing left (no snapshotted leg) is left out (its record not even parsed)
 * unless `all`, `taskId` names it, or a directory of it is still under the worktree root.
 *
 * @example
 * ```ts
 * for (const row of (await listTasks(hostPorts(), { root: "/w" })).rows) console.log(row.task, row.status);
 * ```
 */
export async function listTasks(
  ports: Ports,
  options: { root: string; taskId?: string; bytes?: boolean; all?: boolean },
): Promise<ListResult> {
  validateRequestNames(options);
  const ws = await openWorkspace(ports, options.root);
  const taskDirs = (await ports.fs.readDir(ws.worktreeRoot).catch(() => []))
    .filter((e) => e.kind === "dir")
    .sort((a, b) => compareBytewise(a.name, b.name));
  const onDisk = new Set(taskDirs.map((e) => e.name));
  const { records, problems } = await readAllTasks(
    ws,
    options.taskId,
    options.all === true || options.taskId !== undefined ? undefined : (t) => onDisk.has(t),
  );
  if (options.taskId !== undefined && records.length === 0 && problems.length === 0) {
    throw new ArielError("ERR_TASK_NOT_FOUND", `no task ${quoteValue(options.taskId)} in ${ws.root}`, {
      context: { task: options.taskId },
    });
  }
  const wtsOf = worktreeLists(ports);
  const rows: WorktreeRow[] = [];
  const known = new Set<string>();
  const withBytes = options.bytes !== false;
  for (const rec of records) {
    for (const leg of rec.legs) {
      known.add(leg.worktreePath);
      const entry = (await wtsOf(leg.sourcePath)).find((w) => w.path === leg.worktreePath) ?? null;
      rows.push(await legRow(ports, rec, leg, entry, withBytes));
    }
  }
  if (options.taskId === undefined)
    rows.push(...(await orphanRows(ports, ws.worktreeRoot, taskDirs, known, withBytes)));
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.task, (totals.get(r.task) ?? 0) + (r.bytes ?? 0));
  for (const r of rows) r.taskBytes = withBytes ? (totals.get(r.task) ?? 0) : null;
  return { rows, problems };
}

/** `git worktree list` of each source, asked once (an empty list when git fails). */
function worktreeLists(ports: Ports): (source: string) => Promise<WorktreeEntry[]> {
  const lists = new Map<string, WorktreeEntry[]>();
  return async (source) => {
    let l = lists.get(source);
    if (!l) {
      l = await listWorktrees(ports, source).catch(() => []);
      lists.set(source, l);
    }
    return l;
  };
}

/** A leg's status from its record, git's entry (null: git knows no worktree there) and the disk. */
async function legStatus(
  ports: Ports,
  leg: Leg,
  entry: WorktreeEntry | null,
  present: boolean,
): Promise<{ status: WorktreeRow["status"]; dirty: boolean | null }> {
  if (leg.state === "removed" || leg.state === "snapshotted")
    return { status: present ? "orphaned" : leg.state, dirty: null };
  if (!present) return { status: "missing", dirty: null };
  if (!entry) return { status: "orphaned", dirty: null };
  const overlay = new Set(leg.overlay.map((o) => o.path));
  // A git status that fails says nothing about the worktree: never report it as clean.
  const paths = await statusPaths(ports, leg.worktreePath).catch(() => null);
  let dirty = paths === null ? null : paths.some((p) => !overlay.has(p));
  // Work in its submodules' own files counts too (found without git entering them).
  if (dirty === false && (await ports.fs.lstat(`${leg.worktreePath}/.gitmodules`)) !== null) {
    const wt = leg.worktreePath;
    const nested = await indexEntries(ports, wt)
      .then((index) => nestedWork(ports, wt, [], index))
      .catch(() => null);
    dirty = nested === null ? null : nested.length > 0;
  }
  return { status: dirty === null ? "unknown" : dirty ? "dirty" : "active", dirty };
}

/** The row of one leg of task record `rec`. */
async function legRow(
  ports: Ports,
  rec: TaskRecord,
  leg: Leg,
  entry: WorktreeEntry | null,
  withBytes: boolean,
): Promise<WorktreeRow> {
  const st = await ports.fs.lstat(leg.worktreePath);
  const present = st?.kind === "dir";
  const { status, dirty } = await legStatus(ports, leg, entry, present);
  return {
    v: 1,
    type: "worktree",
    task: rec.taskId,
    source: leg.source,
    status,
    state: leg.state,
    // What git has checked out now (null: detached); the record's branch only when git
    // knows no worktree there.
    branch: entry ? (entry.branch?.replace(/^refs\/heads\//, "") ?? null) : leg.branch,
    path: leg.worktreePath,
    head: entry?.head ?? leg.head,
    locked: entry?.locked != null,
    lockReason: entry?.locked ?? null,
    dirty,
    bytes: !withBytes ? null : present ? await diskBytes(ports, leg.worktreePath) : 0,
    ...(leg.setup ? { setup: leg.setup } : {}),
    ...(rec.ports ? { ports: rec.ports } : {}),
  };
}

/** The directories under the task directories that no record names: `orphaned` rows. */
async function orphanRows(
  ports: Ports,
  worktreeRoot: string,
  taskDirs: readonly { name: string }[],
  known: ReadonlySet<string>,
  withBytes: boolean,
): Promise<WorktreeRow[]> {
  const rows: WorktreeRow[] = [];
  for (const t of taskDirs) {
    const entries = await ports.fs.readDir(joinPosix(worktreeRoot, t.name)).catch(() => []);
    for (const l of entries.sort((a, b) => compareBytewise(a.name, b.name))) {
      const path = joinPosix(worktreeRoot, t.name, l.name);
      if (known.has(path)) continue;
      rows.push({
        v: 1,
        type: "worktree",
        task: t.name,
        source: null,
        status: "orphaned",
        state: null,
        branch: null,
        path,
        head: null,
        locked: false,
        lockReason: null,
        dirty: null,
        bytes: withBytes ? await diskBytes(ports, path) : null,
      });
    }
  }
  return rows;
}
