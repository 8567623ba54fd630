import {
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { killRacingExit, sh, sighupToTheSession } from "./e2e/runs_cases.ts";
import { records } from "./helpers/cli.ts";
import {
  alive,
  cleanUp,
  finishedHistory,
  groupAlive,
  NODE,
  readJson,
  reusePid,
  runDir,
  runs,
  runsWorkspace,
  spawnD,
  startRun,
  TEST_ENV,
  track,
  until,
} from "./runs_helpers.ts";

afterEach(cleanUp);

describe("ariel-spawn --detach", () => {
  it("returns once the child started: one run record, exit 0; the run is then listed and ends exited", async () => {
    const root = runsWorkspace();
    const r = await spawnD(root, ["--json", "--name", "hello", ...sh("echo out; echo err >&2; sleep 2")]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const [rec] = records(r.stdout);
    expect(Object.keys(rec!).slice(0, 2)).toEqual(["v", "type"]);
    expect(rec).toMatchObject({
      v: 1,
      type: "run",
      name: "hello",
      backend: "local",
      source: ".",
      cwd: root,
      argv: ["sh", "-c", "echo out; echo err >&2; sleep 2"],
      state: "running",
      restart: { policy: "no", max: 0, count: 0 },
      respawnOf: null,
      exit: null,
    });
    const runId = rec!.runId as string;
    const child = rec!.child as { pid: number; pgid: number };
    expect(child.pgid).toBe(child.pid);
    const list = await runs(root, ["list", "--json"]);
    expect(list.code).toBe(0);
    expect(records(list.stdout).map((x) => [x.runId, x.state])).toEqual([[runId, "running"]]);
    const w = await runs(root, ["wait", "hello"]);
    expect(w.code).toBe(0);
    const exit = readJson(join(runDir(root, runId), "exit.json"));
    expect(exit).toMatchObject({
      v: 1,
      type: "exit",
      runId,
      code: 0,
      signal: null,
      status: 0,
      state: "exited",
      reason: null,
    });
    expect(readFileSync(join(runDir(root, runId), "stdout"), "utf8")).toBe("out\n");
    expect(readFileSync(join(runDir(root, runId), "stderr"), "utf8")).toBe("err\n");
    // ended runs are listed with --all only
    expect((await runs(root, ["list", "--json"])).stdout).toBe("");
    const all = records((await runs(root, ["list", "--all", "--json"])).stdout);
    expect(all.map((x) => [x.runId, x.state, (x.exit as { status: number }).status])).toEqual([
      [runId, "exited", 0],
    ]);
    // the history holds the run's events in the one history format
    const events = (await finishedHistory(root, runId)).map((e) => e.event);
    expect(events).toEqual(["run.started", "process.started", "process.exited", "run.finished"]);
  });

  it("runs one child per source, each its own run with ARIEL_* in its environment and no env in run.json", async () => {
    const root = runsWorkspace();
    const r = await spawnD(root, [
      "--json",
      "--name",
      "agent",
      "--source",
      ".",
      ...sh('printf "%s %s" "$ARIEL_RUN_ID" "$ARIEL_SOURCE"'),
    ]);
    expect(r.code).toBe(0);
    const [rec] = records(r.stdout);
    await runs(root, ["wait", rec!.runId as string]);
    expect(readFileSync(join(runDir(root, rec!.runId as string), "stdout"), "utf8")).toBe(`${rec!.runId} .`);
    expect(readFileSync(join(runDir(root, rec!.runId as string), "run.json"), "utf8")).not.toContain("PATH");
  });

  it.each([
    ["--name without --detach", ["--name", "x", "--", "true"], 64, "--name needs --detach"],
    ["a bad --restart", ["--detach", "--restart", "always", "--", "true"], 64, "--restart needs"],
    ["a bad --timeout", ["--detach", "--timeout", "soon", "--", "true"], 64, "--timeout needs a duration"],
    ["a bad --name", ["--detach", "--name", "bad name", "--", "true"], 65, "invalid run name"],
    [
      "--fail-fast with --detach",
      ["--detach", "--fail-fast", "--", "true"],
      64,
      "--fail-fast has no meaning",
    ],
  ])("refuses %s and starts nothing", async (_name, args, code, message) => {
    const root = runsWorkspace();
    const { runAriel } = await import("./helpers/cli.ts");
    const r = await runAriel("spawn", ["-C", root, ...args], { env: TEST_ENV });
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
    expect(existsSync(join(root, ".ariel/runs"))).toBe(false);
  });

  it("outside any workspace it refuses (66) and creates no .ariel/", async () => {
    const { runAriel } = await import("./helpers/cli.ts");
    const { tempDir, removeDir } = await import("./helpers/git.ts");
    const dir = tempDir("ariel-runs-plain-");
    try {
      const r = await runAriel("spawn", ["--detach", "--", "true"], {
        cwd: dir,
        env: { ...TEST_ENV, ARIEL_WORKSPACE_ROOT: "" },
      });
      expect(r.code).toBe(66);
      expect(r.stderr).toContain("has no .ariel/ and is not a git checkout [ERR_NOT_A_WORKSPACE]");
      expect(r.stderr).toContain(`hint: name it once to make it one: -C ${dir}`);
      expect(existsSync(join(dir, ".ariel"))).toBe(false);
    } finally {
      removeDir(dir);
    }
  });

  it("a plain directory named with -C becomes a workspace and is registered like any first write", async () => {
    const { runAriel, testStateHome } = await import("./helpers/cli.ts");
    const { tempDir, removeDir } = await import("./helpers/git.ts");
    const { workspaceHash } = await import("../packages/core/src/hash.ts");
    const dir = realpathSync(tempDir("ariel-runs-plain-"));
    const hash = await workspaceHash(dir);
    const entry = join(testStateHome(), "workspaces", `${hash}.json`);
    try {
      expect(existsSync(entry)).toBe(false);
      const r = await runAriel("spawn", ["-C", dir, "--detach", "--json", "--", "true"], {
        env: { ...TEST_ENV, ARIEL_WORKSPACE_ROOT: "" },
      });
      expect(r.code).toBe(0);
      const [rec] = records(r.stdout);
      expect(rec).toMatchObject({ workspace: { root: dir, hash } });
      expect(existsSync(join(dir, ".ariel/runs", rec!.runId as string, "run.json"))).toBe(true);
      expect(readJson(entry)).toMatchObject({ v: 1, root: dir, hash });
      expect((await runs(dir, ["wait", rec!.runId as string])).code).toBe(0);
    } finally {
      rmSync(entry, { force: true });
      removeDir(dir);
    }
  });

  it("case 14: a command that does not exist: exit 127, state failed, the reason in the logs", async () => {
    const root = runsWorkspace();
    const human = await spawnD(root, ["--", "no-such-command-ariel"]);
    expect(human.code).toBe(127);
    const id = human.stdout.split("\t")[0];
    expect(human.stderr).toBe(
      `ariel-spawn: the run works in the checkout ${root} itself, not in a worktree of its own (--isolate gives it one)\n` +
        `ariel-spawn: warning: run ${id} did not start: command not found: no-such-command-ariel\n` +
        `ariel-spawn: 1 of 1 did not start: . (exit 127); why: ariel-runs logs ${id} --stream stderr\n`,
    );
    const r = await spawnD(root, ["--json", "--", "no-such-command-ariel"]);
    expect(r.code).toBe(127);
    const [rec] = records(r.stdout);
    expect(rec).toMatchObject({ state: "failed", exit: { code: null, signal: null, status: 127 } });
    const logs = await runs(root, ["logs", rec!.runId as string, "--stream", "stderr"]);
    expect(logs).toMatchObject({ code: 0, stdout: "ariel: command not found: no-such-command-ariel\n" });
    const w = await runs(root, ["wait", rec!.runId as string]);
    expect(w.code).toBe(127);
  });

  it("--dry-run prints the plan and starts nothing", async () => {
    const root = runsWorkspace();
    const r = await spawnD(root, ["-n", "--json", "--", "true"]);
    expect(r.code).toBe(0);
    const [plan] = records(r.stdout);
    expect(plan).toMatchObject({ v: 1, type: "plan", action: "run.start", cwd: root, argv: ["true"] });
    expect(existsSync(join(root, ".ariel/runs"))).toBe(false);
  });
});

describe("ariel-runs: failure cases", () => {
  it("the workspace is deleted while a run ends: the monitor still exits", async () => {
    const root = runsWorkspace();
    const { tempDir, removeDir } = await import("./helpers/git.ts");
    const gate = tempDir("ariel-runs-gate-");
    // The child removes the whole workspace as its last act, once the test has read what it
    // needs (a timed wait raced a slow start): the monitor finds no run.lock.
    const go = join(gate, "go");
    const script = `while [ ! -e "${go}" ]; do sleep 0.05; done; rm -rf "${root}"`;
    const rec = await startRun(root, ["--on-exit", "true", ...sh(script)]);
    const m = readJson(join(root, ".ariel/monitor.json"));
    track((rec.child as { pid: number }).pid); // killed in clean-up if the test fails early
    expect(alive(m.pid)).toBe(true);
    writeFileSync(go, "");
    await until(() => !existsSync(root));
    removeDir(gate);
    // Idle after 1500 ms (TEST_ENV): a monitor stuck on the vanished run would live on.
    await until(() => !alive(m.pid), 8000);
  });

  it("case 1: the CLI's session gets SIGHUP: the run completes and records its exit", sighupToTheSession);

  it("case 2: the monitor is SIGKILLed mid-run: the run reads lost, its exit is never invented, its output is kept", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, sh("sleep 0.6; echo after"));
    const runId = rec.runId as string;
    const monitor = rec.monitor as { pid: number };
    process.kill(monitor.pid, "SIGKILL");
    await until(() => !alive(monitor.pid));
    const list = records((await runs(root, ["list", "--json"])).stdout);
    expect(list.map((x) => [x.runId, x.state, x.exit])).toEqual([[runId, "lost", null]]);
    const child = rec.child as { pgid: number };
    await until(() => !groupAlive(child.pgid));
    expect((await runs(root, ["logs", runId])).stdout).toBe("after\n");
    expect(existsSync(join(runDir(root, runId), "exit.json"))).toBe(false);
    const w = await runs(root, ["wait", runId]);
    expect(w.code).toBe(1);
    expect(w.stderr).toContain("its exit status is unknown");
    // the dead monitor's socket is stale: the next detach starts a new monitor
    expect(existsSync(join(root, ".ariel/monitor.sock"))).toBe(true);
    const next = await startRun(root, ["--", "true"]);
    expect((next.monitor as { pid: number }).pid).not.toBe(monitor.pid);
    expect((await runs(root, ["wait", next.runId as string])).code).toBe(0);
  });

  it("a monitor that does not answer: spawn --detach gives up with 69 instead of hanging", async () => {
    const root = runsWorkspace();
    const first = await startRun(root, ["--", "sleep", "30"]);
    const monitor = (first.monitor as { pid: number }).pid;
    process.kill(monitor, "SIGSTOP");
    try {
      // --shared: the first run still works in the checkout.
      const r = await spawnD(root, ["--shared", "--", "true"], { env: { ARIEL_MONITOR_REPLY_MS: "500" } });
      expect(r.code).toBe(69);
      expect(r.stderr).toContain("the run monitor did not reply within 500 ms [ERR_MONITOR]");
    } finally {
      process.kill(monitor, "SIGCONT");
    }
  });

  it("the monitor exits once idle and removes its socket; the next run starts a new one", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--", "true"]);
    const monitor = (rec.monitor as { pid: number }).pid;
    await runs(root, ["wait", rec.runId as string]);
    await until(() => !alive(monitor), 15_000);
    expect(existsSync(join(root, ".ariel/monitor.sock"))).toBe(false);
    expect(existsSync(join(root, ".ariel/monitor.json"))).toBe(false);
    expect(readFileSync(join(root, ".ariel/monitor.log"), "utf8")).toContain("idle: exiting");
  });

  it("case 3: a pid reused by another process is not ours: not running in list, kill refuses and signals nothing", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--", "true"]);
    const runId = rec.runId as string;
    await runs(root, ["wait", runId]);
    const foreign = reusePid(root, runId);
    const list = records((await runs(root, ["list", "--json"])).stdout);
    expect(list.map((x) => [x.runId, x.state])).toEqual([[runId, "lost"]]);
    const k = await runs(root, ["kill", runId, "--json"]);
    expect(k.code).toBe(3);
    expect(JSON.parse(k.stderr)).toMatchObject({ type: "error", code: "ERR_NOT_OURS", exit: 3 });
    expect(alive(foreign)).toBe(true);
  });

  it("case 4: a child that ignores SIGTERM, with grandchildren: kill escalates to SIGKILL on the whole group", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, sh('trap "" TERM; sleep 300 & sleep 300 & echo ready; wait'));
    const runId = rec.runId as string;
    const pgid = (rec.child as { pgid: number }).pgid;
    await until(() => readFileSync(join(runDir(root, runId), "stdout"), "utf8") === "ready\n");
    const k = await runs(root, ["kill", runId, "--grace", "500ms", "--json"]);
    expect(k.stderr).toBe("");
    expect(k.code).toBe(0);
    expect(records(k.stdout)[0]).toMatchObject({
      state: "killed",
      exit: { code: null, signal: "SIGKILL", status: 137 },
    });
    expect(groupAlive(pgid)).toBe(false);
    expect(readJson(join(runDir(root, runId), "exit.json"))).toMatchObject({
      state: "killed",
      reason: "kill",
    });
  });

  it("case 5: kill racing a natural exit: exactly one final state, the first, everywhere", killRacingExit);

  it("case 8: logs -f across the exit ends by itself; logs afterwards prints everything", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, sh("for i in 1 2 3 4 5; do echo line $i; sleep 0.1; done"));
    const runId = rec.runId as string;
    const f = await runs(root, ["logs", runId, "-f"], { timeoutMs: 20_000 });
    expect(f).toMatchObject({ code: 0, stdout: "line 1\nline 2\nline 3\nline 4\nline 5\n" });
    expect((await runs(root, ["logs", runId])).stdout).toBe(f.stdout);
    const j = records((await runs(root, ["logs", runId, "--json"])).stdout);
    expect(j.map((x) => [x.seq, x.stream, x.data])).toEqual(
      [0, 7, 14, 21, 28].map((s, i) => [s, "stdout", `line ${i + 1}\n`]),
    );
    const from = records((await runs(root, ["logs", runId, "--json", "--from", "14"])).stdout);
    expect(from.map((x) => x.data)).toEqual(["line 3\n", "line 4\n", "line 5\n"]);
    expect((await runs(root, ["logs", runId, "--tail", "2"])).stdout).toBe("line 4\nline 5\n");
  });

  it("logs --json: a line longer than 1 MiB comes as pieces, and the lines after it follow", async () => {
    const root = runsWorkspace();
    // 1.5 MiB of x, then a line: before, the read with no newline ended --json's output there.
    const rec = await startRun(root, sh("head -c 1572864 /dev/zero | tr '\\0' x; printf '\\nafter\\n'"));
    const runId = rec.runId as string;
    const f = await runs(root, ["logs", runId, "-f"], { timeoutMs: 20_000 });
    expect([f.code, f.stdout.length]).toEqual([0, 1572864 + 7]);
    const j = records((await runs(root, ["logs", runId, "--json"])).stdout);
    expect(j.map((x) => [x.seq, (x.data as string).length, (x.data as string).slice(-6)])).toEqual([
      [0, 1 << 20, "xxxxxx"],
      [1 << 20, 524288 + 1, "xxxxx\n"],
      [1572864 + 1, 6, "after\n"],
    ]);
  });

  it("case 12: a torn last line is held back while the run lives and printed once it ended", async () => {
    const root = runsWorkspace();
    // The run lives until the test says so (no sleep that a loaded machine could outlast).
    const go = join(root, "go");
    const rec = await startRun(
      root,
      sh(`printf 'whole\\ntorn'; while [ ! -e "${go}" ]; do sleep 0.05; done`),
    );
    const runId = rec.runId as string;
    await until(() => readFileSync(join(runDir(root, runId), "stdout"), "utf8") === "whole\ntorn");
    const live = records((await runs(root, ["logs", runId, "--json"])).stdout);
    expect(live.map((x) => x.data)).toEqual(["whole\n"]);
    writeFileSync(go, "");
    expect((await runs(root, ["wait", runId])).code).toBe(0);
    const done = records((await runs(root, ["logs", runId, "--json"])).stdout);
    expect(done.map((x) => [x.seq, x.data])).toEqual([
      [0, "whole\n"],
      [6, "torn"],
    ]);
  });

  it("case 12: a corrupt run.json is refused with a clear error; the other runs still list", async () => {
    const root = runsWorkspace();
    const good = await startRun(root, ["--", "true"]);
    const bad = await startRun(root, ["--", "true"]);
    await runs(root, ["wait", good.runId as string, bad.runId as string]);
    writeFileSync(join(runDir(root, bad.runId as string), "run.json"), '{"v":1,"version":1,"fencingTok');
    const list = await runs(root, ["list", "--all", "--json"]);
    expect(list.code).toBe(1);
    expect(records(list.stdout).map((x) => x.runId)).toEqual([good.runId]);
    expect(JSON.parse(list.stderr)).toMatchObject({
      type: "warning",
      code: "WARN_RUN_UNREADABLE",
      runId: bad.runId,
    });
    const badId = bad.runId as string;
    const hint = `the run's record is damaged or not ariel's: move its directory .ariel/runs/${badId} aside to keep its output, or remove the run with ariel-runs rm --force ${badId}`;
    const logs = await runs(root, ["logs", badId]);
    expect([logs.code, logs.stdout, logs.stderr]).toEqual([
      65,
      "",
      `ariel-runs: error: ${join(runDir(root, badId), "run.json")}: not valid JSON [ERR_RECORD_CORRUPT]\nariel-runs: hint: ${hint}\n`,
    ]);
    // prune reports the run it cannot judge (exit 1), and still plans the others.
    const prune = await runs(root, ["prune", "--older-than", "0s", "-n", "--json"]);
    expect([prune.code, records(prune.stdout).map((x) => x.runId), records(prune.stderr)]).toEqual([
      1,
      [good.runId],
      [
        {
          v: 1,
          type: "warning",
          code: "WARN_RUN_UNREADABLE",
          message: `run ${badId} skipped: ${join(runDir(root, badId), "run.json")}: not valid JSON`,
          hint,
          runId: badId,
        },
      ],
    ]);
    // rm without --force refuses it; -n --force plans it; --force removes it (the good run stays).
    expect((await runs(root, ["rm", badId])).code).toBe(65);
    const plan = await runs(root, ["rm", "-n", "--force", badId, "--json"]);
    expect([plan.code, records(plan.stdout), existsSync(runDir(root, badId))]).toEqual([
      0,
      [{ v: 1, type: "plan", action: "run.remove", runId: badId, state: "corrupt" }],
      true,
    ]);
    const rm = await runs(root, ["rm", "--force", badId]);
    expect([rm.code, rm.stdout, rm.stderr]).toEqual([0, `removed ${badId} (corrupt)\n`, ""]);
    expect([existsSync(runDir(root, badId)), existsSync(`${runDir(root, badId)}.ndjson`)]).toEqual([
      false,
      false,
    ]);
    const after = await runs(root, ["list", "--all", "--json"]);
    expect([after.code, records(after.stdout).map((x) => x.runId)]).toEqual([0, [good.runId]]);
  });

  it("a run's directory is 0700 and every file in it (run.json, exit.json, output) and its history 0600", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--on-exit", "true", ...sh("echo out; echo err >&2")]);
    const runId = rec.runId as string;
    await finishedHistory(root, runId);
    const dir = runDir(root, runId);
    const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
    const files = readdirSync(dir)
      .filter((f) => f !== "run.lock")
      .sort();
    expect(files).toEqual(["exit.json", "on-exit.log", "run.json", "stderr", "stdout"]);
    expect([mode(dir), mode(`${dir}.ndjson`), ...files.map((f) => `${f} ${mode(join(dir, f))}`)]).toEqual([
      "700",
      "600",
      ...files.map((f) => `${f} 600`),
    ]);
  });
});

