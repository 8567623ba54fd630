// Runs on a terminal (docs/runs.md, "Runs on a terminal"). Ratios against baselines measured in
// the same run; never fails on time.
//   1. keystroke echo through `ariel-runs attach` (a client on its own pseudo-terminal types a
//      key into a tty run of `cat`, waits for its echo), against the same through `tmux attach`
//      (the system's tmux); N keys each (`--smoke`: 20), interleaved; median and ratio; and the
//      floor, one Node process with no logic between a terminal and a pty (bench/_tty_floor.cjs):
//      what a Node monitor cannot go under; and the same through `ariel` (the terminal UI,
//      docs/tui.md): its list on a terminal of its own, Enter on the run, then the same keys,
//      against `ariel-runs attach` (its own run of `cat`, its own workspace: one run's echo
//      would reach the other's client);
//   2. memory: N tty runs of `sh` (N = 20, `--smoke`: 3): the resident memory of ariel's own
//      processes (the monitor, which holds the terminals and their screens), per run.
// Run: node bench/tty.mjs [--smoke] [--only=1,2]   (needs `node scripts/setup.mjs` first)
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  benchEnv,
  builtCli,
  listOption,
  loadAverage,
  monitorPid,
  REPO_ROOT,
  rssKb,
  runsWorkspace,
  smoke,
} from "./_env.mjs";

const only = listOption("only");
const want = (n) => !only || only.includes(String(n));
const runsBin = builtCli("runs", "bench/tty").bin;
const spawnBin = builtCli("spawn", "bench/tty").bin;
const tuiBin = builtCli("tui", "bench/tty").bin;
const KEYS = smoke ? 20 : 200;
const MEMORY_RUNS = smoke ? 3 : 20;
const env = benchEnv({ ARIEL_MONITOR_IDLE_MS: "30000", TERM: "xterm-256color" });
const pty = createRequire(join(REPO_ROOT, "packages/core/package.json"))("@lydell/node-pty");

function run(cmd, args) {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A client on its own terminal running argv; `echo(key)` types it and resolves with the ms until it came back. */
function client(argv) {
  const p = pty.spawn(argv[0], argv.slice(1), { cols: 80, rows: 24, env, name: "xterm-256color" });
  let seen = "";
  let waiter = null;
  p.onData((d) => {
    seen += d;
    if (waiter && seen.includes(waiter.key)) waiter.resolve();
  });
  return {
    ready: (text) =>
      new Promise((resolve) => {
        const t = setInterval(() => {
          if (seen.includes(text)) {
            clearInterval(t);
            resolve();
          }
        }, 20);
      }),
    echo: (key) =>
      new Promise((resolve) => {
        seen = "";
        const t0 = process.hrtime.bigint();
        waiter = { key, resolve: () => resolve(Number(process.hrtime.bigint() - t0) / 1e6) };
        p.write(key);
      }),
    kill: () => p.kill("SIGKILL"),
  };
}

function cleanUp(ws) {
  try {
    const pid = monitorPid(ws);
    process.kill(pid, "SIGKILL"); // its terminals hang up: every run's child gets SIGHUP
  } catch {}
  rmSync(ws, { recursive: true, force: true });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const haveTmux = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
if (want(1) && !haveTmux) console.log("keystroke echo: skipped, no tmux on PATH (the baseline)");
if (want(1) && haveTmux) {
  const ws = runsWorkspace("ariel-bench-tty-echo-");
  const uiWs = runsWorkspace("ariel-bench-tty-echo-ui-");
  const sock = `ariel-bench-${process.pid}`;
  try {
    for (const w of [ws, uiWs]) {
      run(process.execPath, [
        spawnBin,
        "-C",
        w,
        "--detach",
        "--shared",
        "--tty",
        "--name",
        "cat",
        "--",
        "cat",
      ]);
    }
    // No status line: its redraws (a clock, the window name) would be taken for echoes.
    run("tmux", ["-L", sock, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "cat"]);
    run("tmux", ["-L", sock, "set-option", "-g", "status", "off"]);
    const ariel = client([process.execPath, runsBin, "attach", "-C", ws, "cat"]);
    const tmux = client(["tmux", "-L", sock, "attach"]);
    const floor = client([process.execPath, join(REPO_ROOT, "bench/_tty_floor.cjs")]);
    const ui = client([process.execPath, tuiBin, "-C", uiWs]);
    await ui.ready("Running (1)");
    await sleep(300);
    ui.echo("\r"); // Enter on the one run: attached (its echo is not waited for: the repaint is)
    await sleep(1500); // all attached and repainted
    const times = { ariel: [], tmux: [], floor: [], ui: [] };
    for (let i = 0; i <= KEYS; i++) {
      const key = String.fromCharCode(97 + (i % 26));
      const a = await ariel.echo(key);
      const t = await tmux.echo(key);
      const f = await floor.echo(key);
      const u = await ui.echo(key);
      if (i === 0) continue; // warm-up
      times.ariel.push(a);
      times.tmux.push(t);
      times.floor.push(f);
      times.ui.push(u);
    }
    const [a, t, f, u] = [median(times.ariel), median(times.tmux), median(times.floor), median(times.ui)];
    console.log(`keystroke echo (${KEYS} keys, interleaved), load average ${loadAverage()}`);
    console.log(`tmux attach        median ${t.toFixed(3)} ms`);
    console.log(`ariel-runs attach  median ${a.toFixed(3)} ms   ${(a / t).toFixed(2)}x tmux`);
    console.log(`floor (one Node)   median ${f.toFixed(3)} ms   ${(f / t).toFixed(2)}x tmux`);
    console.log(
      `ariel (the UI)     median ${u.toFixed(3)} ms   ${(u / a).toFixed(2)}x ariel-runs attach (bar 1.1x)`,
    );
    ui.kill();
    ariel.kill();
    tmux.kill();
    floor.kill();
  } finally {
    spawnSync("tmux", ["-L", sock, "kill-server"]);
    cleanUp(ws);
    cleanUp(uiWs);
  }
}

if (want(2)) {
  const ws = runsWorkspace("ariel-bench-tty-mem-");
  try {
    const spawnOne = (i) =>
      run(process.execPath, [
        spawnBin,
        "-C",
        ws,
        "--detach",
        "--shared",
        "--tty",
        "--name",
        `sh-${i}`,
        "--",
        "sh",
      ]);
    spawnOne(0);
    await sleep(500);
    const one = rssKb(monitorPid(ws));
    for (let i = 1; i < MEMORY_RUNS; i++) spawnOne(i);
    await sleep(1000);
    const all = rssKb(monitorPid(ws));
    console.log(`memory of ariel's processes (the monitor) with ${MEMORY_RUNS} tty runs of sh`);
    console.log(`1 run: ${(one / 1024).toFixed(1)} MB; ${MEMORY_RUNS} runs: ${(all / 1024).toFixed(1)} MB`);
    console.log(
      `per run: ${(all / 1024 / MEMORY_RUNS).toFixed(2)} MB (all / N), ` +
        `${((all - one) / 1024 / (MEMORY_RUNS - 1)).toFixed(2)} MB each run beyond the first`,
    );
  } finally {
    cleanUp(ws);
  }
}
process.exit(0);
