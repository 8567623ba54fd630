/**
 * gc's `task.archive`, a batch of tasks at a time: the batch's records go to the archive in one
 * append and one fsync, then their lease files and records are deleted with one directory fsync
 * each. Crash points and why the batch size: docs/disk.md and decisions/0051.
 */
import { closeSync, constants, fstatSync, fsyncSync, openSync, readSync, writeSync } from "node:fs";
import { archivable } from "../../disk/gc.ts";
import { toArielError } from "../../errors.ts";
import { serializeRecord } from "../../ndjson.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { leasePath, leasesDir, tasksDir } from "../../state_paths.ts";
import { withFreeLeaseLocks } from "../lease-store.ts";
import { releaseTaskPorts } from "../lifecycle/port_registry.ts";
import { notRegular } from "../state-file.ts";
import { testPause } from "../test-hooks.ts";
import { readTask, taskRecordPath } from "../worktree/store.ts";
import type { WorktreeWorkspace } from "../worktree/workspace.ts";

/** Where archived task records go, one NDJSON line each (append-only). */
export const ARCHIVE_FILE = ".ariel/archive/tasks.ndjson";

/**
 * Tasks archived per batch. A kill -9 leaves at most this many records both archived and in
 * place (archived again, as the same line, by the next gc), and a batch holds this many lease
 * locks for a few milliseconds; past 64, the three fsyncs a batch costs are a small part of it.
 */
export const ARCHIVE_BATCH = 64;

/** What became of one task of the batch. */
export interface ArchiveOutcome {
  outcome: "done" | "skipped";
  reason?: { code: string; message: string };
  /** Skipped by a safety refusal (exit 3: a record that is not ours). */
  refused?: true;
}

/**
 * Archive the closed task records of `taskIds` (at most {@link ARCHIVE_BATCH} make sense at once),
 * holding their free lease locks throughout (a task whose lease is held is skipped, changing
 * nothing). Each record is read again under its lock; one that is no longer archivable (the
 * task changed) is skipped. In order, so that a crash anywhere loses no record and leaves no
 * lease without its record: append the records to {@link ARCHIVE_FILE} and fsync it; delete
 * their lease files and fsync `.ariel/leases`; delete the records and fsync `.ariel/tasks`.
 * Returns an outcome per task id.
 *
 * @example
 * ```ts
 * const outcomes = await archiveTasks(ws, ["t1", "t2"]);
 * outcomes.get("t1"); // { outcome: "done" }
 * ```
 */
export async function archiveTasks(
  ws: WorktreeWorkspace,
  taskIds: readonly string[],
): Promise<Map<string, ArchiveOutcome>> {
  const fs = ws.ports.fs;
  const out = new Map<string, ArchiveOutcome>();
  const skip = (taskId: string, e: unknown) => {
    const err = toArielError(e);
    out.set(taskId, {
      outcome: "skipped",
      reason: { code: err.code, message: err.message },
      ...(err.exit === 3 ? { refused: true as const } : {}),
    });
  };
  await withFreeLeaseLocks(ws.root, taskIds, { clock: ws.ports.clock, fs }, async (free, busy) => {
    for (const b of busy) skip(b.taskId, b.error);
    const records: TaskRecord[] = [];
    for (const { taskId } of free) {
      let record: TaskRecord | null;
      try {
        record = await readTask(ws.root, ws.hash, taskId, fs);
      } catch (e) {
        const err = toArielError(e);
        if (err.exit !== 75 && err.exit !== 3) throw err;
        skip(taskId, err);
        continue;
      }
      if (record === null)
        out.set(taskId, { outcome: "done" }); // archived meanwhile
      else if (!archivable(record)) {
        out.set(taskId, {
          outcome: "skipped",
          reason: { code: "ERR_CONFLICT", message: "the task changed" },
        });
      } else records.push(record);
    }
    if (records.length === 0) return;
    // Appended first, then dropped: a crash in between leaves the records in place (a later gc
    // archives them again), never a record that is nowhere.
    const archive = `${ws.root}/${ARCHIVE_FILE}`;
    const dir = archive.slice(0, archive.lastIndexOf("/"));
    await fs.mkdirp(dir);
    if (appendDurably(archive, records.map((r) => `${serializeRecord({ ...r })}\n`).join(""))) {
      await fs.syncDir(dir);
    }
    await testPause("gc:after-archive-append");
    // The lease files before the records: a lease file without its record is what a crashed
    // add leaves (reconcile would delete the task's branch), a record without a lease file is
    // an ordinary closed task. Nobody can take these leases while their locks are held.
    for (const r of records) await fs.unlink(leasePath(ws.root, r.taskId));
    await fs.syncDir(leasesDir(ws.root));
    await testPause("gc:after-lease-drop");
    for (const r of records) await fs.unlink(taskRecordPath(ws.root, r.taskId));
    await fs.syncDir(tasksDir(ws.root));
    for (const r of records) out.set(r.taskId, { outcome: "done" });
  });
  // Closed tasks gave their ports back already; one whose removal crashed before that did not.
  const archived = [...out].filter(([, o]) => o.outcome === "done").map(([t]) => t);
  if (archived.length > 0) await releaseTaskPorts(ws.ports, { hash: ws.hash, tasks: archived });
  return out;
}

/**
 * Append `text` to the file at `path` with one write and one fsync; true when the file was new
 * (its directory entry still needs an fsync). When a crash cut the last append short, a newline
 * goes first, so the torn line stays a line of its own and the new records parse. A link or
 * anything but a regular file there is refused (ERR_NOT_REGULAR_FILE).
 */
function appendDurably(path: string, text: string): boolean {
  const flags =
    constants.O_RDWR |
    constants.O_APPEND |
    constants.O_CREAT |
    ((constants.O_NOFOLLOW as number | undefined) ?? 0);
  let fd: number;
  try {
    fd = openSync(path, flags, 0o644);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw notRegular(path, "symlink", "archive");
    if (code === "EISDIR") throw notRegular(path, "dir", "archive");
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(path, st.isDirectory() ? "dir" : "other", "archive");
    const last = Buffer.alloc(1);
    const torn = st.size > 0 && readSync(fd, last, 0, 1, st.size - 1) === 1 && last[0] !== 0x0a;
    const bytes = Buffer.from(torn ? `\n${text}` : text, "utf8");
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    return st.size === 0;
  } finally {
    closeSync(fd);
  }
}
