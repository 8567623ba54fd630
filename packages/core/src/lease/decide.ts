import type { LeaseRecord } from "../schema/lease.ts";
import { clampTtl } from "./ttl.ts";

/** The process asking for a lease. */
export interface Claimant {
  owner: string;
  pid: number;
  processStart: string | null;
  host: string;
}

export interface LeaseRequest {
  taskId: string;
  claimant: Claimant;
  /** The lease file's current content, or null when there is none. */
  current: LeaseRecord | null;
  /**
   * The highest token known from elsewhere (the task record's `fencingToken`), so a deleted lease
   * file never makes a token come back.
   */
  floorToken: number;
  /** Epoch milliseconds. */
  now: number;
  ttlMs?: number;
  /**
   * Whether the current holder's process still runs. The host knows this only for a holder on
   * the same host; `false` lets a dead holder's lease be taken before it expires.
   */
  holderAlive?: boolean;
}

/** What to do: write `lease` (acquire, steal or renew), or give up because another holds it. */
export type LeaseDecision =
  | { action: "acquire" | "steal" | "renew"; lease: LeaseRecord }
  | { action: "held"; holder: LeaseRecord };

/** True when `lease` names the very same process as `c` (its own lease). */
export function isSameHolder(lease: LeaseRecord, c: Claimant): boolean {
  return (
    lease.owner === c.owner &&
    lease.host === c.host &&
    lease.pid === c.pid &&
    lease.processStart === c.processStart
  );
}

/** True when the lease's time has run out at `now` (epoch ms). */
export function isExpired(lease: LeaseRecord, now: number): boolean {
  return Date.parse(lease.expiresAt) <= now;
}

/**
 * Decide, purely, how a claimant gets a task's lease.
 *
 * - no lease → `acquire` with token `max(floor) + 1`
 * - expired (or released) lease, or a dead holder → `steal` with token `previous + 1`
 * - live lease of this same process → `renew` (same token, later expiry)
 * - live lease of anyone else → `held`
 *
 * @example
 * ```ts
 * const d = decideLease({ taskId: "t", claimant, current: null, floorToken: 0, now: 0 });
 * d.action; // "acquire"
 * d.lease.token; // 1
 * ```
 */
export function decideLease(req: LeaseRequest): LeaseDecision {
  const ttl = clampTtl(req.ttlMs);
  const { current, claimant, now } = req;
  const base = Math.max(current?.token ?? 0, req.floorToken);
  const fresh = (token: number, acquiredAt: number): LeaseRecord => ({
    v: 1,
    type: "lease",
    taskId: req.taskId,
    owner: claimant.owner,
    token,
    pid: claimant.pid,
    processStart: claimant.processStart,
    host: claimant.host,
    acquiredAt: new Date(acquiredAt).toISOString(),
    expiresAt: new Date(now + ttl).toISOString(),
  });
  if (current === null) return { action: "acquire", lease: fresh(base + 1, now) };
  const live = !isExpired(current, now) && req.holderAlive !== false;
  if (live && isSameHolder(current, claimant) && current.token >= req.floorToken) {
    return { action: "renew", lease: fresh(current.token, Date.parse(current.acquiredAt)) };
  }
  if (live) return { action: "held", holder: current };
  return { action: "steal", lease: fresh(base + 1, now) };
}

/**
 * The lease with its expiry set to `now`, so that the next claimant may take it (the file stays,
 * keeping the token for the next one).
 */
export function releasedLease(lease: LeaseRecord, now: number): LeaseRecord {
  return { ...lease, expiresAt: new Date(Math.min(now, Date.parse(lease.expiresAt))).toISOString() };
}
