import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The tests `npm run mutate` runs against each mutant (stryker.config.mjs; the choice is
// docs/decisions/0131-mutation-testing-host-and-clis.md):
// - every unit and integration test beside the packages' sources: the pure core's on fakes, the
//   host's on real files, processes and git repositories in temporary directories, the CLIs';
// - the end-to-end cases of ariel-worktree, -discover, -spawn, -runs and -fleet, with
//   ARIEL_TEST_IN_PROCESS=1: `runAriel` then runs the command from source in the test's process
//   (test/helpers/cli.ts), so their assertions see the mutants of the CLI and of the host under
//   it. The calls that need a process of their own (stdin, another git, a test hook's pause)
//   and the run monitors still run the bundle, which needs `npm run build` first; a fleet
//   server (test/fleet_helpers.ts `serve`) is served from the test's process.
// Stryker runs them once with coverage, then each mutant only against the tests that reached it.
/**
 * The end-to-end files that pass in-process, checked one by one. Left out: those that need a
 * process per call (workspace-rule: a note said once per process; worktree-concurrency: two
 * adds racing), a browser (fleet-browser), or are load-sensitive or slow on terminals
 * (spawn-lease, k8s-*, runs-scale, runs-tty, sandbox-scale).
 */
export const IN_PROCESS_E2E = [
  "test/adopt.test.ts",
  "test/cli-errors.test.ts",
  "test/cli-tty.test.ts",
  "test/discover.e2e.test.ts",
  "test/discover.test.ts",
  "test/disk*.test.ts",
  "test/dry-run-flags.test.ts",
  "test/ends-small.test.ts",
  "test/ends.test.ts",
  "test/fleet-api.test.ts",
  "test/fleet-cli.test.ts",
  "test/fleet-land.test.ts",
  "test/land*.test.ts",
  "test/lifecycle-*.test.ts",
  "test/names-first.test.ts",
  "test/plans-match-runs.test.ts",
  "test/progress.test.ts",
  "test/redaction.test.ts",
  "test/runs-cap.test.ts",
  "test/runs-control.test.ts",
  "test/runs-handover.test.ts",
  "test/runs-hook.test.ts",
  "test/runs.test.ts",
  "test/recipe-sandbox.test.ts",
  "test/sandbox-agents.test.ts",
  "test/sandbox-crash.test.ts",
  "test/sandbox-runs.test.ts",
  "test/sandbox-unavailable.test.ts",
  "test/sandbox.test.ts",
  "test/shell-init.test.ts",
  "test/spawn-one-place.test.ts",
  "test/spawn.test.ts",
  "test/spawn_isolate.test.ts",
  "test/summary.test.ts",
  "test/workspace.test.ts",
  "test/worktree-crash.test.ts",
  "test/worktree-fencing.test.ts",
  "test/worktree-input.test.ts",
  "test/worktree-limits.test.ts",
  "test/worktree-refusals.test.ts",
  "test/worktree-remove-late-work.test.ts",
  "test/worktree-remove-reconcile.test.ts",
  "test/worktree-state-files.test.ts",
  "test/worktree.test.ts",
];

/**
 * `@ariel/core` resolved to the core's sources beside this file. Without it, the CLIs' imports
 * of `@ariel/core/host` would go through node_modules, which Stryker links from its sandbox to
 * the repository's: to the unchanged sources, so no CLI-level test could see a host mutant.
 */
const core = (path: string) => fileURLToPath(new URL(`packages/core/src/${path}`, import.meta.url));

/** The unit test files of this run: every one, or those ARIEL_MUTATE_UNIT names (see `include`). */
function unitFiles(): string[] {
  const only = process.env.ARIEL_MUTATE_UNIT;
  return only ? only.split(",").filter((g) => g !== "") : ["packages/*/src/**/*_test.ts"];
}

/** The end-to-end files of this run (see `include` below). */
function e2eFiles(): string[] {
  if (process.env.ARIEL_MUTATE_UNIT_ONLY === "1" || process.env.ARIEL_MUTATE_UNIT) return [];
  const only = process.env.ARIEL_MUTATE_E2E;
  return only ? only.split(",").filter((g) => g !== "") : IN_PROCESS_E2E;
}

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@ariel\/core$/, replacement: core("mod.ts") },
      { find: /^@ariel\/core\/host$/, replacement: core("host/mod.ts") },
      { find: /^@ariel\/core\/testing$/, replacement: core("testing/fake_fs.ts") },
    ],
  },
  test: {
    // ARIEL_MUTATE_UNIT_ONLY=1: the tests beside the sources alone, for a file every e2e case
    // reaches (host/workspace/registry.ts): each of its mutants would run them all, one by one.
    // ARIEL_MUTATE_E2E=GLOB[,GLOB]: those end-to-end files only, for a CLI's modules that its own
    // cases alone reach (the first run, with coverage, is then minutes instead of the whole set).
    // ARIEL_MUTATE_UNIT=GLOB[,GLOB]: those unit test files only, no end-to-end file: for a host
    // file that most of the suite reaches (a lease, a record), the tests beside it alone measure
    // it in minutes, a lower bound of its score.
    include: [...unitFiles(), ...e2eFiles()],
    exclude: ["**/node_modules/**"],
    env: { ARIEL_TEST_IN_PROCESS: "1" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/helpers/state_home_setup.ts"],
  },
});
