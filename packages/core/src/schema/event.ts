/**
 * The `event` record (docs/spawn.md, Events): what `ariel-spawn --json` prints and every run appends to
 * `<root>/.ariel/runs/<runId>.ndjson`. The fixed fields come first; each event adds its own
 * (loose: consumers ignore fields they do not know).
 *
 * @example
 * ```json
 * {"v":1,"type":"event","event":"process.exited","runId":"20261202T110943Z-k3x9a2","ts":"2026-12-02T11:09:44.120Z","source":"api","pid":4242,"code":0,"signal":null,"status":0,"durationMs":812}
 * ```
 */
import * as z from "zod/mini";
import { agentEventVariants, attentionFields } from "./agent_event.ts";
import { lazy } from "./lazy.ts";

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  const runId = z.string().check(z.regex(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/));
  const base = {
    v: z.literal(1),
    type: z.literal("event"),
    runId,
    /** ISO 8601 UTC time of the event. */
    ts: z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)),
    /** The source the event is about; null for run-level events and a --span process. */
    source: z.nullable(z.string()),
  };
  const summary = z.looseObject({
    targets: z.int().check(z.minimum(0)),
    succeeded: z.int().check(z.minimum(0)),
    failed: z.int().check(z.minimum(0)),
    skipped: z.int().check(z.minimum(0)),
    exit: z.int().check(z.minimum(0)),
  });
  const worktreeFields = {
    task: z.string(),
    worktree: z.nullable(z.string()),
    branch: z.nullable(z.string()),
    /** Why a worktree was kept (a refusal code such as ERR_DIRTY, or "keep"). */
    reason: z.optional(z.string()),
  };

  const eventSchema = z.discriminatedUnion("event", [
    z.looseObject({
      ...base,
      event: z.literal("run.started"),
      argv: z.array(z.string()),
      targets: z.array(z.string()),
      mode: z.enum(["shared", "isolate", "span"]),
      jobs: z.int().check(z.minimum(1)),
    }),
    z.looseObject({ ...base, event: z.literal("worktree.created"), ...worktreeFields }),
    z.looseObject({
      ...base,
      event: z.literal("process.started"),
      pid: z.int(),
      cwd: z.string(),
      argv: z.array(z.string()),
    }),
    z.looseObject({
      ...base,
      event: z.literal("output"),
      stream: z.enum(["stdout", "stderr"]),
      line: z.string(),
      /** True when no newline ended the line (the child's last output, or a cut over-long line). */
      partial: z.optional(z.boolean()),
    }),
    z.looseObject({
      ...base,
      event: z.literal("process.exited"),
      code: z.nullable(z.int()),
      signal: z.nullable(z.string()),
      /** Shell-style status: code, 128+N for signal N, 125/126/127 when it never started. */
      status: z.int(),
    }),
    z.looseObject({ ...base, event: z.literal("worktree.removed"), ...worktreeFields }),
    z.looseObject({ ...base, event: z.literal("worktree.kept"), ...worktreeFields }),
    z.looseObject({ ...base, event: z.literal("worktree.snapshotted"), ...worktreeFields }),
    z.looseObject({
      ...base,
      event: z.literal("run.finished"),
      summary,
      interrupted: z.optional(z.string()),
    }),
    /** A sandboxed process's work brought home (docs/sandbox.md, The sync). */
    z.looseObject({
      ...base,
      event: z.literal("sandbox.synced"),
      /** The run whose sandbox it was. */
      sandbox: runId,
      /** True once the sandbox is done and removed; false for a sync while it still runs. */
      finished: z.boolean(),
      repos: z.array(
        z.looseObject({
          /** The repository's common git dir. */
          common: z.string(),
          objects: z.int().check(z.minimum(0)),
          /** Refs moved onto the sandbox's commits (compare-and-swap). */
          moved: z.array(z.object({ ref: z.string(), to: z.string() })),
          /** Refs kept aside as `as` instead of moved (WARN_SANDBOX_KEPT_REF), and why. */
          kept: z.array(z.object({ ref: z.string(), as: z.string(), why: z.string() })),
          /** Refs not moved: their objects were missing (WARN_SANDBOX_BROKEN_REF). */
          missing: z.array(z.object({ ref: z.string(), to: z.string() })),
        }),
      ),
    }),
    /** A move of a detached run's activity (docs/runs.md, Attention). */
    z.looseObject({ ...base, event: z.literal("run.attention"), ...attentionFields() }),
    ...agentEventVariants(base),
  ]);
  return { eventSchema };
}
const built = lazy(build);

export const eventSchema = (): ReturnType<typeof build>["eventSchema"] => built().eventSchema;

export type EventRecordShape = z.infer<ReturnType<typeof eventSchema>>;
