/**
 * Real git repositories in temporary directories, for integration and end-to-end tests. They live
 * in packages/core/src/host/_fixture.ts (test-only, left out of the build), so the packages' own
 * tests use them without importing from test/; this re-exports them for the e2e tests.
 */
export {
  commitAll,
  GIT_TEST_ENV,
  git,
  gitRaw,
  initRepo,
  removeDir,
  tempDir,
  writeFile,
} from "../../packages/core/src/host/_fixture.ts";
