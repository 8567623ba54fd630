/**
 * @module schema — the zod schema of every NDJSON record ariel prints or reads, and the registry
 * from which `scripts/gen-schema.ts` writes `docs/schema/<name>.schema.json`.
 *
 * Each branch owns its record's schema file and adds one line to {@link RECORD_SCHEMAS}.
 *
 * @example
 * ```ts
 * const src = checkRecord(RECORD_SCHEMAS.source, JSON.parse(line), "stdin line 3");
 * ```
 */
import * as z from "zod/mini";
import { ArielError } from "../errors.ts";
import { runRecordSchema } from "../runs/record.ts";
import { agentEventSchema } from "./agent_event.ts";
import { configSchema } from "./config.ts";
import { endSchema } from "./end.ts";
import { errorSchema } from "./error.ts";
import { eventSchema } from "./event.ts";
import {
  fleetEventSchema,
  fleetReplySchema,
  fleetRunSchema,
  fleetServerSchema,
  fleetSnapshotSchema,
  fleetWorkspaceSchema,
} from "./fleet.ts";
import { formatIssue } from "./issues.ts";
import { leaseSchema } from "./lease.ts";
import { hookRecordSchema, portRecordSchema, trustRecordSchema } from "./lifecycle.ts";
import { planSchema } from "./plan.ts";
import { sourceSchema } from "./source.ts";
import { taskRecordSchema } from "./task.ts";
import { warningSchema } from "./warning.ts";
import { workspaceEntrySchema } from "./workspace.ts";

export * from "./agent_event.ts";
export * from "./config.ts";
export * from "./end.ts";
export * from "./error.ts";
export * from "./event.ts";
export * from "./fleet.ts";
export { formatIssue, issuePath } from "./issues.ts";
export * from "./lease.ts";
export * from "./lifecycle.ts";
export * from "./plan.ts";
export * from "./source.ts";
export * from "./task.ts";
export * from "./warning.ts";
export * from "./workspace.ts";

/** Any zod (mini or classic) schema. */
export type Schema = z.core.$ZodType;

/**
 * Record schemas by their `type`, one line per record (keep the lines sorted; each branch adds
 * its own: event, lease, task).
 */
export const RECORD_SCHEMAS: Record<string, Schema> = {
  // Getters: each schema is built on first use (see source.ts).
  get end() {
    return endSchema();
  },
  get error() {
    return errorSchema();
  },
  get event() {
    return eventSchema();
  },
  get hook() {
    return hookRecordSchema();
  },
  get lease() {
    return leaseSchema();
  },
  get plan() {
    return planSchema();
  },
  get port() {
    return portRecordSchema();
  },
  get source() {
    return sourceSchema();
  },
  get task() {
    return taskRecordSchema();
  },
  get trust() {
    return trustRecordSchema();
  },
  get warning() {
    return warningSchema();
  },
};

/** Every schema published under docs/schema: the records plus the config and registry files. */
export function publishedSchemas(): Record<string, Schema> {
  // The run record is published, not registered: every CLI bundles RECORD_SCHEMAS, and only the
  // run store (which checks run.json by hand on the hot path) needs this one. The workspace
  // registry entry is a file in the user state dir, not a record.
  return {
    ...RECORD_SCHEMAS,
    // The agent.* events: their `type` is event, so they are published, not registered.
    "agent-event": agentEventSchema(),
    config: configSchema(),
    // ariel-fleet's records: their `type`s (event, run, workspace) name other records here.
    "fleet-snapshot": fleetSnapshotSchema(),
    "fleet-event": fleetEventSchema(),
    "fleet-reply": fleetReplySchema(),
    "fleet-run": fleetRunSchema(),
    "fleet-server": fleetServerSchema(),
    "fleet-workspace": fleetWorkspaceSchema(),
    run: runRecordSchema(),
    workspace: workspaceEntrySchema(),
  };
}

/**
 * `value` parsed by `schema`, or ERR_INVALID_INPUT (exit 65) naming `where` and the first
 * issue's field path (the rest are counted).
 */
export function checkRecord<S extends Schema>(schema: S, value: unknown, where: string): z.infer<S> {
  const r = z.safeParse(schema, value);
  if (r.success) return r.data;
  const [first, ...more] = r.error.issues;
  const extra = more.length > 0 ? ` (and ${more.length} more)` : "";
  throw new ArielError(
    "ERR_INVALID_INPUT",
    `${where}: ${first ? formatIssue(first) : "invalid record"}${extra}`,
    { context: { issues: r.error.issues.slice(0, 10).map(formatIssue) } },
  );
}
