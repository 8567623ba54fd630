/**
 * The task record `<root>/.ariel/tasks/<task>.json` (docs/worktree.md, The task record): one unit of agent work with
 * one leg (one git worktree) per source it spans. Written only by ariel-worktree, always by a
 * compare-and-swap on `version` + `fencingToken` under the task's lease. The same object, as one
 * line, is the `task` record on stdout (`ariel-worktree add --json`).
 *
 * @example
 * ```ts
 * const r = z.safeParse(taskRecordSchema(), JSON.parse(text));
 * if (!r.success) throw new ArielError("ERR_RECORD_CORRUPT", "corrupt task record");
 * ```
 */
import * as z from "zod/mini";
import { WORKSPACE_HASH_PATTERN } from "../hash.ts";
import { MAX_ARTIFACTS, MAX_LEGS } from "../limits.ts";
import { TASK_ID_PATTERN } from "../task_id.ts";
import { PORT_NAME_PATTERN } from "./config.ts";
import { lazy, lazyField } from "./lazy.ts";

/** The scalars the task record's parts share (one instance each). */
function scalars() {
  const oid = z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/));
  const hex64 = z.string().check(z.regex(/^[0-9a-f]{64}$/));
  const absPath = z.string().check(z.regex(/^\//));
  const isoTime = z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/));
  return { oid, hex64, absPath, isoTime };
}
type Scalars = ReturnType<typeof scalars>;

/** A leg: one worktree of the task, with its overlay and state. */
function legSchemas({ oid, hex64, absPath }: Scalars) {
  const overlayEntrySchema = z.object({
    /** Path relative to the worktree (POSIX, no `..`). */
    path: z.string().check(
      z.minLength(1),
      z.refine((p) => !p.startsWith("/") && !p.split("/").includes("..")),
    ),
    /** sha256 of the bytes copied in. */
    sha256: hex64,
    /** True when the file is tracked and was marked --skip-worktree in the worktree. */
    skipWorktree: z.optional(z.boolean()),
  });

  const legStateSchema = z.enum(["active", "removed", "snapshotted", "unknown"]);

  const legSchema = z.object({
    /** Workspace-relative source name (`.` for the root). */
    source: z.string().check(z.minLength(1)),
    /** Canonical path of the source checkout. */
    sourcePath: absPath,
    /** sha256 of the source's redacted remote URL and default branch (never a URL). */
    fingerprint: hex64,
    /** Branch of the worktree (short name, e.g. `ariel/fix-login`). */
    branch: z.string().check(z.minLength(1)),
    /** Commit the branch was made from. */
    base: oid,
    /** HEAD of the worktree when the record was last written. */
    head: oid,
    /** Canonical path of the worktree: `<worktreeRoot>/<task>/<leg dir>`. */
    worktreePath: absPath,
    /** The parity overlay copied in at add (or restore) time. */
    overlay: z.array(overlayEntrySchema),
    state: legStateSchema,
    /**
     * How the leg's post-create hooks went (absent: none were configured): `ok`, `failed` (the
     * leg is kept; `ariel-worktree hooks run --task T` retries), `skipped` (untrusted, or
     * --no-hooks).
     */
    setup: z.optional(z.enum(["ok", "failed", "skipped"])),
    /**
     * True when `ariel-worktree adopt` took the worktree in (made by git or another tool, maybe
     * outside the worktree root, but inside the workspace root: docs/lifecycle.md).
     */
    adopted: z.optional(z.boolean()),
    /** Cone-mode sparse checkout: the directories checked out (absent: the whole tree). */
    sparse: z.optional(
      z
        .array(
          z.string().check(
            z.minLength(1),
            z.refine((p) => !p.startsWith("/") && !p.split("/").includes("..") && !p.includes("\0")),
          ),
        )
        .check(z.minLength(1), z.maxLength(256)),
    ),
  });
  return { overlayEntrySchema, legStateSchema, legSchema };
}

