/**
 * The hand-over between `ariel-spawn --detach`, the monitor and readers, with real processes,
 * written once for the Node suite (test/runs-handover.test.ts) and the Deno one
 * (test/deno/runs_handover_test.ts): the order of a run's first events, what a reader sees while the
 * monitor takes a run over, and `wait` on a run whose monitor died after `exit.json` but before
 * the rest of its record, and `rm` of a run whose monitor is still settling it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { records } from "../helpers/cli.ts";
import {
  alive,
  finishedHistory,
  readJson,
  runDir,
  runs,
  runsWorkspace,
  spawnD,
  startCli,
  startRun,
  until,
} from "../runs_helpers.ts";

/** The run directories under `dir` (not the history files beside them). */
function runIds(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => !n.endsWith(".ndjson")) : [];
}

/** A child that exits at once: its history says process.started before process.exited. */
export async function startedBeforeExited(): Promise<void> {
  const root = runsWorkspace();
  for (const argv of [["true"], ["false"], ["sh", "-c", "exit 3"]]) {
    const rec = await startRun(root, ["--", ...argv]);
    const events = (await finishedHistory(root, rec.runId as string)).map((e) => e.event);
    assert.deepEqual(events, ["run.started", "process.started", "process.exited", "run.finished"]);
  }
}

/**
 * While the monitor has not taken a run over (it is stopped), no reader sees the run `lost`;
 * once spawn returns, the run is `running` under that monitor.
 */
export async function neverLostWhileTakenOver(): Promise<void> {
  const root = runsWorkspace();
  const first = await startRun(root, ["--", "sleep", "30"]);
  const monitor = (first.monitor as { pid: number }).pid;
  process.kill(monitor, "SIGSTOP"); // the request reaches it, but it cannot act on it yet
  let cli: ReturnType<typeof startCli>;
  try {
    cli = startCli("spawn", ["-C", root, "--detach", "--shared", "--json", "--", "sleep", "30"]);
    // the CLI made the run's directory and wrote run.started: it now waits for the monitor
    const dir = join(root, ".ariel/runs");
    await until(() => runIds(dir).length === 2);
    const pending = runIds(dir).find((id) => id !== first.runId)!;
    await until(() => existsSync(join(dir, `${pending}.ndjson`)));
    const list = await runs(root, ["list", "--json", "--all"]);
    assert.equal(list.code, 0);
    assert.deepEqual(
      records(list.stdout).map((r) => [r.runId, r.state]),
      [[first.runId, "running"]],
    );
    const lost = await runs(root, ["list", "--json", "--all", "--state", "lost"]);
    assert.deepEqual(records(lost.stdout), []);
  } finally {
    process.kill(monitor, "SIGCONT");
  }
  assert.equal(await cli.done, 0);
  const [rec] = records(cli.io.out);
  assert.ok(rec);
  assert.equal(rec.state, "running");
  assert.equal((rec.monitor as { pid: number }).pid, monitor);
  const after = records((await runs(root, ["list", "--json"])).stdout);
  assert.deepEqual(
    after.map((r) => [r.runId, r.state]),
    [
      [rec.runId, "running"],
      [first.runId, "running"],
    ],
  );
}

/**
 * The monitor dies between writing exit.json and writing endedAt into run.json: `wait` finishes
 * with the status exit.json records instead of waiting for endedAt forever.
 */
export async function waitAfterMonitorDiedMidFinish(): Promise<void> {
  const root = runsWorkspace();
  // The monitor this starts pauses (test hook) right after writing exit.json and before the
  // rest of run.json, and is SIGKILLed there.
  const started = await spawnD(root, ["--json", "--", "sh", "-c", "sleep 0.5; exit 3"], {
    env: { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_PAUSE_AT: "monitor:after-exit-json" },
  });
  assert.equal(started.code, 0, started.stderr);
  const rec = records(started.stdout)[0]!;
  const runId = rec.runId as string;
  const monitor = (rec.monitor as { pid: number }).pid;
  await until(() =>
    readFileSync(join(root, ".ariel/monitor.log"), "utf8").includes(
      `ariel-test-paused monitor:after-exit-json ${monitor}`,
    ),
  );
  assert.equal(existsSync(join(runDir(root, runId), "exit.json")), true);
  process.kill(monitor, "SIGKILL");
  await until(() => !alive(monitor));
  const record = readJson(join(runDir(root, runId), "run.json"));
  assert.deepEqual([record.endedAt, record.exit], [null, null]);
  const exit = readJson(join(runDir(root, runId), "exit.json"));
  assert.deepEqual([exit.status, exit.state], [3, "failed"]);
  const w = await runs(root, ["wait", runId, "--timeout", "20s", "--json"]);
  assert.equal(w.code, 3);
  assert.deepEqual(
    records(w.stdout).map((r) => [r.runId, r.state]),
    [[runId, "failed"]],
  );
}

