import * as z from "zod/mini";
import { ArielError } from "../../errors.ts";
import { RECORD_HARD_MAX_BYTES } from "../../limits.ts";
import { quoteValue } from "../../names.ts";
import type { FsPort, Ports } from "../../ports.ts";
import { formatIssue } from "../../schema/issues.ts";
import { type TaskRecord, taskRecordSchema } from "../../schema/task.ts";
import { taskRecordPath } from "../../state_paths.ts";
import { nodeFs } from "../fs.ts";
import { type Lease, readRecord, writeRecordCAS } from "./_deps.ts";

export { taskRecordPath };

function parseTask(value: unknown): TaskRecord {
  const r = z.safeParse(taskRecordSchema(), value);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  throw new Error(first ? formatIssue(first) : "not a task record");
}

/**
 * Read and validate a task record; null when there is none. A record that does not parse
 * (ERR_RECORD_CORRUPT, 65) or belongs to another task or workspace (ERR_NOT_OURS, 3) fails
 * closed: nothing is changed, and the error names the file.
 *
 * @example
 * ```ts
 * const record = await readTask(root, hash, "fix-login");
 * ```
 */
export async function readTask(
  root: string,
  hash: string,
  taskId: string,
  fs: FsPort = nodeFs,
): Promise<TaskRecord | null> {
  const path = taskRecordPath(root, taskId);
  let record: TaskRecord | null;
  try {
    record = await readRecord<TaskRecord>(path, { parse: parseTask, fs });
  } catch (e) {
    if (e instanceof ArielError && e.code === "ERR_RECORD_CORRUPT") {
      throw new ArielError("ERR_RECORD_CORRUPT", `task record ${e.message}`, {
        hint: "move the file aside (ariel-worktree reconcile reports it); nothing was changed",
        context: { ...e.context, task: taskId },
      });
    }
    throw e;
  }
  if (record === null) return null;
  if (record.taskId !== taskId || record.workspace.root !== root || record.workspace.hash !== hash) {
    throw new ArielError("ERR_NOT_OURS", `task record ${path} belongs to another task or workspace`, {
      hint: `it names task ${quoteValue(record.taskId)} in ${record.workspace.root}; move it aside (nothing was changed)`,
      context: { task: taskId, path, recordTask: record.taskId, recordRoot: record.workspace.root },
    });
  }
  return record;
}

// The task's own `state` (a leg's state is never "closed"); a quote inside a string value is
// escaped, so text in an owner or a ref cannot match.
const CLOSED_STATE = /"state":\s*"closed"/;

// A leg removed with a snapshot: the work lives on under refs/ariel/snapshots/ until restored.
const SNAPSHOTTED_LEG = /"state":\s*"snapshotted"/;

/**
 * Whether the task record of `taskId` says the task is closed with nothing left in it (no leg
 * snapshotted), from its text alone (no JSON parse, no validation): `list` hides such tasks
 * unless --all. A record that cannot be read is not spent here, so that the full read
 * ({@link readTask}) reports it.
 *
 * @example
 * ```ts
 * if (await taskLooksSpent(root, "fix-login")) console.log("closed, nothing left");
 * ```
 */
export async function taskLooksSpent(root: string, taskId: string, fs: FsPort = nodeFs): Promise<boolean> {
  const r = await fs.readFileNoFollow(taskRecordPath(root, taskId), RECORD_HARD_MAX_BYTES).catch(() => null);
  if (r === null || r.info.kind !== "file" || r.bytes === null) return false;
  const text = new TextDecoder().decode(r.bytes);
  return CLOSED_STATE.test(text) && !SNAPSHOTTED_LEG.test(text);
}

/**
 * Write a task record by compare-and-swap under `lease`, as one fenced step (the lease proved and
 * held while the record is written): `expectVersion` is the version read (0 for a new record);
 * the stored record carries version + 1 and the lease's fencing token.
 */
export async function writeTask(
  ports: Ports,
  record: TaskRecord,
  expectVersion: number,
  lease: Lease,
): Promise<TaskRecord> {
  const next: TaskRecord = { ...record, updatedAt: new Date(ports.clock.now()).toISOString() };
  const path = taskRecordPath(record.workspace.root, record.taskId);
  return lease.fenced(async () => {
    await ports.fs.mkdirp(path.slice(0, path.lastIndexOf("/")));
    return writeRecordCAS(path, next, {
      expectVersion,
      token: lease.token,
      leasePath: lease.path,
      fs: ports.fs,
    });
  });
}
