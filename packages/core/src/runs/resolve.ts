import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";

/** What RUN resolution needs to know of each run. */
export interface RunRef {
  runId: string;
  name: string | null;
}

/** Prefixes shorter than this never match (a typo must not pick a run). */
export const MIN_PREFIX = 4;

/**
 * Resolve a RUN argument: an exact run id, else a name (the newest run of that name: a respawn
 * takes its name over), else a unique run id prefix of at least {@link MIN_PREFIX} characters.
 * ERR_RUN_NOT_FOUND (66) or ERR_RUN_AMBIGUOUS (65) otherwise.
 *
 * @example
 * ```ts
 * const runs = [{ runId: "20261202T110943Z-abc123", name: "agent" }];
 * resolveRun(runs, "agent").runId;        // "20261202T110943Z-abc123"
 * resolveRun(runs, "20261202T11").runId;  // "20261202T110943Z-abc123"
 * ```
 */
export function resolveRun<T extends RunRef>(runs: readonly T[], ref: string): T {
  const exact = runs.find((r) => r.runId === ref);
  if (exact) return exact;
  const named = runs.filter((r) => r.name === ref).sort((a, b) => (a.runId < b.runId ? 1 : -1));
  if (named[0]) return named[0];
  const prefixed = ref.length >= MIN_PREFIX ? runs.filter((r) => r.runId.startsWith(ref)) : [];
  if (prefixed.length === 1 && prefixed[0]) return prefixed[0];
  if (prefixed.length > 1) {
    throw new ArielError("ERR_RUN_AMBIGUOUS", `run ${quoteValue(ref)} matches ${prefixed.length} runs`, {
      context: { run: ref, matches: prefixed.slice(0, 5).map((r) => r.runId) },
    });
  }
  throw new ArielError("ERR_RUN_NOT_FOUND", `no run ${quoteValue(ref)}`, { context: { run: ref } });
}
