// Background runs end to end under Deno (both CLIs from source, so the monitor is a Deno process
// too): cases 2, 3, 4, 6, 8, 10, 11, 12 and 14 of test/runs*.test.ts (the others: runs_control_test.ts). Run:
// node_modules/.bin/deno test -A test/deno/runs_test.ts
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFailureIsImmediate } from "../e2e/one_place_cases.ts";
import { capWithOnly } from "../e2e/runs_cap_cases.ts";
import { records } from "../helpers/cli.ts";
import {
  alive,
  groupAlive,
  readJson,
  reusePid,
  runDir,
  runs,
  runsWorkspace,
  spawnD,
  startRun,
  until,
} from "../runs_helpers.ts";
import { sh, runsTest as test } from "./runs_deno.ts";

test("detach returns once started; logs -f ends with the run; wait gives its status", async () => {
  const root = runsWorkspace();
  const rec = await startRun(root, [
    "--name",
    "loop",
    ...sh("for i in 1 2 3; do echo line $i; sleep 0.2; done; exit 3"),
  ]);
  assert.equal(rec.state, "running");
  const f = await runs(root, ["logs", "loop", "-f"]);
  assert.equal(f.code, 0);
  assert.equal(f.stdout, "line 1\nline 2\nline 3\n");
  const w = await runs(root, ["wait", "loop"]);
  assert.equal(w.code, 3);
  const j = records((await runs(root, ["logs", "loop", "--json", "--from", "7"])).stdout);
  assert.deepEqual(
    j.map((x) => [x.seq, x.data]),
    [
      [7, "line 2\n"],
      [14, "line 3\n"],
    ],
  );
});

test("case 14: a missing command is failed with 127 and the reason in its logs", async () => {
  const root = runsWorkspace();
  const r = await spawnD(root, ["--json", "--", "no-such-command-ariel"]);
  assert.equal(r.code, 127);
  const [rec] = records(r.stdout);
  assert.equal(rec?.state, "failed");
  const logs = await runs(root, ["logs", rec?.runId as string, "--stream", "stderr"]);
  assert.equal(logs.stdout, "ariel: command not found: no-such-command-ariel\n");
});

test("a detached isolated run of a missing command: 127 at once, its clean worktree removed", () =>
  startFailureIsImmediate());

test("case 2: a SIGKILLed monitor: the run reads lost, its output is kept, its exit unknown", async () => {
  const root = runsWorkspace();
  const rec = await startRun(root, sh("sleep 0.8; echo after"));
  const monitor = rec.monitor as { pid: number };
  process.kill(monitor.pid, "SIGKILL");
  await until(() => !alive(monitor.pid));
  const list = records((await runs(root, ["list", "--json"])).stdout);
  assert.deepEqual(
    list.map((x) => [x.runId, x.state]),
    [[rec.runId, "lost"]],
  );
  await until(() => !groupAlive((rec.child as { pgid: number }).pgid));
  assert.equal((await runs(root, ["logs", rec.runId as string])).stdout, "after\n");
  assert.equal(existsSync(join(runDir(root, rec.runId as string), "exit.json")), false);
});

test("case 4: kill escalates to SIGKILL on a group that ignores SIGTERM", async () => {
  const root = runsWorkspace();
  const rec = await startRun(root, sh('trap "" TERM; sleep 300 & echo ready; wait'));
  const runId = rec.runId as string;
  await until(() => readFileSync(join(runDir(root, runId), "stdout"), "utf8") === "ready\n");
  const k = await runs(root, ["kill", runId, "--grace", "500ms", "--json"]);
  assert.equal(k.code, 0);
  assert.equal(records(k.stdout)[0]?.state, "killed");
  assert.equal(groupAlive((rec.child as { pgid: number }).pgid), false);
});

test("case 10: --restart on-failure:2 then failed; --timeout kills with a signal", async () => {
  const root = runsWorkspace();
  const a = await startRun(root, ["--restart", "on-failure:2", ...sh("echo try; exit 1")]);
  const b = await startRun(root, ["--timeout", "1s", "--", "sleep", "60"]);
  const wa = await runs(root, ["wait", a.runId as string]);
  assert.equal(wa.code, 1);
  assert.equal(readFileSync(join(runDir(root, a.runId as string), "stdout"), "utf8"), "try\n".repeat(3));
  const wb = await runs(root, ["wait", b.runId as string]);
  assert.equal(wb.code, 143);
  assert.equal(readJson(join(runDir(root, b.runId as string), "exit.json")).reason, "timeout");
});

test("case 3: a reused pid is not ours: not running in list, kill refuses with 3", async () => {
  const root = runsWorkspace();
  const rec = await startRun(root, ["--", "true"]);
  const runId = rec.runId as string;
  await runs(root, ["wait", runId]);
  const foreign = reusePid(root, runId);
  const list = records((await runs(root, ["list", "--json"])).stdout);
  assert.deepEqual(
    list.map((x) => x.state),
    ["lost"],
  );
  const k = await runs(root, ["kill", runId]);
  assert.equal(k.code, 3);
  assert.equal(alive(foreign), true);
});

