/**
 * The bounds of a task record, in one place: the store refuses a write over them, the schema
 * refuses a record over them on read, and `add` checks them in its plan, before git is touched,
 * so a task that could never be recorded is never made.
 *
 * @example
 * ```ts
 * recordBytes({ v: 1, version: 1 }) <= RECORD_MAX_BYTES; // true
 * ```
 */

/** Most legs (sources) one task may span. */
export const MAX_LEGS = 64;
/** Most artifacts (snapshot refs) one task record may list. */
export const MAX_ARTIFACTS = 64;
/** Default size bound of a record as written (64 KiB). */
export const RECORD_MAX_BYTES: number = 64 * 1024;
/** No record may exceed this (256 KiB), whatever the caller asks. */
export const RECORD_HARD_MAX_BYTES: number = 256 * 1024;

/** A record as it is stored on disk: pretty-printed JSON and a final newline. */
export function recordText(record: Record<string, unknown>): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

const encoder = new TextEncoder();

/** The size in bytes of `record` as stored ({@link recordText} in UTF-8). */
export function recordBytes(record: Record<string, unknown>): number {
  return encoder.encode(recordText(record)).length;
}