/**
 * `rm` of an isolated run that has its exit.json and endedAt while its monitor, alive, has not yet
 * settled its worktree (held there by a test hook): refused like a live run, nothing removed;
 * once the monitor goes on, the kept worktree is recorded and `rm` removes the run.
 */
export async function rmWhileMonitorSettles(): Promise<void> {
  const root = runsWorkspace();
  const release = join(root, ".ariel-test-release");
  const { rec, runId, monitor } = await pausedBeforeSettle(root, release, ["--task", "settle-t"]);
  const dir = runDir(root, runId);
  const before = readJson(join(dir, "run.json"));
  assert.equal(readJson(join(dir, "exit.json")).state, "exited");
  assert.notEqual(before.endedAt, null);
  assert.equal(before.worktreeOutcome, null);
  const refused = await runs(root, ["rm", runId]);
  assert.deepEqual([refused.code, refused.stdout], [3, ""]);
  assert.equal(
    refused.stderr.split("\n")[0],
    `ariel-runs: error: run ${runId} is exited but its monitor is still settling it; nothing was removed [ERR_RUN_LIVE]`,
  );
  // The hint names the run as it was given, never a RUN placeholder (decision 0108).
  assert.equal(
    refused.stderr.split("\n")[1],
    `ariel-runs: hint: wait for it (ariel-runs wait ${runId}), then rm again, or pass --force to wait here (ariel-runs rm --force ${runId})`,
  );
  const dry = await runs(root, ["rm", runId, "-n"]);
  assert.deepEqual([dry.code, dry.stdout], [3, ""]);
  assert.equal(existsSync(join(dir, "run.json")), true);
  assert.equal(alive(monitor), true);
  writeFileSync(release, "");
  const w = await runs(root, ["wait", runId, "--json"]);
  assert.equal(w.code, 0, w.stderr);
  const after = readJson(join(dir, "run.json"));
  assert.equal(after.worktreeOutcome?.outcome, "kept");
  assert.equal(after.endedAt, before.endedAt);
  assert.equal(readFileSync(join(rec.worktree as string, "new.txt"), "utf8"), "work\n");
  await finishedHistory(root, runId);
  const removed = await runs(root, ["rm", runId]);
  assert.deepEqual([removed.code, removed.stdout], [0, `removed ${runId} (exited)\n`]);
  assert.equal(existsSync(dir), false);
  assert.equal(readFileSync(join(rec.worktree as string, "new.txt"), "utf8"), "work\n");
}

/**
 * `rm --force` of the same kind of run waits for the monitor to settle it, then removes it: the
 * monitor's own writes (worktree outcome, --on-exit hook, run.finished) all land before, none
 * after on a removed run. (This one covers the --force path; the race itself, which ended in a
 * removed run either way, is proven by {@link rmWhileMonitorSettles}.)
 */
export async function rmForceWaitsForSettle(): Promise<void> {
  const root = runsWorkspace();
  const release = join(root, ".ariel-test-release");
  const hookRan = join(root, ".ariel-test-hook-ran");
  const { rec, runId, monitor } = await pausedBeforeSettle(root, release, [
    "--task",
    "force-t",
    "--on-exit",
    `touch ${hookRan}`,
  ]);
  const log = join(root, ".ariel/monitor.log");
  const forced = runs(root, ["rm", runId, "--force"]);
  assert.equal(existsSync(join(runDir(root, runId), "run.json")), true);
  writeFileSync(release, "");
  const done = await forced;
  assert.deepEqual([done.code, done.stdout], [0, `removed ${runId} (exited)\n`], done.stderr);
  // The monitor, idle now, exits: anything it still wrote about the run would be there by then.
  await until(() => !alive(monitor), 20_000);
  assert.equal(existsSync(runDir(root, runId)), false);
  assert.equal(existsSync(join(root, ".ariel/runs", `${runId}.ndjson`)), false);
  assert.equal(readFileSync(join(rec.worktree as string, "new.txt"), "utf8"), "work\n");
  assert.equal(readFileSync(log, "utf8").includes(runId), false, readFileSync(log, "utf8"));
  // The monitor settled the run before it went: its --on-exit hook (after the worktree) ran.
  assert.equal(existsSync(hookRan), true);
}

