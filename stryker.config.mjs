// Mutation testing of the pure core and a few host areas: `npm run mutate` (docs/testing.md).
// Stryker changes one expression at a time in packages/core/src (outside host/, plus the host
// files listed last) and runs the unit tests of vitest.mutate.config.ts against it; a mutant no
// test notices "survives".
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "pnpm",
  testRunner: "vitest",
  // Named explicitly: with pnpm, Stryker cannot see the runner by scanning its own node_modules.
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.mutate.config.ts" },
  mutate: [
    "packages/core/src/**/*.ts",
    "!packages/core/src/host/**",
    "!packages/core/src/testing/**",
    "!packages/core/src/**/*_test.ts",
    "!packages/core/src/**/_fake_*.ts",
    // Renders docs/schema; checked byte for byte by `npm run schema -- --check`, not by unit tests.
    "!packages/core/src/schema/json_schema.ts",
    // Host areas whose unit tests run in milliseconds on fakes or a temp file, no git and no
    // built bins: a run's output cap and readers, the disk floor, the CLI option handling, and
    // (below) the identity checks of runs.
    "packages/core/src/host/runs/output.ts",
    "packages/core/src/host/free_space.ts",
    "packages/core/src/host/cli/parse.ts",
    // Whether a recorded process or process group is still ours: what stands between a stop or a
    // kill and a stranger's process (unit tests on a fake /proc and a fake process.kill).
    "packages/core/src/host/runs/identity.ts",
  ],
  // Stryker rewrites the tsconfig in its sandbox with TypeScript's JS API, which TypeScript 7
  // (the native compiler) no longer has. Nothing here needs the rewrite (no `extends` or
  // project references point outside the repository), so point it at a file that does not exist.
  tsconfigFile: "tsconfig.stryker-none.json",
  ignorePatterns: ["dist", "coverage", "reports", ".deno", "bench/results", ".ariel"],
  // The machine is shared; 2 keeps a full run at about two cores.
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // Re-runs test only the mutants whose code or covering tests changed since the last run.
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  thresholds: { high: 90, low: 85, break: null },
  cleanTempDir: "always",
};
