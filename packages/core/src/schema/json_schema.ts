/**
 * The JSON Schema files published under docs/schema, rendered from the zod schemas of
 * packages/core/src/schema (zod 4's toJSONSchema) with a stable key order and a final newline.
 */
import * as z from "zod/mini";
import { publishedSchemas } from "./mod.ts";

/** JSON Schema keywords in the order a reader expects them; other keys follow, sorted. */
const KEY_ORDER = [
  "$schema",
  "$id",
  "title",
  "description",
  "type",
  "const",
  "enum",
  "format",
  "pattern",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "items",
  "properties",
  "required",
  "additionalProperties",
  "anyOf",
  "oneOf",
  "allOf",
  "default",
];

function rank(key: string): number {
  const i = KEY_ORDER.indexOf(key);
  return i === -1 ? KEY_ORDER.length : i;
}

/** Keys in canonical order, recursively; a `properties` map keeps the fields' declared order. */
export function canonicalJson(value: unknown, keepOrder = false): unknown {
  if (Array.isArray(value)) return value.map((v) => canonicalJson(v));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (!keepOrder) keys.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const out: Record<string, unknown> = {};
  for (const k of keys)
    out[k] = canonicalJson((value as Record<string, unknown>)[k], k === "properties" && !keepOrder);
  return out;
}

/** Titles of the schemas that describe a file rather than a record. */
const TITLES: Record<string, string> = {
  config: "ariel.config.json",
  "fleet-snapshot": "ariel-fleet FleetSnapshot: status --json, GET /api/fleet (v1)",
  "fleet-event":
    "ariel-fleet normalized event: events --json, the SSE streams, GET /api/runs/{id}/events (v1)",
  "fleet-reply": "ariel-fleet small replies: GET /healthz, GET /readyz, POST /api/runs/{id}/input (v1)",
  "fleet-run": "ariel-fleet run view: GET /api/runs/{id}, GET /api/workspaces/{hash}/runs (v1)",
  "fleet-server": "ariel-fleet serve --json: where it listens (v1)",
  "fleet-workspace": "ariel-fleet workspace view: GET /api/workspaces/{hash} (v1)",
  workspace: "ariel workspace registry entry, <user state dir>/workspaces/<hash>.json (v1)",
};

/** `{ "<name>.schema.json": text }` for every published schema, sorted by name. */
export function renderSchemaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  const schemas = publishedSchemas();
  for (const name of Object.keys(schemas).sort()) {
    const json = z.toJSONSchema(schemas[name]!, { target: "draft-2020-12" }) as Record<string, unknown>;
    const titled = {
      title: TITLES[name] ?? `ariel ${name} record (v1)`,
      ...json,
    };
    out[`${name}.schema.json`] = `${JSON.stringify(canonicalJson(titled), null, 2)}\n`;
  }
  return out;
}
