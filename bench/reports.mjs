// What agents report (docs/runs.md, "What agents report"). Ratios against baselines measured in
// the same run; never fails on time.
//   1. report-to-state latency: a wired tty run of the fake Claude Code (test/fixtures/agents/claude,
//      its own hooks off); a hook called as Claude Code calls it (`sh -c` of the command in the
//      run's settings file, the documented PermissionRequest input on stdin) → the moment
//      `ariel-runs list --state waiting` shows the run (its attention.json says waiting, looked at
//      every 2 ms; then checked with `list` itself), N rounds (a Stop moves it back), median;
//      beside it the screen's latency for the same question (the fake drawing its menu in a run
//      not wired: `send ask` returned → waiting), the fallback the reports replace;
//   2. the reporter's cost per call: `node ariel-report.cjs claude` with a payload on stdin, for
//      the wired run (it connects and hands the report over) and outside one, against `node -e 0`,
//      interleaved, median wall and mean CPU.
// Run: node bench/reports.mjs [--smoke] [--only=1,2]   (needs `node scripts/setup.mjs` first)
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  benchEnv,
  builtCli,
  listOption,
  loadAverage,
  monitorPid,
  REPO_ROOT,
  runsWorkspace,
  smoke,
} from "./_env.mjs";
import { measureInterleaved, median, printRatios } from "./_measure.mjs";