/**
 * A run whose directory and history are removed under its live monitor (what the old `rm` race
 * did): every later write of the monitor fails, and each failure is said once in monitor.log with
 * the run, the step and the error code. The monitor does not crash (it settles the worktree, runs
 * the hook and exits when idle) and recreates nothing of the removed run.
 */
export async function writesToRemovedRunAreLogged(): Promise<void> {
  const root = runsWorkspace();
  const release = join(root, ".ariel-test-release");
  const hookRan = join(root, ".ariel-test-hook-ran");
  const { rec, runId, monitor } = await pausedBeforeSettle(root, release, [
    "--task",
    "gone-t",
    "--on-exit",
    `touch ${hookRan}`,
  ]);
  const history = join(root, ".ariel/runs", `${runId}.ndjson`);
  rmSync(runDir(root, runId), { recursive: true });
  rmSync(history);
  writeFileSync(release, "");
  await until(() => !alive(monitor), 20_000);
  assert.equal(existsSync(runDir(root, runId)), false);
  assert.equal(existsSync(history), false);
  const lines = readFileSync(join(root, ".ariel/monitor.log"), "utf8")
    .split("\n")
    .filter((l) => l.includes(runId))
    .map((l) => l.replace(/^\S+ monitor \d+: /, "").replace(/ \(.*$/, ""));
  assert.deepEqual(lines, [
    `run ${runId}: history worktree.kept failed [ENOENT]`,
    `run ${runId}: run.json worktreeOutcome failed [ENOENT]`,
    `run ${runId}: on-exit.log failed [ENOENT]`,
    `run ${runId}: history run.finished failed [ENOENT]`,
  ]);
  // The worktree was settled (kept, its work whole) and the hook ran all the same.
  assert.equal(existsSync(hookRan), true);
  assert.equal(readFileSync(join(rec.worktree as string, "new.txt"), "utf8"), "work\n");
}

/**
 * A run the monitor cannot end: its child exited 1, the restart cannot start (the command is
 * gone), and the run's lock is no longer a file when the monitor comes to record the end. The
 * failure is said once in monitor.log as step `end` (not thrown, not blamed on the restart), the
 * monitor writes nothing more of the run and exits when idle, and the run reads `lost`: exit
 * unknown, never invented.
 */
export async function unendableRunIsLogged(): Promise<void> {
  const root = runsWorkspace();
  const release = join(root, ".ariel-test-release");
  const job = join(root, ".ariel-test-job.sh");
  writeFileSync(job, '#!/bin/sh\nrm -f "$0"\nexit 1\n', { mode: 0o755 });
  const started = await spawnD(root, ["--json", "--restart", "on-failure:1", "--", job], {
    env: {
      ARIEL_TEST_HOOKS: "1",
      ARIEL_TEST_PAUSE_AT: "monitor:before-end",
      ARIEL_TEST_RELEASE_FILE: release,
    },
  });
  assert.equal(started.code, 0, started.stderr);
  const runId = records(started.stdout)[0]!.runId as string;
  const monitor = (records(started.stdout)[0]!.monitor as { pid: number }).pid;
  const log = join(root, ".ariel/monitor.log");
  await until(() => readFileSync(log, "utf8").includes(`ariel-test-paused monitor:before-end ${monitor}`));
  const lock = join(runDir(root, runId), "run.lock");
  rmSync(lock, { force: true });
  mkdirSync(lock);
  writeFileSync(release, "");
  await until(() => !alive(monitor), 20_000);
  const lines = readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.includes(runId))
    .map((l) => l.replace(/^\S+ monitor \d+: /, "").replace(/ \(.*$/, ""));
  assert.deepEqual(lines, [`run ${runId}: end failed [ERR_NOT_REGULAR_FILE]`]);
  assert.equal(existsSync(join(runDir(root, runId), "exit.json")), false);
  const history = readFileSync(join(root, ".ariel/runs", `${runId}.ndjson`), "utf8");
  assert.deepEqual(
    records(history).map((e) => [e.event, e.status ?? null]),
    [
      ["run.started", null],
      ["process.started", null],
      ["process.exited", 1],
    ],
  );
  assert.equal(
    readFileSync(join(runDir(root, runId), "stderr"), "utf8"),
    `ariel: command not found: ${job}\n`,
  );
  const list = await runs(root, ["list", "--all", "--json"]);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(
    records(list.stdout).map((r) => [r.runId, r.state, r.exit ?? null]),
    [[runId, "lost", null]],
  );
}

/**
 * An isolated detached run (`FLAGS`, its command leaving `new.txt` uncommitted) whose monitor is
 * held at `monitor:before-settle` (exit.json and endedAt written, the worktree not yet settled)
 * until the file `release` exists.
 */
async function pausedBeforeSettle(
  root: string,
  release: string,
  flags: string[],
): Promise<{ rec: Record<string, unknown>; runId: string; monitor: number }> {
  const started = await spawnD(
    root,
    ["--json", "--isolate", ...flags, "--", "sh", "-c", "echo work > new.txt"],
    {
      env: {
        ARIEL_TEST_HOOKS: "1",
        ARIEL_TEST_PAUSE_AT: "monitor:before-settle",
        ARIEL_TEST_RELEASE_FILE: release,
      },
    },
  );
  assert.equal(started.code, 0, started.stderr);
  const rec = records(started.stdout)[0]!;
  const monitor = (rec.monitor as { pid: number }).pid;
  const log = join(root, ".ariel/monitor.log");
  await until(() => readFileSync(log, "utf8").includes(`ariel-test-paused monitor:before-settle ${monitor}`));
  return { rec, runId: rec.runId as string, monitor };
}

/** One request line to the workspace's monitor over its socket; resolves with the reply line. */
function askMonitor(root: string, req: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const sock = connect(join(root, ".ariel/monitor.sock"));
    let buf = "";
    sock.on("error", reject);
    sock.on("data", (b: Buffer) => {
      buf += b.toString();
      if (!buf.includes("\n")) return;
      sock.destroy();
      resolve(JSON.parse(buf.slice(0, buf.indexOf("\n"))));
    });
    sock.write(`${JSON.stringify(req)}\n`);
  });
}

