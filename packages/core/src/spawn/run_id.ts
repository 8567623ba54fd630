import type { Clock, Random } from "../ports.ts";

/** A run id: `<UTC yyyymmddThhmmssZ>-<6 base36 chars>`; ids sort by start time (to the second). */
export const RUN_ID_PATTERN: RegExp = /^\d{8}T\d{6}Z-[0-9a-z]{6}$/;

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * A fresh, sortable run id.
 *
 * @example
 * ```ts
 * makeRunId({ now: () => Date.UTC(2026, 11, 2, 11, 9, 43) }, { bytes: (n) => new Uint8Array(n) });
 * // "20261202T110943Z-000000"
 * ```
 */
export function makeRunId(clock: Clock, random: Random): string {
  const stamp = runIdStamp(clock.now());
  let suffix = "";
  for (const b of random.bytes(6)) suffix += ALPHABET[b % ALPHABET.length];
  return `${stamp}-${suffix}`;
}

/**
 * The time part of a run id (UTC, to the second): ids made no later than `ms` sort at or
 * before it.
 *
 * @example
 * ```ts
 * runIdStamp(Date.UTC(2026, 11, 2, 11, 9, 43, 500)); // "20261202T110943Z"
 * ```
 */
export function runIdStamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}
