import { ArielError, toArielError } from "../../errors.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { taskOfStateFile, taskRecordPath, tasksDir } from "../../state_paths.ts";
import { compareBytewise } from "../../worktree/_deps.ts";
import { readTask, taskLooksSpent } from "./store.ts";
import type { WorktreeWorkspace } from "./workspace.ts";

/**
 * Every task record of the workspace (or only `taskId`'s), sorted by id, and the ones that could
 * not be read (corrupt, foreign: reported, never touched). `keepClosed` (default: all) decides
 * which closed records with nothing left (no snapshotted leg) are read: the others are left out
 * after a cheap look at their text, without being parsed or validated (`ariel-worktree list`
 * without `--all`). Each problem names its record's file (`context.file`), also when reading it
 * failed (EIO) rather than what it holds.
 */
export async function readAllTasks(
  ws: WorktreeWorkspace,
  taskId?: string,
  keepClosed?: (taskId: string) => boolean,
): Promise<{ records: TaskRecord[]; problems: ArielError[] }> {
  const names = (await ws.ports.fs.readDir(tasksDir(ws.root)).catch(() => []))
    .map((e) => (e.kind === "file" ? taskOfStateFile(e.name) : null))
    .filter((t): t is string => t !== null && (taskId === undefined || t === taskId))
    .sort(compareBytewise);
  const records: TaskRecord[] = [];
  const problems: ArielError[] = [];
  for (const t of names) {
    if (keepClosed && !keepClosed(t) && (await taskLooksSpent(ws.root, t, ws.ports.fs))) continue;
    try {
      const r = await readTask(ws.root, ws.hash, t, ws.ports.fs);
      if (r) records.push(r);
    } catch (e) {
      problems.push(withFile(toArielError(e), taskRecordPath(ws.root, t)));
    }
  }
  return { records, problems };
}

/** `e` with `context.file` set to `file` when it names no file or path of its own. */
function withFile(e: ArielError, file: string): ArielError {
  if (e.context.file !== undefined || e.context.path !== undefined) return e;
  return new ArielError(e.code, e.message, {
    hint: e.hint,
    exit: e.exit,
    context: { ...e.context, file },
    cause: e.cause,
  });
}
