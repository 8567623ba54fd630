import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";
import { shellWords } from "../shell_words.ts";
import { didYouMean } from "../suggest.ts";

/** What RUN resolution needs to know of each run. */
export interface RunRef {
  runId: string;
  name: string | null;
  /** ISO time with milliseconds: orders two runs made in the same second (their ids do not). */
  createdAt?: string;
}

/**
 * Newest first: by `createdAt` (milliseconds), then by run id. Run ids alone order only to the
 * second, so a respawn made in the same second as its original could sort either way.
 *
 * @example
 * ```ts
 * const old = { runId: "20261202T110943Z-zzzzzz", name: "a", createdAt: "2026-12-02T11:09:43.100Z" };
 * const fresh = { runId: "20261202T110943Z-aaaaaa", name: "a", createdAt: "2026-12-02T11:09:43.900Z" };
 * [old, fresh].sort(newestFirst)[0] === fresh; // true
 * ```
 */
export function newestFirst(a: RunRef, b: RunRef): number {
  const ta = a.createdAt ?? "";
  const tb = b.createdAt ?? "";
  if (ta !== tb) return ta < tb ? 1 : -1;
  return a.runId === b.runId ? 0 : a.runId < b.runId ? 1 : -1;
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
  const named = runs.filter((r) => r.name === ref).sort(newestFirst);
  if (named[0]) return named[0];
  const prefixed = ref.length >= MIN_PREFIX ? runs.filter((r) => r.runId.startsWith(ref)) : [];
  if (prefixed.length === 1 && prefixed[0]) return prefixed[0];
  if (prefixed.length > 1) {
    throw new ArielError("ERR_RUN_AMBIGUOUS", `run ${quoteValue(ref)} matches ${prefixed.length} runs`, {
      context: { run: ref, matches: prefixed.slice(0, 5).map((r) => r.runId) },
    });
  }
  throw runNotFound(runs, ref);
}

/**
 * ERR_RUN_NOT_FOUND (66) for a RUN that names no run: with "did you mean" the closest run name
 * (or a name glob's words are left alone), as sources and commands get.
 *
 * @example
 * ```ts
 * runNotFound([{ runId: "20261202T110943Z-abc123", name: "agent" }], "agnet").hint;
 * // 'did you mean "agent"? ariel-runs list --all shows every run'
 * ```
 */
export function runNotFound(runs: readonly RunRef[], ref: string): ArielError {
  const names = new Set(runs.flatMap((r) => (r.name === null ? [] : [r.name])));
  const suggestion = didYouMean(ref, names);
  return new ArielError("ERR_RUN_NOT_FOUND", `no run ${quoteValue(ref)}`, {
    hint: `${suggestion ? `${suggestion} ` : ""}ariel-runs list --all shows every run`,
    context: { run: ref },
  });
}

/**
 * How a hint names `run` on a command line: its name while that still means it (the newest run of
 * that name, among `runs`: a respawn takes a name over), else its id. A name is a name: a person
 * gave it, and reads it back (decision 0108).
 *
 * @example
 * ```ts
 * const a = { runId: "20261202T110943Z-abc123", name: "agent", createdAt: "2026-12-02T11:09:43.000Z" };
 * runArg(a, [a]); // "agent"
 * runArg({ ...a, name: null }, [a]); // "20261202T110943Z-abc123"
 * ```
 */
export function runArg(run: RunRef, runs: readonly RunRef[] = [run]): string {
  if (run.name === null) return run.runId;
  const newest = runs.filter((r) => r.name === run.name).sort(newestFirst)[0];
  return newest === undefined || newest.runId === run.runId ? shellWords([run.name]) : run.runId;
}
