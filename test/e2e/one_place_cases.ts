/**
 * "One agent, one place" scenarios (docs/spawn.md, docs/runs.md) that the Node suite
 * (test/spawn-one-place.test.ts, vitest) and the Deno suite (test/deno/runs_test.ts) both run:
 * one body each, asserting with `node:assert/strict`. The CLIs run under the runtime
 * `useRuntime` chose (test/runs_helpers.ts); the caller runs `cleanUp` after each.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { records } from "../helpers/cli.ts";
import { git } from "../helpers/git.ts";
import { readJson, runDir, runs, runsWorkspace, spawnD } from "../runs_helpers.ts";

/** The task directories under `<root>/.ariel/worktrees` (none when it does not exist). */
export function taskDirs(root: string): string[] {
  const dir = join(root, ".ariel/worktrees");
  return existsSync(dir) ? readdirSync(dir) : [];
}

/**
 * A detached isolated run of a command that does not exist returns at once with 127 and the
 * documented message, its failed run settled: the clean worktree removed (the branch kept), the
 * task closed, nothing for gc to find.
 */
export async function startFailureIsImmediate(): Promise<void> {
  const root = runsWorkspace();
  const r = await spawnD(root, ["--isolate", "--task", "typo", "--json", "--", "no-such-agent-ariel"]);
  assert.equal(r.code, 127, r.stderr);
  const [rec] = records(r.stdout);
  assert.equal(rec?.state, "failed");
  assert.match(r.stderr, /run \S+ did not start: command not found: no-such-agent-ariel/);
  const runId = rec?.runId as string;
  const logs = await runs(root, ["logs", runId, "--stream", "stderr"]);
  assert.equal(logs.stdout, "ariel: command not found: no-such-agent-ariel\n");
  // Settled before the CLI returned: the record says so, the worktree is gone.
  const run = readJson(join(runDir(root, runId), "run.json"));
  assert.deepEqual(run.worktreeOutcome, { outcome: "removed", reason: null });
  assert.equal(existsSync(join(root, ".ariel/worktrees/typo/.")), false);
  assert.equal(git(root, "worktree", "list", "--porcelain").split("\n\n").filter(Boolean).length, 1);
  assert.equal(git(root, "branch", "--list", "ariel/typo").trim(), "ariel/typo");
}
