import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * vitest's global set-up: one user state dir (`ARIEL_STATE_HOME`) for this run of the suite,
 * made fresh and removed at its end. The test processes inherit `TEST_ARIEL_STATE_HOME` and give
 * it to every CLI under test (test/helpers/cli.ts, host/cli/_fixture.ts). A state home shared
 * by every run on a machine grew by thousands of workspace entries a run, and the fleet, which
 * reads the whole registry, got slower with each run until its tests timed out.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), `ariel-test-state-${process.getuid?.() ?? "user"}-`));
  process.env.TEST_ARIEL_STATE_HOME = dir;
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