/** A reference the task keeps (a snapshot, say), never content. */
function buildArtifact({ oid, hex64, isoTime }: Scalars) {
  return z.object({
    /** What the reference is; `snapshot` = a commit under refs/ariel/snapshots/. */
    kind: z.string().check(z.minLength(1)),
    /** A ref name or URI, never content. */
    ref: z.string().check(z.minLength(1), z.maxLength(2048)),
    source: z.optional(z.string()),
    commit: z.optional(oid),
    sha256: z.optional(hex64),
    bytes: z.optional(z.int().check(z.minimum(0))),
    createdAt: z.optional(isoTime),
  });
}

/** The last land of the task: recorded before any branch moves, each leg's step as it lands. */
function buildLand({ oid, absPath, isoTime }: Scalars) {
  /** One leg's step of a land: its target branch moved from `from` to `to` (docs/lifecycle.md). */
  const landLegSchema = z.object({
    source: z.string().check(z.minLength(1)),
    /** The branch landed into (short name). */
    target: z.string().check(z.minLength(1)),
    from: oid,
    to: oid,
    /** The worktree that has `target` checked out (updated with it), or null: a ref update only. */
    checkout: z.nullable(absPath),
    state: z.enum(["pending", "landed", "rolled-back"]),
  });

  return z.object({
    strategy: z.enum(["ff", "merge", "squash", "rebase"]),
    /** `landing` until every leg landed (or was rolled back); reconcile finishes a crashed one. */
    state: z.enum(["landing", "landed", "rolled-back"]),
    startedAt: isoTime,
    endedAt: z.optional(isoTime),
    legs: z.array(landLegSchema).check(z.maxLength(MAX_LEGS)),
  });
}

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  const s = scalars();
  const { absPath, isoTime } = s;
  const { overlayEntrySchema, legStateSchema, legSchema } = legSchemas(s);
  const taskStateSchema = z.enum(["active", "cleaning", "closed", "unknown"]);
  const artifacts = buildArtifact(s);
  const land = buildLand(s);
  const taskRecordSchema = z.object({
    v: z.literal(1),
    type: z.literal("task"),
    taskId: z.string().check(z.regex(TASK_ID_PATTERN)),
    workspace: z.object({ root: absPath, hash: z.string().check(z.regex(WORKSPACE_HASH_PATTERN)) }),
    /** Who made the task (`ARIEL_OWNER`, else user@host). */
    owner: z.string().check(z.minLength(1), z.maxLength(256)),
    state: taskStateSchema,
    legs: z.array(legSchema).check(z.minLength(1), z.maxLength(MAX_LEGS)),
    artifacts: z.array(artifacts).check(z.maxLength(MAX_ARTIFACTS)),
    /** Ports leased to the task by name (config `ports`), released when it closes. */
    ports: z.optional(
      z.record(z.string().check(z.regex(PORT_NAME_PATTERN)), z.int().check(z.minimum(1), z.maximum(65535))),
    ),
    fencingToken: z.int().check(z.minimum(0)),
    version: z.int().check(z.minimum(0)),
    createdAt: isoTime,
    updatedAt: isoTime,
    /** The last `ariel-worktree land` of the task, absent when it was never landed. */
    land: z.optional(land),
  });
  return {
    landSchema: land,
    overlayEntrySchema,
    legStateSchema,
    taskStateSchema,
    legSchema,
    artifactSchema: artifacts,
    taskRecordSchema,
  };
}
const built = lazy(build);

export const overlayEntrySchema = lazyField(built, "overlayEntrySchema");
export const legStateSchema = lazyField(built, "legStateSchema");
export const taskStateSchema = lazyField(built, "taskStateSchema");
export const legSchema = lazyField(built, "legSchema");
export const artifactSchema = lazyField(built, "artifactSchema");
export const taskRecordSchema = lazyField(built, "taskRecordSchema");

export type OverlayEntry = z.infer<ReturnType<typeof overlayEntrySchema>>;
export type LegState = z.infer<ReturnType<typeof legStateSchema>>;
export type TaskState = z.infer<ReturnType<typeof taskStateSchema>>;
export type Leg = z.infer<ReturnType<typeof legSchema>>;
export type Artifact = z.infer<ReturnType<typeof artifactSchema>>;
export type TaskRecord = z.infer<ReturnType<typeof taskRecordSchema>>;
export const landSchema = lazyField(built, "landSchema");
export type LandRecord = z.infer<ReturnType<typeof landSchema>>;
export type LandLeg = LandRecord["legs"][number];
