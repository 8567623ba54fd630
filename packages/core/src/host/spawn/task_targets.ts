import type { Ports } from "../../ports.ts";
import type { TargetSpec } from "../../spawn/targets.ts";
import type { Workspace } from "../../workspace.ts";
import { readTask } from "../worktree/store.ts";
import type { IsolateRequest } from "./run.ts";

/**
 * `--isolate --task T` without `--source`, T an existing task: T's own legs are the targets
 * (every source it spans, in its order), and a task of several legs runs as one process in the
 * task directory, as `--span` asks (decision 0105). Null when no `--task` was given or T does not
 * exist yet (a new task: the source the cwd is in, as before).
 *
 * @example
 * ```ts
 * await existingTaskTargets(ports, ws, { taskId: "login", span: false, onExit: "remove" });
 * // { targets: [{ kind: "name", name: "api", … }, { kind: "name", name: "web", … }],
 * //   isolate: { taskId: "login", span: true, onExit: "remove" } }
 * ```
 */
export async function existingTaskTargets(
  ports: Ports,
  ws: Pick<Workspace, "root" | "hash">,
  iso: IsolateRequest,
): Promise<{ targets: TargetSpec[]; isolate: IsolateRequest } | null> {
  if (iso.taskId === undefined) return null;
  const record = await readTask(ws.root, ws.hash, iso.taskId, ports.fs);
  if (record === null || record.legs.length === 0) return null;
  const origin = `--task ${iso.taskId}`;
  return {
    targets: record.legs.map((l) => ({ kind: "name" as const, name: l.source, origin })),
    isolate: record.legs.length > 1 ? { ...iso, span: true } : iso,
  };
}
