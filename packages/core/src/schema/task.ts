import { z } from "zod";

/**
 * The task record `<root>/.ariel/tasks/<task>.json` (DESIGN.md §5): one unit of agent work with
 * one leg (one git worktree) per source it spans. Written only by ariel-worktree, always by a
 * compare-and-swap on `version` + `fencingToken`.
 *
 * @example
 * ```ts
 * const r = taskRecordSchema.safeParse(JSON.parse(text));
 * if (!r.success) throw new ArielError("ERR_INVALID_INPUT", "corrupt task record");
 * ```
 */

const sha40 = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a full git object id");
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, "64 lowercase hex digits");

export const overlayEntrySchema = z.object({
  /** Path relative to the worktree (POSIX). */
  path: z.string().min(1),
  /** sha256 of the bytes copied in. */
  sha256,
  /** True when the file is tracked at the base and was marked --skip-worktree. */
  skipWorktree: z.boolean().optional(),
});

export const legStateSchema = z.enum(["active", "removed", "snapshotted", "unknown"]);
export const taskStateSchema = z.enum(["active", "cleaning", "closed", "unknown"]);

export const legSchema = z.object({
  /** Workspace-relative source name (`.` for the root). */
  source: z.string().min(1),
  /** Canonical path of the source checkout. */
  sourcePath: z.string().min(1),
  /** Credential-free remote/default-branch fingerprint of the source (64 hex). */
  fingerprint: z.string(),
  /** Branch checked out in the worktree (short name, e.g. ariel/task-1). */
  branch: z.string().min(1),
  /** Commit the branch was made from. */
  base: sha40,
  /** HEAD of the worktree when the record was last written. */
  head: sha40,
  /** Canonical path of the worktree. */
  worktreePath: z.string().min(1),
  overlay: z.array(overlayEntrySchema),
  state: legStateSchema,
});

export const artifactSchema = z.object({
  /** What the reference points at; `snapshot` is a commit under refs/ariel/snapshots/. */
  kind: z.string().min(1),
  /** A ref name or URI, never content. */
  ref: z.string().min(1),
  source: z.string().optional(),
  commit: sha40.optional(),
  sha256: sha256.optional(),
  bytes: z.number().int().nonnegative().optional(),
  createdAt: z.string().optional(),
});

export const taskRecordSchema = z.object({
  v: z.literal(1),
  taskId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/),
  workspace: z.object({ root: z.string().min(1), hash: z.string().regex(/^[0-9a-f]{16}$/) }),
  owner: z.string(),
  state: taskStateSchema,
  legs: z.array(legSchema),
  artifacts: z.array(artifactSchema),
  fencingToken: z.number().int().nonnegative(),
  version: z.number().int().nonnegative(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type OverlayEntry = z.infer<typeof overlayEntrySchema>;
export type LegState = z.infer<typeof legStateSchema>;
export type TaskState = z.infer<typeof taskStateSchema>;
export type Leg = z.infer<typeof legSchema>;
export type Artifact = z.infer<typeof artifactSchema>;
export type TaskRecord = z.infer<typeof taskRecordSchema>;

/** Default size bound of a task record (bytes of its JSON). */
export const TASK_RECORD_SOFT_LIMIT = 64 * 1024;
/** Hard size bound of a task record; a larger file is refused as corrupt. */
export const TASK_RECORD_HARD_LIMIT = 256 * 1024;
