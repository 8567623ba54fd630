// The ariel-discover end-to-end cases (test/e2e/discover_cases.ts) on Deno, running the CLI from
// its TypeScript source: `node_modules/.bin/deno test -A test/deno/discover_test.ts`.
import { CASES, makeFixture, runCase } from "../e2e/discover_cases.ts";

/** The part of the Deno namespace used here (typed locally: tsc checks this file without Deno's types). */
interface DenoTest {
  test(t: { name: string; fn: () => unknown; sanitizeResources?: boolean; sanitizeOps?: boolean }): void;
}
const { Deno } = globalThis as unknown as { Deno: DenoTest };

const fx = makeFixture();

for (const c of CASES) {
  Deno.test({
    name: `ariel-discover (deno): ${c.name}`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: () => runCase(c, fx, "deno"),
  });
}

Deno.test({ name: "ariel-discover (deno): clean up", fn: () => fx.cleanup() });
