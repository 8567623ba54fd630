/**
 * NDJSON: one JSON object per line.
 *
 * @example
 * ```ts
 * serializeRecord({ v: 1, type: "source", name: "api" }); // '{"v":1,"type":"source","name":"api"}'
 * ```
 */

/** One record as a single line of JSON (without the newline). */
export function serializeRecord(value: Record<string, unknown>): string {
  return JSON.stringify(value);
}
