// The terminal UI (`ariel`, docs/tui.md). Ratios against baselines measured in the same run;
// never fails on time.
//   1. start-up: from starting `ariel-tui -C WS` on a terminal (a pseudo-terminal of 80x24) to
//      its first full frame (the list of WS's runs drawn), against `ariel-runs list -C WS` on the
//      same terminal until it exits; N rounds each, interleaved (`--smoke`: 3), 5 live runs;
//   2. idle: the UI's CPU (user + system, from /proc) over 30 s (`--smoke`: 5 s) with 20 live
//      tty runs and nothing happening, the first one's screen in the preview: % of one core.
// The keystroke echo of an attach from the UI against `ariel-runs attach` is in bench/tty.mjs.
// Run: node bench/tui.mjs [--smoke] [--only=1,2]   (needs `node scripts/setup.mjs` first)
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
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

const only = listOption("only");
const want = (n) => !only || only.includes(String(n));
const tuiBin = builtCli("tui", "bench/tui").bundle;
const runsBin = builtCli("runs", "bench/tui").bundle;
const spawnBin = builtCli("spawn", "bench/tui").bundle;
const ROUNDS = smoke ? 3 : 15;
const IDLE_S = smoke ? 5 : 30;
const IDLE_RUNS = 20;
const env = benchEnv({ ARIEL_MONITOR_IDLE_MS: "60000", TERM: "xterm-256color" });
const pty = createRequire(join(REPO_ROOT, "packages/core/package.json"))("@lydell/node-pty");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(cmd, args) {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** `argv` on a terminal: ms until its output shows `until` (or it exits, when `until` is null); its pid. */
function onTerminal(argv, until) {
  const t0 = process.hrtime.bigint();
  const p = pty.spawn(argv[0], argv.slice(1), { cols: 80, rows: 24, env, name: "xterm-256color" });
  let seen = "";
  const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
  const done = new Promise((resolve) => {
    p.onData((d) => {
      seen += d;
      if (until !== null && seen.includes(until)) resolve(ms());
    });
    p.onExit(() => resolve(ms()));
  });
  return { p, done };
}

function startRuns(ws, n, tty) {
  for (let i = 0; i < n; i++) {
    run(process.execPath, [
      spawnBin,
      "-C",
      ws,
      "--detach",
      "--shared",
      ...(tty ? ["--tty", "--size", "80x24"] : []),
      "--name",
      `idle-${i}`,
      "--",
      "sleep",
      "600",
    ]);
  }
}

/** Every run's process group killed (by the ids its record names), then the monitor, then the workspace. */
function cleanUp(ws) {
  const dir = join(ws, ".ariel/runs");
  for (const id of existsSync(dir) ? readdirSync(dir) : []) {
    try {
      const pgid = JSON.parse(readFileSync(join(dir, id, "run.json"), "utf8")).child?.pgid;
      if (pgid) process.kill(-pgid, "SIGKILL");
    } catch {}
  }
  try {
    process.kill(monitorPid(ws), "SIGKILL");
  } catch {}
  rmSync(ws, { recursive: true, force: true });
}

/** Wait (at most 30 s) until every live run of `ws` reads idle: their busy-to-idle moves are over. */
async function allIdle(ws) {
  for (const end = Date.now() + 30_000; Date.now() < end; ) {
    const listed = run(process.execPath, [runsBin, "list", "-C", ws, "--json"])
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    if (listed.every((r) => r.activity === "idle")) return;
    await sleep(500);
  }
}

/** CPU seconds (user + system) process `pid` has used. */
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100/s)
}

if (want(1)) {
  const ws = runsWorkspace("ariel-bench-tui-start-");
  try {
    startRuns(ws, 5, false);
    const times = { tui: [], list: [] };
    for (let i = 0; i <= ROUNDS; i++) {
      const tui = onTerminal([process.execPath, tuiBin, "-C", ws], "Running (5)");
      const t = await tui.done;
      tui.p.write("q");
      await new Promise((r) => tui.p.onExit(r));
      const list = onTerminal([process.execPath, runsBin, "list", "-C", ws], null);
      const l = await list.done;
      if (i === 0) continue; // warm-up
      times.tui.push(t);
      times.list.push(l);
    }
    const [t, l] = [median(times.tui), median(times.list)];
    console.log(
      `start-up on a terminal, 5 live runs (${ROUNDS} rounds, interleaved), load average ${loadAverage()}`,
    );
    console.log(`ariel-runs list            median ${l.toFixed(1)} ms`);
    console.log(
      `ariel: first full frame    median ${t.toFixed(1)} ms   ${(t / l).toFixed(2)}x ariel-runs list (bar 1.5x)`,
    );
  } finally {
    cleanUp(ws);
  }
}

if (want(2)) {
  const ws = runsWorkspace("ariel-bench-tui-idle-");
  try {
    startRuns(ws, IDLE_RUNS, true);
    await allIdle(ws); // every run started and quiet
    const tui = onTerminal([process.execPath, tuiBin, "-C", ws], `Running (${IDLE_RUNS})`);
    await tui.done;
    await sleep(1500); // the first frame's work and the preview's attach are done
    const before = cpuSeconds(tui.p.pid);
    const t0 = Date.now();
    await sleep(IDLE_S * 1000);
    const used = cpuSeconds(tui.p.pid) - before;
    const s = (Date.now() - t0) / 1000;
    console.log(
      `idle: ${IDLE_RUNS} live tty runs, nothing happening, ${s.toFixed(1)} s, load average ${loadAverage()}`,
    );
    console.log(
      `ariel's CPU ${(used * 1000).toFixed(0)} ms = ${((used / s) * 100).toFixed(2)}% of one core (bar 1%)`,
    );
    tui.p.write("q");
    await new Promise((r) => tui.p.onExit(r));
  } finally {
    cleanUp(ws);
  }
}
process.exit(0);
