import { ArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import { TASK_RECORD_HARD_LIMIT, type TaskRecord, taskRecordSchema } from "../../schema/task.ts";
import { readRecord, writeRecordCAS } from "./_deps.ts";

/** `<root>/.ariel/tasks/<task>.json` */
export function taskRecordPath(root: string, taskId: string): string {
  return `${root}/.ariel/tasks/${taskId}.json`;
}

/**
 * Read and validate a task record; null when there is none. A record that does not parse, is
 * too large, or belongs to another task or workspace fails closed: nothing is changed and the
 * error says which file to look at.
 *
 * @example
 * ```ts
 * const record = await readTask(ports, root, hash, "fix-login");
 * ```
 */
export async function readTask(
  ports: Ports,
  root: string,
  hash: string,
  taskId: string,
): Promise<TaskRecord | null> {
  const path = taskRecordPath(root, taskId);
  const raw = await readRecord(ports, path);
  if (raw === null) return null;
  const corrupt = (why: string) =>
    new ArielError("ERR_INVALID_INPUT", `task record ${path} is corrupt: ${why}`, {
      hint: "move the file aside and run ariel-worktree reconcile; nothing was changed",
      context: { task: taskId, path },
    });
  if (raw.text.length > TASK_RECORD_HARD_LIMIT) throw corrupt(`larger than ${TASK_RECORD_HARD_LIMIT} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(raw.text);
  } catch (e) {
    throw corrupt(`not JSON (${(e as Error).message.split("\n")[0]})`);
  }
  const parsed = taskRecordSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? issue.path.join(".") : "(top)";
    throw corrupt(`${at}: ${issue?.message ?? "invalid"}`);
  }
  const record = parsed.data;
  if (record.taskId !== taskId || record.workspace.root !== root || record.workspace.hash !== hash) {
    throw new ArielError("ERR_NOT_OURS", `task record ${path} belongs to another task or workspace`, {
      hint: `it names task '${record.taskId}' in ${record.workspace.root}; move it aside, nothing was changed`,
      context: { task: taskId, path, recordTask: record.taskId, recordRoot: record.workspace.root },
    });
  }
  return record;
}

/**
 * Write a task record by compare-and-swap: `expectedVersion` is the version read (null for a new
 * record); the written record carries version + 1 and the lease's fencing token.
 */
export async function writeTask(
  ports: Ports,
  record: TaskRecord,
  expectedVersion: number | null,
  fencingToken: number,
): Promise<TaskRecord> {
  const next: TaskRecord = {
    ...record,
    version: expectedVersion === null ? 1 : expectedVersion + 1,
    fencingToken,
    updatedAt: new Date(ports.clock.now()).toISOString(),
  };
  await writeRecordCAS(ports, taskRecordPath(record.workspace.root, record.taskId), next, expectedVersion);
  return next;
}
