// A sandbox that cannot start under Deno (from source): not Linux, no bubblewrap on PATH, or one that
// cannot make a sandbox, ends ariel-spawn --sandbox with 69 and leaves nothing behind, as
// under Node (test/e2e/sandbox_cases.ts). Run: node_modules/deno/deno test -A test/deno/sandbox_test.ts
import { SANDBOX_UNAVAILABLE_CASES } from "../e2e/sandbox_cases.ts";

// Deno's global, declared for tsc (which checks this file with Node's types); Deno itself runs it.
declare const Deno: { test(name: string, fn: () => Promise<void>): void };

for (const c of SANDBOX_UNAVAILABLE_CASES) Deno.test(`sandbox (deno): ${c.name}`, () => c.run("deno"));