const only = listOption("only");
const want = (n) => !only || only.includes(String(n));
const runsBin = builtCli("runs", "bench/reports").bin;
const spawnBin = builtCli("spawn", "bench/reports").bin;
const REPORTER = join(REPO_ROOT, "packages/cli-runs/dist/ariel-report.cjs");
const CLAUDE = join(REPO_ROOT, "test/fixtures/agents/claude");
const FIXTURES = join(REPO_ROOT, "packages/core/src/runs/agents/fixtures/claude");
const ROUNDS = smoke ? 3 : 30;
const SCREEN_ROUNDS = smoke ? 1 : 5;
const CALLS = smoke ? 5 : 40;
const env = benchEnv({ ARIEL_MONITOR_IDLE_MS: "30000", TERM: "xterm-256color", FAKE_CLAUDE_NO_HOOKS: "1" });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function run(cmd, args) {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Start the fake Claude Code on a terminal as run `name`; its run id. */
function start(ws, name, flags = []) {
  const out = run(process.execPath, [
    spawnBin,
    "-C",
    ws,
    "--detach",
    "--shared",
    "--tty",
    "--json",
    "--name",
    name,
    ...flags,
    "--",
    CLAUDE,
  ]);
  return JSON.parse(out.trim().split("\n")[0]).runId;
}

const runDir = (ws, id) => join(ws, ".ariel/runs", id);

/** The run's attention.json, or null while there is none (or it is being replaced). */
function attention(ws, id) {
  try {
    return JSON.parse(readFileSync(join(runDir(ws, id), "attention.json"), "utf8"));
  } catch {
    return null;
  }
}

/** Resolve with the ms since `t0` once `ok(attention)` holds (looked at every 2 ms; 10 s at most). */
async function until(ws, id, ok, t0) {
  for (;;) {
    const a = attention(ws, id);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (a && ok(a)) return ms;
    if (ms > 10_000) throw new Error(`run ${id}: not there in 10 s (${JSON.stringify(a)})`);
    await sleep(2);
  }
}

/** The ARIEL_REPORT_* a run's child was given (as its hooks see them). */
function reportEnv(ws, id) {
  const pid = JSON.parse(readFileSync(join(runDir(ws, id), "run.json"), "utf8")).child.pid;
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter((kv) => kv.startsWith("ARIEL_REPORT_"))
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
}

/** Call the run's hook for `event` as Claude Code does: its command through `sh -c`, the input on stdin. */
function callHook(ws, id, event, childEnv) {
  const settings = JSON.parse(readFileSync(join(runDir(ws, id), "claude-settings.json"), "utf8"));
  const command = settings.hooks[event][0].hooks[0].command;
  const input = readFileSync(join(FIXTURES, `${event}.json`), "utf8");
  const child = spawn("/bin/sh", ["-c", command], { env: childEnv, stdio: ["pipe", "ignore", "ignore"] });
  child.stdin.end(input);
  return new Promise((resolve) => child.on("close", resolve));
}

const since = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

/** The ms `argv` took to start and exit, started the way a hook is (no stdin, output ignored). */
function started(argv) {
  const t0 = process.hrtime.bigint();
  const child = spawn(argv[0], argv.slice(1), { env, stdio: "ignore" });
  return new Promise((resolve) => child.on("close", () => resolve(since(t0))));
}

function waitingListed(ws, id) {
  const out = run(process.execPath, [runsBin, "list", "-C", ws, "--state", "waiting", "--json"]);
  return out.includes(`"runId":"${id}"`);
}

function cleanUp(ws) {
  try {
    process.kill(monitorPid(ws), "SIGKILL"); // its terminals hang up: every run's child gets SIGHUP
  } catch {}
  rmSync(ws, { recursive: true, force: true });
}

const ws = runsWorkspace("ariel-bench-reports-");
try {
  const wired = start(ws, "wired");
  await until(ws, wired, (a) => a.activity, process.hrtime.bigint());
  const childEnv = { ...env, ...reportEnv(ws, wired) };

  if (want(1)) {
    const times = [];
    const exited = [];
    const floor = [];
    let listed = 0;
    for (let i = 0; i < ROUNDS; i++) {
      floor.push(await started(["/bin/sh", "-c", `${JSON.stringify(process.execPath)} -e 0`]));
      const t0 = process.hrtime.bigint();
      const done = callHook(ws, wired, "PermissionRequest", childEnv).then(() => since(t0));
      times.push(await until(ws, wired, (a) => a.activity === "waiting" && a.by === "agent", t0));
      exited.push(await done);
      if (waitingListed(ws, wired)) listed++;
      await callHook(ws, wired, "Stop", childEnv);
      await until(ws, wired, (a) => a.activity === "idle", process.hrtime.bigint());
    }
    const screen = [];
    const silent = start(ws, "screen", ["--no-agent-reports"]);
    await sleep(1000);
    for (let i = 0; i < SCREEN_ROUNDS; i++) {
      run(process.execPath, [runsBin, "send", "-C", ws, "screen", "ask", "--enter"]);
      const t0 = process.hrtime.bigint();
      screen.push(await until(ws, silent, (a) => a.activity === "waiting", t0));
      run(process.execPath, [runsBin, "send", "-C", ws, "screen", "1", "--enter"]);
      await until(ws, silent, (a) => a.activity !== "waiting", process.hrtime.bigint());
    }
    const [r, s, f, e] = [median(times), median(screen), median(floor), median(exited)];
    const ms = (x) => `${x.toFixed(0).padStart(5)} ms`;
    console.log(`report-to-state latency (${ROUNDS} rounds), load average ${loadAverage()}`);
    console.log(
      `hook called → list --state waiting shows it  median ${ms(r)} (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}); list showed it ${listed}/${ROUNDS}`,
    );
    console.log(`  the hook (the reporter) had exited          median ${ms(e)}`);
    console.log(
      `  floor: sh -c 'node -e 0', same rounds       median ${ms(f)}   latency ${(r / f).toFixed(2)}x the floor`,
    );
    console.log(
      `the screen alone (no reports), ${SCREEN_ROUNDS} rounds       median ${ms(s)}   latency ${(r / s).toFixed(2)}x the screen's`,
    );
  }

  if (want(2)) {
    const input = readFileSync(join(FIXTURES, "PreToolUse.json"), "utf8");
    const results = measureInterleaved(
      [
        { label: "node -e 0", cmd: process.execPath, args: ["-e", "0"] },
        {
          label: "reporter, a wired run",
          cmd: process.execPath,
          args: [REPORTER, "claude"],
          input,
          env: childEnv,
        },
        { label: "reporter, outside one", cmd: process.execPath, args: [REPORTER, "claude"], input, env },
      ],
      { runs: CALLS, cwd: ws, env },
    );
    printRatios(`the reporter's cost per call (${CALLS} calls each, interleaved)`, results);
  }
} finally {
  cleanUp(ws);
}
process.exit(0);