/**
 * The monitor writes no record a client sends unless it is a new local run of its workspace:
 * each bad one is answered as not started, nothing is written and no process starts.
 */
export async function createRefusesBadRecords(): Promise<void> {
  const root = runsWorkspace();
  const first = await startRun(root, ["--", "sleep", "30"]);
  const good = readJson(join(runDir(root, first.runId as string), "run.json"));
  const { version: _v, fencingToken: _t, ...planned } = good;
  const fresh = { ...planned, monitor: null, child: null, startedAt: null, argv: ["touch", "created"] };
  const id = (n: number) => `20300101T000000Z-bad00${n}`;
  const cases: [string, Record<string, unknown>][] = [
    ["the run record is not valid (runId)", { ...fresh, runId: "../../escape" }],
    ["the run record is not valid (cwd)", { ...fresh, runId: id(1), cwd: "relative" }],
    [
      "not a local run of this workspace",
      { ...fresh, runId: id(2), workspace: { ...good.workspace, root: "/elsewhere" } },
    ],
    ["not a new run", { ...fresh, runId: id(3), child: good.child }],
    ["no record for this run", { ...fresh, runId: id(5) }],
  ];
  for (const [i, [message, record]] of cases.entries()) {
    const runId = i === 4 ? id(4) : (record.runId as string);
    if (RUN_ID.test(runId)) mkdirSync(runDir(root, runId), { recursive: true });
    const reply = await askMonitor(root, { v: 1, op: "create", runs: [{ runId, env: {}, record }] });
    assert.deepEqual(reply.results, [{ runId, ok: false, status: 125, code: "ERR_MONITOR", message }]);
    assert.equal(existsSync(join(runDir(root, runId), "run.json")), false);
  }
  assert.equal(existsSync(join(root, "created")), false);
  const list = records((await runs(root, ["list", "--json", "--all"])).stdout);
  assert.deepEqual(
    list.map((r) => [r.runId, r.state]),
    [[first.runId, "running"]],
  );
}

const RUN_ID = /^\d{8}T\d{6}Z-[0-9a-z]{6}$/;
