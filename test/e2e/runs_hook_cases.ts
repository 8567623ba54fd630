/**
 * A hanging `--on-exit` hook is stopped (docs/runs.md, `--on-exit-timeout`): the scenarios the
 * Node suite (test/runs-hook.test.ts) and the Deno suite (test/deno/runs_hook_test.ts) both run,
 * asserting with `node:assert/strict`. The caller runs `cleanUp` after each.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  finishedHistory,
  groupAlive,
  runDir,
  runs,
  runsWorkspace,
  startRun,
  until,
} from "../runs_helpers.ts";

/**
 * A run `-- true` whose hook is `sh hook.sh PIDFILE` with `script` after the line that writes
 * the hook's pid (its process group) to PIDFILE; bounded by `--on-exit-timeout 2s`.
 */
async function runWithHook(script: string, extra: string[] = []) {
  const root = runsWorkspace();
  const hook = join(root, "hook.sh");
  const pidFile = join(root, "hook.pid");
  writeFileSync(hook, `echo $$ > "$1"\n${script}\n`);
  const rec = await startRun(root, [
    "--on-exit",
    `sh ${hook} ${pidFile}`,
    "--on-exit-timeout",
    "2s",
    ...extra,
    "--",
    "true",
  ]);
  const runId = rec.runId as string;
  // `wait` waits for the run's end, not for its hook: it returns while the hook still runs.
  const w = await runs(root, ["wait", runId]);
  assert.equal(w.code, 0);
  await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
  const pgid = Number(readFileSync(pidFile, "utf8"));
  return { root, runId, pgid, log: join(runDir(root, runId), "on-exit.log") };
}

/** The `onExit` field of the run's `run.finished` event, once the monitor appended it. */
async function hookEnd(root: string, runId: string): Promise<unknown> {
  const events = await finishedHistory(root, runId);
  return events.find((e) => e.event === "run.finished")?.onExit;
}

/** A hook that sleeps for a day: SIGTERM to its group after 2 s; then run.finished, and `rm` works. */
export async function hangingHookIsStopped(): Promise<void> {
  const { root, runId, pgid, log } = await runWithHook("exec sleep 86355");
  assert.deepEqual(await hookEnd(root, runId), { code: null, signal: "SIGTERM", timedOut: true });
  await until(() => !groupAlive(pgid)); // its members gone once reaped
  assert.equal(
    readFileSync(log, "utf8"),
    "ariel: on-exit hook still running after 2000 ms: SIGTERM to its process group\n",
  );
  const rm = await runs(root, ["rm", runId]);
  assert.equal(rm.code, 0, rm.stderr);
  assert.equal(existsSync(runDir(root, runId)), false);
}

/** A hook that ignores SIGTERM (and so does its child): SIGKILL to its group after --grace. */
export async function termProofHookIsKilled(): Promise<void> {
  const { root, runId, pgid, log } = await runWithHook("trap '' TERM\nsleep 86355", ["--grace", "1"]);
  assert.deepEqual(await hookEnd(root, runId), { code: null, signal: "SIGKILL", timedOut: true });
  await until(() => !groupAlive(pgid)); // its members gone once reaped
  assert.equal(
    readFileSync(log, "utf8"),
    "ariel: on-exit hook still running after 2000 ms: SIGTERM to its process group\n" +
      "ariel: on-exit hook still running 1000 ms after SIGTERM: SIGKILL to its process group\n",
  );
}

/** A hook that ends in time: not stopped, its status in run.finished. */
export async function quickHookEnds(): Promise<void> {
  const { root, runId, log } = await runWithHook("exit 3");
  assert.deepEqual(await hookEnd(root, runId), { code: 3, signal: null, timedOut: false });
  assert.equal(readFileSync(log, "utf8"), "");
}
