// What the Deno runs suites share (not a test file: deno-e2e collects *_test.ts only).
import { cleanUp, useRuntime } from "../runs_helpers.ts";

// Deno's global, declared for tsc (which checks this file with Node's types); Deno itself runs it.
declare const Deno: { test(name: string, fn: () => Promise<void>): void };

useRuntime("deno");

/** `-- sh -c SCRIPT` for a run's command. */
export { sh } from "../e2e/runs_cases.ts";

/** A Deno test of the runs suite; every process it started is killed and its workspaces removed. */
export function runsTest(name: string, fn: () => Promise<void>): void {
  Deno.test(`runs (deno): ${name}`, async () => {
    try {
      await fn();
    } finally {
      cleanUp();
    }
  });
}
