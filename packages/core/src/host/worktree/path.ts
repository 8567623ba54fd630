import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { taskDirPath } from "../../state_paths.ts";
import { didYouMean } from "../../suggest.ts";
import { validateTaskId } from "../../worktree/_deps.ts";
import { readTask } from "./store.ts";
import { openWorkspace } from "./workspace.ts";

/** Input of {@link taskPath}. */
export interface TaskPathOptions {
  root: string;
  taskId: string;
  /** The leg's source; absent: the only leg, or the task directory when there are several. */
  source?: string;
}

function unknown(message: string, hint: string, context: Record<string, unknown>): ArielError {
  return new ArielError("ERR_PATH_UNKNOWN", message, { hint, context });
}

/**
 * Where to `cd` for a task: the path of its leg for `source`, else of its only leg, else the
 * task directory (which holds every leg made by `add`). An unknown task, an unknown source or a
 * leg that is not on disk is ERR_PATH_UNKNOWN (exit 1, as `which` says "not found").
 *
 * @example
 * ```ts
 * await taskPath(hostPorts(), { root: "/w", taskId: "t1", source: "api" }); // "/w/.ariel/worktrees/t1/api"
 * ```
 */
export async function taskPath(ports: Ports, options: TaskPathOptions): Promise<string> {
  validateTaskId(options.taskId);
  const ws = await openWorkspace(ports, options.root);
  const record = await readTask(ws.root, ws.hash, options.taskId);
  if (!record || record.state === "closed") {
    throw unknown(
      `no open task ${quoteValue(options.taskId)} in ${ws.root}`,
      "ariel-worktree list shows the open tasks",
      {
        task: options.taskId,
      },
    );
  }
  if (options.source === undefined && record.legs.length > 1) {
    return onDisk(ports, taskDirPath(ws.worktreeRoot, record.taskId), { task: record.taskId });
  }
  const leg = pickLeg(record, options.source);
  if (leg.state !== "active") {
    throw unknown(
      `leg ${quoteValue(leg.source)} of task ${quoteValue(record.taskId)} is ${leg.state}`,
      `bring it back with ariel-worktree restore --task ${record.taskId} --source ${leg.source}`,
      { task: record.taskId, source: leg.source, state: leg.state },
    );
  }
  return onDisk(ports, leg.worktreePath, { task: record.taskId, source: leg.source });
}

/**
 * `path` when it is a directory (not through a link, as verify checks a leg): a leg deleted
 * behind ariel's back is "not found" here, not a path that `cd` then fails on.
 */
async function onDisk(
  ports: Ports,
  path: string,
  context: { task: string; source?: string },
): Promise<string> {
  if ((await ports.fs.lstat(path))?.kind === "dir") return path;
  const what = context.source === undefined ? "" : `leg ${quoteValue(context.source)} of `;
  const restore = `ariel-worktree restore --task ${context.task}${context.source === undefined ? "" : ` --source ${context.source}`}`;
  throw unknown(
    `${what}task ${quoteValue(context.task)} is not on disk: ${path} is missing`,
    `ariel-worktree reconcile marks it missing, then ${restore} makes it again`,
    { ...context, path },
  );
}

function pickLeg(record: TaskRecord, source: string | undefined): TaskRecord["legs"][number] {
  const leg = source === undefined ? record.legs[0] : record.legs.find((l) => l.source === source);
  if (leg) return leg;
  const names = record.legs.map((l) => l.source);
  const suggestion = didYouMean(source ?? "", names);
  throw unknown(
    `task ${quoteValue(record.taskId)} has no leg for source ${quoteValue(source ?? "")}`,
    `${suggestion ? `${suggestion} ` : ""}its sources are: ${names.join(", ")}`,
    { task: record.taskId, source },
  );
}
