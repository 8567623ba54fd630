// Mutation testing: `npm run mutate`, or one folder at a time with `node scripts/mutate.mjs FOLDER`
// (docs/testing.md, "Mutation testing"). Stryker changes one expression at a time in the files of
// `mutate` and runs the unit and integration tests of vitest.mutate.config.ts against it; a mutant
// no test notices "survives". docs/decisions/0131-mutation-testing-host-and-clis.md says why the
// run is shaped this way.

/** What is never mutated, whatever folder is asked for (scripts/mutate.mjs adds these to it). */
export const NOT_MUTATED = [
  "!**/*_test.ts",
  // Test set-up shared with the end-to-end tests (`_fixture.ts`, `_durable_worker_fixture.ts`)
  // and the pure core's fakes: they are the tests' own code.
  "!**/_*fixture.ts",
  "!packages/core/src/testing/**",
  "!packages/core/src/**/_fake_*.ts",
  // Renders docs/schema; checked byte for byte by `npm run schema -- --check`, not by unit tests.
  "!packages/core/src/schema/json_schema.ts",
  // A CLI's main.ts only calls cliMain at load: the bundled CLI runs it, a unit test cannot.
  "!packages/cli-*/src/main.ts",
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "pnpm",
  testRunner: "vitest",
  // Named explicitly: with pnpm, Stryker cannot see the runner by scanning its own node_modules.
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.mutate.config.ts" },
  // The pure core, its host half (core/src/host) and the CLIs' command modules.
  mutate: ["packages/core/src/**/*.ts", "packages/cli-*/src/**/*.ts", ...NOT_MUTATED],
  // Each mutant runs only the tests that reached it in the first (dry) run: what keeps a run of
  // the host's git-backed tests tractable.
  coverageAnalysis: "perTest",
  // Stryker rewrites the tsconfig in its sandbox with TypeScript's JS API, which TypeScript 7
  // (the native compiler) no longer has. Nothing here needs the rewrite (no `extends` or
  // project references point outside the repository), so point it at a file that does not exist.
  tsconfigFile: "tsconfig.stryker-none.json",
  // dist/ is copied into the sandbox: the in-process end-to-end cases (vitest.mutate.config.ts)
  // still run the bundle for the calls that need a process of their own.
  // (`.stryker-tmp*`: the temp dir of a second run beside this one, `--tempDirName .stryker-tmp2`.)
  ignorePatterns: [
    "coverage",
    "reports",
    ".deno",
    "bench/results",
    ".ariel",
    "test/mutation",
    ".stryker-tmp*",
  ],
  // The machine is shared: one test process at a time unless it is idle (`--concurrency 2`).
  concurrency: 1,
  timeoutMS: 10_000,
  // The first, unmutated pass runs the related e2e files in-process too: about 10 minutes here.
  dryRunTimeoutMinutes: 60,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // Kept in the repository: a run re-tests only the mutants whose code or covering tests changed
  // since the results in this file, and keeps the results of files it was not asked to mutate,
  // so folders can be run one at a time. scripts/mutate.mjs rewrites it after each run without
  // this machine's paths or the failure messages, one mutant per line.
  incremental: true,
  incrementalFile: "test/mutation/stryker-incremental.json",
  thresholds: { high: 90, low: 80, break: null },
  cleanTempDir: "always",
};
