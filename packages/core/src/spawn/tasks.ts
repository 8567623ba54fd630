import { slugify, validateTaskId } from "../names.ts";
import type { SpawnSource } from "./resolve.ts";

/** The sources one task of an isolated run spans, and its id when pinned (else generated from the first source). */
export interface TaskSlice {
  taskId?: string;
  sources: SpawnSource[];
}

/**
 * How an isolated run splits its targets into tasks: one task per source (named after it, so a
 * repository's branches only ever name its own work), or one task over all of them with
 * `span` (one process in the task directory) or a single target. A pinned `taskId` P names the
 * one task, or each source's as `P-<source>` (the source's name as a slug; `.` is `root`).
 *
 * @example
 * ```ts
 * const api = { name: "api", path: "/w/api", checkout: true };
 * const web = { name: "libs/web", path: "/w/libs/web", checkout: true };
 * splitTasks([api, web], { taskId: "fix", span: false }).map((t) => t.taskId); // ["fix-api", "fix-libs-web"]
 * splitTasks([api, web], { span: true }).map((t) => t.sources.length);         // [2]
 * ```
 */
export function splitTasks(
  targets: readonly SpawnSource[],
  iso: { taskId?: string; span: boolean },
): TaskSlice[] {
  const pinned = iso.taskId;
  if (iso.span || targets.length <= 1) {
    return [{ ...(pinned !== undefined ? { taskId: pinned } : {}), sources: [...targets] }];
  }
  return targets.map((t) => ({
    ...(pinned !== undefined ? { taskId: sourceTaskId(pinned, t.name) } : {}),
    sources: [t],
  }));
}

/** `P-<source>`: the task of one source in a fan-out pinned to `P` (ERR_INVALID_TASK_ID when too long). */
export function sourceTaskId(prefix: string, source: string): string {
  return validateTaskId(`${prefix}-${slugify(source === "." ? "root" : source)}`);
}
