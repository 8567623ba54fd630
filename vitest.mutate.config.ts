import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The tests `npm run mutate` runs against each mutant (stryker.config.mjs; the choice is
// docs/decisions/0131-mutation-testing-host-and-clis.md):
// - every unit and integration test beside the packages' sources: the pure core's on fakes, the
//   host's on real files, processes and git repositories in temporary directories, the CLIs';
// - the end-to-end cases of ariel-worktree, with ARIEL_TEST_IN_PROCESS=1: their `wt()` runs the
//   command from source in the test's process (test/worktree-fixtures.ts), so their assertions
//   see the mutants of the CLI and of the host under it. The calls that need a process of their
//   own (stdin, another git, a test hook's pause) still run the bundle, which needs `npm run build`.
// Stryker runs them once with coverage, then each mutant only against the tests that reached it.
export const IN_PROCESS_E2E = [
  "test/adopt.test.ts",
  "test/cli-errors.test.ts",
  "test/cli-tty.test.ts",
  "test/disk*.test.ts",
  "test/ends-small.test.ts",
  "test/fleet-land.test.ts",
  "test/land*.test.ts",
  "test/lifecycle-*.test.ts",
  "test/names-first.test.ts",
  "test/plans-match-runs.test.ts",
  "test/redaction.test.ts",
  "test/shell-init.test.ts",
  "test/worktree*.test.ts",
];

/**
 * `@ariel/core` resolved to the core's sources beside this file. Without it, the CLIs' imports
 * of `@ariel/core/host` would go through node_modules, which Stryker links from its sandbox to
 * the repository's: to the unchanged sources, so no CLI-level test could see a host mutant.
 */
const core = (path: string) => fileURLToPath(new URL(`packages/core/src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@ariel\/core$/, replacement: core("mod.ts") },
      { find: /^@ariel\/core\/host$/, replacement: core("host/mod.ts") },
      { find: /^@ariel\/core\/testing$/, replacement: core("testing/fake_fs.ts") },
    ],
  },
  test: {
    include: ["packages/*/src/**/*_test.ts", ...IN_PROCESS_E2E],
    exclude: ["**/node_modules/**"],
    env: { ARIEL_TEST_IN_PROCESS: "1" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
