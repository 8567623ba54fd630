import { defineConfig } from "vitest/config";

// The unit tests `npm run mutate` runs against each mutant: the pure core's (packages/core/src
// outside host/: fast, no git, no temporary directories) and those of the host areas it also
// mutates (stryker.config.mjs): fakes or one temporary file, no git, no built bins.
export default defineConfig({
  test: {
    include: [
      "packages/core/src/*_test.ts",
      "packages/core/src/!(host)/**/*_test.ts",
      "packages/core/src/host/runs/output_test.ts",
      "packages/core/src/host/runs/output_reads_test.ts",
      "packages/core/src/host/runs/identity_test.ts",
      "packages/core/src/host/free_space_test.ts",
      "packages/core/src/host/cli/parse_test.ts",
      "packages/core/src/host/cli/run_test.ts",
      "packages/core/src/host/cli/help_test.ts",
    ],
    exclude: ["**/node_modules/**"],
    pool: "forks",
  },
});