describe("ariel-runs: wait, kill and RUN arguments", () => {
  it("wait exits with the run's status, 124 on its own --timeout (the run goes on)", async () => {
    const root = runsWorkspace();
    const three = await startRun(root, sh("exit 3"));
    expect((await runs(root, ["wait", three.runId as string])).code).toBe(3);
    const slow = await startRun(root, ["--name", "slow", "--", "sleep", "30"]);
    const w = await runs(root, ["wait", "slow", "--timeout", "200ms"]);
    expect(w.code).toBe(124);
    expect(w.stderr).toContain("[ERR_WAIT_TIMEOUT]");
    expect(records((await runs(root, ["list", "--json"])).stdout).map((x) => x.state)).toEqual(["running"]);
    const plan = await runs(root, ["kill", "slow", "-n"]);
    expect([plan.code, plan.stdout, plan.stderr]).toEqual([
      0,
      `would send SIGTERM to ${slow.runId} (running)\n`,
      "",
    ]);
    expect((await runs(root, ["kill", "slow", "-n", "--detailed-exitcode"])).code).toBe(2);
    expect((await runs(root, ["kill", "slow", "--detailed-exitcode"])).code).toBe(64);
    expect(records((await runs(root, ["list", "--json"])).stdout).map((x) => x.state)).toEqual(["running"]);
  });

  it("a RUN is an id, a unique prefix or a name; anything else is 66, an ambiguous prefix 65", async () => {
    const root = runsWorkspace();
    const a = await startRun(root, ["--name", "first", "--", "true"]);
    const b = await startRun(root, ["--", "true"]);
    await runs(root, ["wait", "first", b.runId as string]);
    const id = a.runId as string;
    expect((await runs(root, ["logs", id.slice(0, 22)])).code).toBe(0);
    expect((await runs(root, ["logs", "nope"])).code).toBe(66);
    const common = [...id].findIndex((c, i) => c !== (b.runId as string)[i]);
    if (common >= 4) expect((await runs(root, ["logs", id.slice(0, common)])).code).toBe(65);
  });

  it("kill of a run that already ended changes nothing and says so", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--", "true"]);
    await runs(root, ["wait", rec.runId as string]);
    const k = await runs(root, ["kill", rec.runId as string]);
    expect(k.code).toBe(0);
    expect(k.stderr).toContain("had already ended (exited)");
    expect(readJson(join(runDir(root, rec.runId as string), "exit.json")).state).toBe("exited");
  });
});