test("case 6: respawn kills the live run first and links the new one", async () => {
  const root = runsWorkspace();
  const old = await startRun(root, ["--name", "agent", "--", "sleep", "30"]);
  const r = await runs(root, ["respawn", "agent", "--grace", "1s", "--json"]);
  assert.equal(r.code, 0);
  const [fresh] = records(r.stdout);
  assert.equal(fresh?.respawnOf, old.runId);
  assert.equal(readJson(join(runDir(root, old.runId as string), "exit.json")).state, "killed");
});

test("case 11: an isolated run's dirty worktree is kept, a clean one removed", async () => {
  const root = runsWorkspace();
  const dirty = await startRun(root, ["--isolate", "--task", "dirty-t", ...sh("echo work > new.txt")]);
  const clean = await startRun(root, ["--isolate", "--task", "clean-t", "--", "true"]);
  const w = await runs(root, ["wait", dirty.runId as string, clean.runId as string, "--json"]);
  assert.equal(w.code, 0);
  const [d, c] = records(w.stdout);
  assert.equal((d?.worktreeOutcome as { outcome: string } | undefined)?.outcome, "kept");
  assert.equal((c?.worktreeOutcome as { outcome: string } | undefined)?.outcome, "removed");
  assert.equal(existsSync(dirty.worktree as string), true);
  assert.equal(existsSync(clean.worktree as string), false);
});

test("the workspace is removed by its own run as it ends: the monitor still exits", async () => {
  const root = runsWorkspace();
  const rec = await startRun(root, ["--on-exit", "true", ...sh(`sleep 1; rm -rf "${root}"`)]);
  const m = readJson(join(root, ".ariel/monitor.json"));
  assert.equal(alive(m.pid), true);
  await until(() => !existsSync(root));
  await until(() => !alive((rec.child as { pid: number }).pid));
  await until(() => !alive(m.pid), 8000); // idle after 1500 ms
});

test("case 12: a torn last line waits for the run's end; a corrupt run.json is refused, others list", async () => {
  const root = runsWorkspace();
  // The run lives until the test says so (no sleep that a loaded machine could outlast).
  const go = join(root, "go");
  const rec = await startRun(root, sh(`printf 'whole\\ntorn'; while [ ! -e "${go}" ]; do sleep 0.05; done`));
  const runId = rec.runId as string;
  await until(() => readFileSync(join(runDir(root, runId), "stdout"), "utf8") === "whole\ntorn");
  const live = records((await runs(root, ["logs", runId, "--json"])).stdout);
  assert.deepEqual(
    live.map((x) => x.data),
    ["whole\n"],
  );
  writeFileSync(go, "");
  assert.equal((await runs(root, ["wait", runId])).code, 0);
  const bad = await startRun(root, ["--", "true"]);
  await runs(root, ["wait", bad.runId as string]);
  writeFileSync(join(runDir(root, bad.runId as string), "run.json"), "{");
  const list = await runs(root, ["list", "--all", "--json"]);
  assert.equal(list.code, 1);
  assert.deepEqual(
    records(list.stdout).map((x) => x.runId),
    [runId],
  );
  assert.equal((await runs(root, ["logs", bad.runId as string])).code, 65);
});

test("the output cap drops the head of a live child's stream; logs says so and prints the kept tail", async () => {
  const root = runsWorkspace();
  const r = await spawnD(root, ["--json", ...sh("yes 0123456789abcde | head -n 1536; sleep 30")], {
    env: { ARIEL_RUN_OUTPUT_CAP: "16384", ARIEL_RUN_OUTPUT_POLL_MS: "50" },
  });
  assert.equal(r.code, 0, r.stderr);
  const runId = records(r.stdout)[0]!.runId as string;
  const meta = join(runDir(root, runId), "stdout.dropped");
  await until(() => existsSync(meta) && readJson(meta).dropped === 8192);
  const j = await runs(root, ["logs", "--json", "--stream", "stdout", runId]);
  const out = records(j.stdout);
  assert.equal(out.length, 1024);
  assert.deepEqual(out[0], {
    v: 1,
    type: "output",
    runId,
    seq: 8192,
    stream: "stdout",
    data: "0123456789abcde\n",
  });
  assert.equal(out[1023]!.seq, 8192 + 1023 * 16);
  assert.match(
    records(j.stderr)[0]!.message as string,
    /^stdout sequences 0 to 8191 were dropped by the output cap/,
  );
});

// The monitor punches through its perl helper, else util-linux `fallocate` (decision 0040).
test("the output cap with only perl on the monitor's PATH: the helper punches", () => capWithOnly("perl"));
test("the output cap with only fallocate on the monitor's PATH: fallocate(1) punches, said once", () =>
  capWithOnly("fallocate"));
