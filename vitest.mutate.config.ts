import { defineConfig } from "vitest/config";

// The tests `npm run mutate` runs against each mutant (stryker.config.mjs): every unit and
// integration test beside the packages' sources — the pure core's on fakes, the host's on real
// files, processes and git repositories in temporary directories, the CLIs' own. Not the
// end-to-end tests (test/): they run the bundled CLIs as processes, which Stryker's mutants never
// reach. Stryker runs them all once with coverage, then each mutant only against the tests that
// reached it.
export default defineConfig({
  test: {
    include: ["packages/*/src/**/*_test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
