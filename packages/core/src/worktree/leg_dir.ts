import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";

const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The directory name of a task's leg for a source: `/` becomes `__` (so a task directory stays
 * one level deep and is itself a workspace), `.` (the root) becomes the root's basename when
 * that is a safe name, else `root`.
 *
 * @example
 * ```ts
 * legDirName("libs/api", "/w/app"); // "libs__api"
 * legDirName(".", "/w/app");        // "app"
 * legDirName(".", "/");             // "root"
 * ```
 */
export function legDirName(source: string, root: string): string {
  if (source === ".") {
    const base = root.replace(/\/+$/, "").split("/").pop() ?? "";
    return SAFE.test(base) && !base.endsWith(".lock") ? base : "root";
  }
  return source.split("/").join("__");
}

/**
 * Leg directory names for every source of a task; two sources mapping to one name are an
 * invalid request (exit 65) rather than a silent overwrite.
 */
export function legDirNames(sources: readonly string[], root: string): Map<string, string> {
  const bySource = new Map<string, string>();
  const seen = new Map<string, string>();
  for (const s of sources) {
    const dir = legDirName(s, root);
    const other = seen.get(dir);
    if (other !== undefined && other !== s) {
      throw new ArielError(
        "ERR_INVALID_NAME",
        `sources ${quoteValue(other)} and ${quoteValue(s)} would share the worktree directory ${quoteValue(dir)}`,
        { hint: "make the task in two steps, one per source", context: { sources: [other, s] } },
      );
    }
    seen.set(dir, s);
    bySource.set(s, dir);
  }
  return bySource;
}
