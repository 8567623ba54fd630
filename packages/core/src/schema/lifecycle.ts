/**
 * The records of the lifecycle commands (docs/lifecycle.md): `hook` (one per hook that ran, from
 * `ariel-worktree hooks run --json`), `trust` (`ariel-worktree trust --json`) and `port`
 * (`ariel-worktree ports --json`).
 *
 * @example
 * ```json
 * {"v":1,"type":"port","port":20000,"name":"web","workspace":{"root":"/ws","hash":"d5b325e43ca8d297"},"task":"t1","leasedAt":"2026-12-03T10:00:00.000Z"}
 * ```
 */
import * as z from "zod/mini";
import { HOOK_EVENTS } from "../lifecycle/events.ts";
import { PORT_NAME_PATTERN } from "./config.ts";

// Built on first use, not when the module loads (see source.ts).
function build() {
  const hookValue = z.union([z.string(), z.array(z.string())]);
  const hookRecordSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("hook"),
    task: z.string(),
    event: z.enum(HOOK_EVENTS),
    source: z.string(),
    /** `workspace`: the user's own config; `repository`: a config git tracks (trusted). */
    origin: z.enum(["workspace", "repository"]),
    file: z.string(),
    /** The hook as written (a string, or its argv as JSON). */
    hook: z.string(),
    status: z.enum(["ok", "failed", "timeout", "not-started"]),
    exit: z.int(),
    signal: z.nullable(z.string()),
    durationMs: z.number().check(z.minimum(0)),
  });
  const trustRecordSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("trust"),
    /** `approved`, `revoked`, `plan` (with -n) or `list`. */
    action: z.enum(["approved", "revoked", "plan", "list"]),
    file: z.string(),
    sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    source: z.optional(z.string()),
    /** With --list: whether the file still holds what was approved. */
    state: z.optional(z.enum(["trusted", "changed", "gone"])),
    trustedAt: z.optional(z.string()),
    hooks: z.strictObject(Object.fromEntries(HOOK_EVENTS.map((e) => [e, z.optional(hookValue)]))),
  });
  const portRecordSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("port"),
    port: z.int().check(z.minimum(1), z.maximum(65535)),
    name: z.string().check(z.regex(PORT_NAME_PATTERN)),
    workspace: z.object({ root: z.string(), hash: z.string() }),
    task: z.string(),
    leasedAt: z.string(),
  });
  return { hookRecordSchema, trustRecordSchema, portRecordSchema };
}
let built: ReturnType<typeof build> | undefined;

export function hookRecordSchema(): ReturnType<typeof build>["hookRecordSchema"] {
  built ??= build();
  return built.hookRecordSchema;
}
export function trustRecordSchema(): ReturnType<typeof build>["trustRecordSchema"] {
  built ??= build();
  return built.trustRecordSchema;
}
export function portRecordSchema(): ReturnType<typeof build>["portRecordSchema"] {
  built ??= build();
  return built.portRecordSchema;
}
