/**
 * Helpers for the core's unit tests and the e2e suite's (test-only: the build leaves
 * `_fixture.ts` out; pure: no `node:` imports).
 * @internal
 *
 * @example
 * ```ts
 * const rand = mulberry32(7); // the same numbers every run
 * errorOf(() => validateTaskId("")).code; // "ERR_INVALID_INPUT"
 * (await arielErrorOf(readRecord(path))).code; // the same for a promise
 * ```
 */
import { ArielError } from "./errors.ts";

/** A tiny deterministic PRNG (mulberry32) so a fuzz test is reproducible: numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The ArielError `fn` throws (anything else it throws is rethrown; not throwing is an error). */
export function errorOf(fn: () => unknown): ArielError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ArielError) return e;
    throw e;
  }
  throw new Error("did not throw");
}

/** The ArielError a promise rejects with (fails the test if it resolves or throws otherwise). */
export async function arielErrorOf(p: Promise<unknown>): Promise<ArielError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ArielError) return e;
    throw e;
  }
  throw new Error("expected an ArielError, got success");
}
