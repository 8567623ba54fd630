import { defineConfig } from "vitest/config";

// The unit tests of the pure core (packages/core/src outside host/), the only tests
// `npm run mutate` runs against each mutant: fast, no git, no temporary directories.
export default defineConfig({
  test: {
    include: ["packages/core/src/**/*_test.ts"],
    exclude: ["packages/core/src/host/**", "**/node_modules/**"],
    pool: "forks",
  },
});
