import { ArielError } from "../errors.ts";
import { MAX_LEGS, RECORD_MAX_BYTES, recordBytes } from "../limits.ts";
import { quoteValue } from "../names.ts";
import type { Leg } from "../schema/task.ts";
import { newTaskRecord } from "./record.ts";

/** What the bounds of a new task depend on, per leg: all known before git is touched. */
export interface BoundLeg {
  name: string;
  /** Canonical path of the source checkout. */
  path: string;
  worktreePath: string;
  baseCommit: string;
  /** Overlay paths that would be copied (and recorded with their sha256). */
  overlay: readonly string[];
}

/** The task a bound check is about. */
export interface BoundTask {
  taskId: string;
  branch: string;
  /** Canonical workspace root (recorded in the record). */
  root?: string;
  /** The owner that would be recorded. */
  owner?: string;
}

// The widest values a record can hold where the plan cannot know the real one yet: a token and a
// version of 16 digits, an ISO time with milliseconds, a sha256 per overlay file.
const WIDEST_INT = Number.MAX_SAFE_INTEGER;
const SOME_TIME = "2026-01-01T00:00:00.000Z";
const SHA256 = "0".repeat(64);

/**
 * The size in bytes of the record a new task would be written with, at its widest: the real
 * record can only be smaller. Pure; the plan uses it to refuse a task before git is touched.
 *
 * @example
 * ```ts
 * taskRecordBytesAtMost({ taskId: "t", branch: "ariel/t" }, [{ name: "api", path: "/w/api",
 *   worktreePath: "/w/.ariel/worktrees/t/api", baseCommit: "a".repeat(40), overlay: [".env"] }]); // ~800
 * ```
 */
export function taskRecordBytesAtMost(task: BoundTask, legs: readonly BoundLeg[]): number {
  const out: Leg[] = legs.map((l) => ({
    source: l.name,
    sourcePath: l.path,
    fingerprint: SHA256,
    branch: task.branch,
    base: l.baseCommit,
    head: l.baseCommit,
    worktreePath: l.worktreePath,
    overlay: l.overlay.map((path) => ({ path, sha256: SHA256, skipWorktree: true })),
    state: "active",
  }));
  const record = newTaskRecord({
    taskId: task.taskId,
    root: task.root ?? "/",
    hash: "0".repeat(16),
    owner: task.owner ?? "",
    legs: out,
    fencingToken: WIDEST_INT,
    now: SOME_TIME,
  });
  return recordBytes({ ...record, version: WIDEST_INT });
}

/**
 * Refuse a task of more than {@link MAX_LEGS} sources (ERR_TOO_MANY_LEGS, exit 65). Cheap:
 * `add` calls it first, before it looks at any source, and {@link checkTaskBounds} again.
 *
 * @example
 * ```ts
 * checkLegCount(64); // ok
 * checkLegCount(65); // throws ERR_TOO_MANY_LEGS
 * ```
 */
export function checkLegCount(count: number): void {
  if (count > MAX_LEGS) {
    throw new ArielError("ERR_TOO_MANY_LEGS", `${count} sources given; a task spans at most ${MAX_LEGS}`, {
      context: { legs: count, max: MAX_LEGS },
    });
  }
}

/**
 * Refuse a new task that could never be recorded: more than {@link MAX_LEGS} legs
 * (ERR_TOO_MANY_LEGS) or a record over {@link RECORD_MAX_BYTES} (ERR_RECORD_TOO_LARGE, both exit
 * 65). Called by the plan, so `--dry-run` refuses it too, and before any worktree is made.
 *
 * @example
 * ```ts
 * checkTaskBounds({ taskId: "t", branch: "ariel/t" }, legs); // throws when too many or too large
 * ```
 */
export function checkTaskBounds(task: BoundTask, legs: readonly BoundLeg[]): void {
  checkLegCount(legs.length);
  const size = taskRecordBytesAtMost(task, legs);
  if (size > RECORD_MAX_BYTES) {
    const overlay = legs.reduce((n, l) => n + l.overlay.length, 0);
    throw new ArielError(
      "ERR_RECORD_TOO_LARGE",
      `task ${quoteValue(task.taskId)} would need a record of up to ${size} bytes, over the ${RECORD_MAX_BYTES}-byte bound (${legs.length} legs, ${overlay} overlay files)`,
      {
        hint: "copy fewer overlay files (config overlay, .worktreeinclude) or split the task; nothing was changed",
        context: { task: task.taskId, size, max: RECORD_MAX_BYTES, legs: legs.length, overlay },
      },
    );
  }
}
