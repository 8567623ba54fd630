/**
 * The lease record (docs/durability.md): `<root>/.ariel/leases/<task>.json`.
 *
 * A lease says which process may mutate a task until `expiresAt`; its `token` (the fencing
 * token) grows by one at every acquisition and is never reused for that task.
 *
 * @example
 * ```ts
 * leaseSchema().parse({
 *   v: 1, type: "lease", taskId: "fix-login", owner: "alice", token: 3, pid: 4242,
 *   processStart: "98765", host: "devbox", acquiredAt: "2026-01-01T00:00:00.000Z",
 *   expiresAt: "2026-01-01T00:00:30.000Z",
 * });
 * ```
 */
import * as z from "zod/mini";
import { TASK_ID_PATTERN } from "../task_id.ts";
import { lazy } from "./lazy.ts";

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  const isoTime = z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/));

  const leaseSchema = z.object({
    v: z.literal(1),
    type: z.literal("lease"),
    taskId: z.string().check(z.regex(TASK_ID_PATTERN)),
    /** Who holds it (free text chosen by the caller: a user, a run id). */
    owner: z.string().check(z.minLength(1), z.maxLength(256)),
    /** Fencing token: monotonic per task, never reused. */
    token: z.int().check(z.minimum(1)),
    /** The holding process, for early release of a dead holder's lease on the same host. */
    pid: z.int().check(z.minimum(0)),
    /** The holder's start time (Linux: /proc/<pid>/stat field 22) or null where unknown. */
    processStart: z.nullable(z.string()),
    host: z.string(),
    acquiredAt: isoTime,
    /** The lease is free once this instant has passed (release sets it to the release time). */
    expiresAt: isoTime,
  });
  return { leaseSchema };
}
const built = lazy(build);

export const leaseSchema = (): ReturnType<typeof build>["leaseSchema"] => built().leaseSchema;

export type LeaseRecord = z.infer<ReturnType<typeof leaseSchema>>;
