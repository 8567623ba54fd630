/**
 * Cap V8 at its baseline compiler (Sparkplug) for the rest of this process: no TurboFan.
 *
 * For a short-lived CLI whose hot loop is a few small-file reads per item (ariel-discover),
 * TurboFan's background compiles cost more CPU than they save: at 1,000 sources they were a
 * fifth of the run's CPU, at 10,000 they break even (docs/benchmarks.md, ariel-discover). Loading
 * node:v8 costs ~5% of `node -e 0`, so callers do this only once the work is known to be big.
 * Only under Node (Deno ignores it); a no-op when it cannot be done.
 *
 * @example
 * ```ts
 * if (entries.length > 100) preferBaselineJit();
 * ```
 */
let applied = false;

export function preferBaselineJit(): void {
  if (applied) return;
  applied = true;
  if ("Deno" in globalThis || typeof process.getBuiltinModule !== "function") return;
  try {
    process.getBuiltinModule("node:v8").setFlagsFromString("--max-opt=1");
  } catch {
    // An unknown flag (another V8) only means the default tiering stays.
  }
}