void NODE;

describe("ariel-runs: bad input changes nothing", () => {
  it.each([
    ["an unknown state", ["list", "--state", "zombie"], 64, 'unknown state "zombie"'],
    ["an unknown stream", ["logs", "RUN", "--stream", "both"], 64, "--stream needs stdout or stderr"],
    [
      "--from with --tail",
      ["logs", "RUN", "--from", "1", "--tail", "1"],
      64,
      "--from and --tail exclude each other",
    ],
    ["a negative --from", ["logs", "RUN", "--from=-1"], 64, "--from needs an integer >= 0"],
    ["an unknown signal", ["kill", "RUN", "--signal", "FOO"], 64, 'unknown signal "FOO"'],
    ["a bad --grace", ["kill", "RUN", "--grace", "soon"], 64, "--grace needs a duration"],
    ["wait without RUN", ["wait"], 64, "ariel-runs wait needs RUN"],
    ["a bad --older-than", ["prune", "--older-than", "old"], 64, "--older-than needs a duration"],
  ])("%s %j: exit %i", async (_name, args, code, message) => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--name", "RUN", "--", "sleep", "30"]);
    const r = await runs(root, args as string[]);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
    const list = records((await runs(root, ["list", "--json"])).stdout);
    expect(list.map((x) => [x.runId, x.state])).toEqual([[rec.runId, "running"]]);
  });
});

