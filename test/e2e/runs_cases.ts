/**
 * Background-run scenarios of the failure cases (docs/runs.md) that the Node suite
 * (test/runs*.test.ts, vitest) and the Deno suite (test/deno/runs_control_test.ts) both run:
 * one body each, asserting with `node:assert/strict`, which both report. The CLIs run under the
 * runtime `useRuntime` chose (test/runs_helpers.ts); the caller runs `cleanUp` after each.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { records } from "../helpers/cli.ts";
import { initRepo } from "../helpers/git.ts";
import {
  finishedHistory,
  groupAlive,
  readJson,
  runDir,
  runHistory,
  runs,
  runsWorkspace,
  startCli,
  startRun,
  until,
} from "../runs_helpers.ts";

/** `-- sh -c SCRIPT` for a run's command. */
export const sh = (script: string): string[] => ["--", "sh", "-c", script];

/** Case 1: the CLI's session gets SIGHUP: the run completes and records its exit. */
export async function sighupToTheSession(): Promise<void> {
  const root = runsWorkspace();
  const cli = startCli("spawn", ["-C", root, "-d", "--json", ...sh("sleep 0.5; echo survived")]);
  cli.p.stdin?.end();
  await until(() => cli.io.out.includes("\n"));
  try {
    process.kill(-cli.p.pid!, "SIGHUP"); // the terminal goes away: its whole session hears it
  } catch {}
  await cli.done;
  const runId = JSON.parse(cli.io.out).runId as string;
  const w = await runs(root, ["wait", runId, "--json"]);
  assert.equal(w.code, 0);
  const [rec] = records(w.stdout);
  assert.deepEqual([rec?.state, (rec?.exit as { status: number } | undefined)?.status], ["exited", 0]);
  assert.equal((await runs(root, ["logs", runId])).stdout, "survived\n");
}

/** Case 5: kill racing a natural exit: exactly one final state, the first, everywhere. */
export async function killRacingExit(): Promise<void> {
  const root = runsWorkspace();
  for (const delay of [0, 150, 250, 300, 350]) {
    const rec = await startRun(root, sh("sleep 0.3"));
    const runId = rec.runId as string;
    await new Promise((r) => setTimeout(r, delay));
    const k = await runs(root, ["kill", runId, "--json"]);
    assert.equal(k.code, 0, k.stderr);
    const killed = records(k.stdout)[0];
    const exit = readJson(join(runDir(root, runId), "exit.json"));
    const finished = (await finishedHistory(root, runId)).filter((e) => e.event === "run.finished");
    assert.equal(finished.length, 1);
    assert.equal(killed?.state, exit.state);
    assert.equal(finished[0]?.state, exit.state);
    if (exit.state === "exited") {
      assert.deepEqual([exit.code, exit.signal, exit.reason], [0, null, null]);
    } else {
      // The kill was recorded while the child lived: killed, with what really ended it (the
      // signal, or a natural exit that beat the signal by an instant).
      assert.deepEqual([exit.state, exit.reason], ["killed", "kill"]);
      assert.ok(
        [
          [null, "SIGTERM", 143],
          [0, null, 0],
        ].some((x) => JSON.stringify(x) === JSON.stringify([exit.code, exit.signal, exit.status])),
        JSON.stringify(exit),
      );
    }
  }
}

/** Case 6: a respawn that cannot start (its source is gone) leaves the original running. */
export async function respawnWithoutItsSource(): Promise<void> {
  const root = runsWorkspace();
  initRepo(join(root, "api"));
  const old = await startRun(root, ["--source", "api", "--", "sleep", "30"]);
  renameSync(join(root, "api"), join(root, "api-moved"));
  const r = await runs(root, ["respawn", old.runId as string]);
  assert.equal(r.code, 66);
  assert.match(r.stderr, /\[ERR_SOURCE_NOT_FOUND\]/);
  assert.match(r.stderr, /the run was left as it is/);
  const list = records((await runs(root, ["list", "--all", "--json"])).stdout);
  assert.deepEqual(
    list.map((x) => [x.runId, x.state]),
    [[old.runId, "running"]],
  );
}

