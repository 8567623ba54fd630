import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";

/** `--restart`: never (the default) or on-failure with at most `max` restarts in a row. */
export interface RestartPolicy {
  policy: "no" | "on-failure";
  max: number;
  /** Restarts made so far (in a row of fast failures). */
  count: number;
}

/** The default number of restarts of `--restart on-failure` without `:N`. */
export const DEFAULT_RESTARTS = 5;
/** A child that ran at least this long before failing did not fail fast: the count starts over. */
export const FAST_FAILURE_MS = 10_000;
/** First delay before a restart; doubled each time, capped at {@link MAX_BACKOFF_MS}. */
export const BASE_BACKOFF_MS = 250;
export const MAX_BACKOFF_MS = 30_000;

/**
 * Parse `--restart`: `no`, `on-failure` or `on-failure:N` (N from 1 to 100).
 *
 * @example
 * ```ts
 * parseRestart("on-failure:3"); // { policy: "on-failure", max: 3, count: 0 }
 * parseRestart(undefined);      // { policy: "no", max: 0, count: 0 }
 * ```
 */
export function parseRestart(text: string | undefined): RestartPolicy {
  if (text === undefined || text === "no") return { policy: "no", max: 0, count: 0 };
  const m = /^on-failure(?::(\d{1,3}))?$/.exec(text);
  const max = m ? (m[1] === undefined ? DEFAULT_RESTARTS : Number(m[1])) : 0;
  if (!m || max < 1 || max > 100) {
    throw new ArielError(
      "ERR_USAGE",
      `--restart needs no, on-failure or on-failure:N (1-100), got ${quoteValue(text)}`,
    );
  }
  return { policy: "on-failure", max, count: 0 };
}

/** What the monitor does when a child ended: restart after `delayMs`, or stop. */
export type RestartDecision =
  | { restart: true; delayMs: number; count: number }
  | { restart: false; count: number };

/**
 * Decide on a restart after a child ended with `status` (0 = success) having run `ranMs`.
 * Only failures restart, never a kill; a slow failure starts the count over; the delay doubles
 * with each fast failure. After `max` restarts in a row, it gives up.
 *
 * @example
 * ```ts
 * decideRestart({ policy: "on-failure", max: 3, count: 0 }, { status: 1, killed: false, ranMs: 10 });
 * // { restart: true, delayMs: 250, count: 1 }
 * decideRestart({ policy: "on-failure", max: 3, count: 3 }, { status: 1, killed: false, ranMs: 10 });
 * // { restart: false, count: 3 }
 * ```
 */
export function decideRestart(
  policy: RestartPolicy,
  ended: { status: number; killed: boolean; ranMs: number },
): RestartDecision {
  if (policy.policy === "no" || ended.killed || ended.status === 0)
    return { restart: false, count: policy.count };
  const count = ended.ranMs >= FAST_FAILURE_MS ? 0 : policy.count;
  if (count >= policy.max) return { restart: false, count };
  return { restart: true, delayMs: Math.min(BASE_BACKOFF_MS * 2 ** count, MAX_BACKOFF_MS), count: count + 1 };
}