describe("run names are names (issue 32)", () => {
  it("a mistyped name gets 'did you mean', every command alike; one near nothing gets only the pointer", async () => {
    const root = runsWorkspace();
    await startRun(root, ["--name", "agent", "--", "sleep", "30"]);
    for (const cmd of [["logs"], ["kill"], ["wait"], ["rm"], ["respawn"]]) {
      const r = await runs(root, [...cmd, "agnet"]);
      expect([cmd[0], r.code, r.stdout, r.stderr]).toEqual([
        cmd[0],
        66,
        "",
        'ariel-runs: error: no run "agnet" [ERR_RUN_NOT_FOUND]\n' +
          'ariel-runs: hint: did you mean "agent"? ariel-runs list --all shows every run\n',
      ]);
    }
    const far = await runs(root, ["logs", "frobnicate", "--json"]);
    expect(records(far.stderr)).toEqual([
      {
        v: 1,
        type: "error",
        code: "ERR_RUN_NOT_FOUND",
        message: 'no run "frobnicate"',
        hint: "ariel-runs list --all shows every run",
        exit: 66,
        run: "frobnicate",
      },
    ]);
  });

  it("rm of a live run: the hint names it as the user did, never RUN; nothing removed", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--name", "agent", "--", "sleep", "30"]);
    const r = await runs(root, ["rm", "agent"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      3,
      "",
      `ariel-runs: error: run agent (${rec.runId}) is running; nothing was removed [ERR_RUN_LIVE]\n` +
        "ariel-runs: hint: stop it first (ariel-runs kill agent), or kill and remove it at once: ariel-runs rm --force agent\n",
    ]);
    const byId = await runs(root, ["rm", rec.runId as string]);
    expect(byId.stderr.split("\n")[1]).toBe(
      `ariel-runs: hint: stop it first (ariel-runs kill ${rec.runId}), or kill and remove it at once: ariel-runs rm --force ${rec.runId}`,
    );
    expect(existsSync(runDir(root, rec.runId as string))).toBe(true);
  });

  it("a hint names a run by its name only while the name means it: an older run of a reused name by its id", async () => {
    const root = runsWorkspace();
    const older = await startRun(root, ["--name", "agent", "--", "sleep", "30"]);
    const newer = await startRun(root, ["--name", "agent", "--", "sleep", "30"]);
    const r = await spawnD(root, ["--json", "--", "true"]);
    const err = records(r.stderr).find((x) => x.type === "error");
    expect([r.code, err?.message, err?.hint]).toEqual([
      75,
      `the checkout ${root} is in use by detached run ${older.runId} (running); nothing was started`,
      `add --isolate for a worktree of its own, wait for it (ariel-runs wait ${older.runId}), or pass --shared to work there too`,
    ]);
    await runs(root, ["kill", older.runId as string]);
    const next = await spawnD(root, ["--json", "--", "true"]);
    expect(records(next.stderr).find((x) => x.type === "error")?.hint).toBe(
      "add --isolate for a worktree of its own, wait for it (ariel-runs wait agent), or pass --shared to work there too",
    );
    await runs(root, ["kill", newer.runId as string]);
  });
});