/** Case 7: kill, respawn and rm of one run at once: serialized; one final state, no survivor, at most one respawn. */
export async function killRespawnRmAtOnce(): Promise<void> {
  const root = runsWorkspace();
  const old = await startRun(root, ["--name", "busy", "--", "sleep", "30"]);
  const oldId = old.runId as string;
  const [k, r, m] = await Promise.all([
    runs(root, ["kill", oldId, "--grace", "1s"]),
    runs(root, ["respawn", oldId, "--grace", "1s", "--json"]),
    runs(root, ["rm", oldId]),
  ]);
  assert.ok([0, 66].includes(k.code!), `kill ${k.code}: ${k.stderr}`); // 66: rm removed it first
  assert.ok([0, 66].includes(r.code!), `respawn ${r.code}: ${r.stderr}`);
  assert.ok([0, 3, 66].includes(m.code!), `rm ${m.code}: ${m.stderr}`);
  assert.equal(groupAlive((old.child as { pgid: number }).pgid), false);
  const list = records((await runs(root, ["list", "--all", "--json"])).stdout);
  const respawned = list.filter((x) => x.respawnOf === oldId);
  assert.equal(respawned.length, r.code === 0 ? 1 : 0);
  if (m.code === 0) assert.equal(existsSync(runDir(root, oldId)), false);
  else {
    assert.equal(readJson(join(runDir(root, oldId), "exit.json")).state, "killed");
    assert.equal(runHistory(root, oldId).filter((e) => e.event === "run.finished").length, 1);
  }
}

/** Case 9: attach late replays from the start, goes live with no gap or duplicate, forwards stdin to an --interactive run. */
export async function attachLate(): Promise<void> {
  const root = runsWorkspace();
  const rec = await startRun(root, [
    "--interactive",
    ...sh('echo start; read line; echo "got $line"; echo end'),
  ]);
  const runId = rec.runId as string;
  await until(() => readFileSync(join(runDir(root, runId), "stdout"), "utf8") === "start\n");
  const a = startCli("runs", ["attach", "-C", root, runId, "--stream", "stdout"]);
  await until(() => a.io.out === "start\n");
  a.p.stdin?.write("hello\n");
  assert.equal(await a.done, 0);
  assert.equal(a.io.err, "");
  assert.equal(a.io.out, "start\ngot hello\nend\n");
  assert.equal((await runs(root, ["wait", runId])).code, 0);
}

/** Case 9: attach --from SEQ replays from that sequence; Ctrl-C detaches and the run goes on. */
export async function attachFromSeq(): Promise<void> {
  const root = runsWorkspace();
  const rec = await startRun(root, sh("echo one; echo two; sleep 30"));
  const runId = rec.runId as string;
  await until(() => readFileSync(join(runDir(root, runId), "stdout"), "utf8") === "one\ntwo\n");
  const a = startCli("runs", ["attach", "-C", root, runId, "--from", "4", "--json"]);
  await until(() => a.io.out.includes("two"));
  // process.kill, not a.p.kill: Deno's ChildProcess#kill makes "close" report the signal it
  // sent, even when the child handled it and exited 0 (as attach does).
  process.kill(a.p.pid!, "SIGINT");
  assert.equal(await a.done, 0);
  assert.deepEqual(
    records(a.io.out).map((x) => [x.seq, x.stream, x.data]),
    [[4, "stdout", "two\n"]],
  );
  const list = records((await runs(root, ["list", "--json"])).stdout);
  assert.deepEqual(
    list.map((x) => [x.runId, x.state]),
    [[runId, "running"]],
  );
}

/** Case 13: 50 detached runs started by 50 separate calls: all tracked by one monitor, none lost, list correct. */
export async function fiftyDetachedRuns(): Promise<void> {
  const root = runsWorkspace();
  const started: Record<string, unknown>[] = [];
  for (let batch = 0; batch < 5; batch++) {
    started.push(
      ...(await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          startRun(root, ["--name", `r${batch * 10 + i}`, ...sh("while [ ! -f go ]; do sleep 0.1; done")]),
        ),
      )),
    );
  }
  const ids = started.map((r) => r.runId as string);
  assert.equal(new Set(ids).size, 50);
  assert.equal(new Set(started.map((r) => (r.monitor as { pid: number }).pid)).size, 1);
  const list = records((await runs(root, ["list", "--json"])).stdout);
  assert.deepEqual(list.map((x) => x.runId).sort(), [...ids].sort());
  assert.deepEqual(
    list.filter((x) => x.state !== "running").map((x) => [x.runId, x.state]),
    [],
  );
  writeFileSync(join(root, "go"), "");
  const w = await runs(root, ["wait", ...ids], { timeoutMs: 60_000 });
  assert.equal(w.code, 0, w.stderr);
  const all = records((await runs(root, ["list", "--all", "--json"])).stdout);
  assert.equal(all.filter((x) => x.state === "exited").length, 50);
}
