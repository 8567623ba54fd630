/** Lease time-to-live bounds (docs/architecture.md, Leases). */

/** TTL used when the caller gives none: 30 s. */
export const DEFAULT_LEASE_TTL_MS = 30_000;
/** No lease lives longer than this without renewal: 300 s. */
export const MAX_LEASE_TTL_MS = 300_000;
/** Shortest TTL accepted (shorter ones are raised to it). */
export const MIN_LEASE_TTL_MS = 100;

/**
 * The TTL a lease actually gets: the default when absent, else clamped to
 * [{@link MIN_LEASE_TTL_MS}, {@link MAX_LEASE_TTL_MS}].
 *
 * @example
 * ```ts
 * clampTtl(undefined); // 30000
 * clampTtl(900_000);   // 300000
 * ```
 */
export function clampTtl(ttlMs: number | undefined): number {
  if (ttlMs === undefined) return DEFAULT_LEASE_TTL_MS;
  if (!Number.isFinite(ttlMs)) throw new RangeError(`lease TTL must be a finite number, got ${ttlMs}`);
  return Math.min(MAX_LEASE_TTL_MS, Math.max(MIN_LEASE_TTL_MS, Math.round(ttlMs)));
}
