import { existsSync } from "node:fs";
import { sleep } from "./proc.ts";

/**
 * Crash-test hooks. With `ARIEL_TEST_HOOKS=1` and `ARIEL_TEST_PAUSE_AT=<point>[,<point>...]`,
 * {@link testPause} at a named point writes `ariel-test-paused <point> <pid>` to stderr and
 * sleeps (for `ARIEL_TEST_PAUSE_MS`, default forever), so a test can SIGKILL the process right
 * there; with `ARIEL_TEST_RELEASE_FILE=<path>` it goes on once that file exists. Without both variables it costs one lookup and does nothing.
 *
 * @example
 * ```ts
 * await testPause("add:after-worktree");
 * ```
 */
export async function testPause(point: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env.ARIEL_TEST_HOOKS !== "1") return;
  const at = env.ARIEL_TEST_PAUSE_AT;
  if (!at?.split(",").includes(point)) return;
  process.stderr.write(`ariel-test-paused ${point} ${process.pid}\n`);
  const release = env.ARIEL_TEST_RELEASE_FILE;
  if (release) {
    while (!existsSync(release)) await sleep(50);
    return;
  }
  const ms = Number(env.ARIEL_TEST_PAUSE_MS ?? "0");
  if (ms > 0) {
    await sleep(ms);
    return;
  }
  // Forever (until killed): a referenced timer keeps the process alive.
  await new Promise<void>(() => {
    setInterval(() => {}, 1 << 30);
  });
}
