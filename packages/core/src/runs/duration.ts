import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration flag (`500ms`, `10s`, `5m`, `2h`, `7d`, or a bare number of seconds) in
 * milliseconds. Anything else is ERR_USAGE (64) naming the flag.
 *
 * @example
 * ```ts
 * parseDuration("10s", "--grace"); // 10000
 * parseDuration("7d", "--older-than"); // 604800000
 * parseDuration("1.5", "--timeout"); // 1500
 * ```
 */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text);
  const ms = m ? Number(m[1]) * (UNITS[m[2] ?? "s"] ?? 1000) : Number.NaN;
  if (!Number.isFinite(ms) || ms > 365 * UNITS.d!) {
    throw new ArielError(
      "ERR_USAGE",
      `${flag} needs a duration such as 10s, 5m, 2h or 7d, got ${quoteValue(text)}`,
    );
  }
  return Math.round(ms);
}
