import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*_test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/helpers/state_home_setup.ts"],
    // Every --json line a CLI under test prints is a record with v and type first.
    setupFiles: ["test/helpers/json_lines_setup.ts"],
  },
});
