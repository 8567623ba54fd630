// Background-run benchmarks (docs/runs.md). Ratios against baselines measured in the same run;
// never fails on time.
//   1. `ariel-spawn --detach -- true` until its run record is printed and it exits, against
//      `node -e 0` (interleaved; wall and CPU; monitor already running);
//   2. `ariel-runs list --all` over 1,000 ended runs (`--smoke`: 50), against `node -e 0`;
//   3. monitor overhead on a child that writes 100 MB (`--smoke`: 10 MB) to stdout, against the
//      same child writing to a file itself (CPU: the child plus the monitor's own time);
//   4. memory: N runs of `sleep 60` started by N separate `ariel-spawn --detach` calls (N = 50,
//      `--smoke`: 5): the resident memory of ariel's own processes, summed, per run, as N grows.
// Run: node bench/runs.mjs [--smoke]   (needs `node scripts/setup.mjs` first)
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { measureInterleaved } from "./_measure.mjs";

const smoke = process.argv.includes("--smoke");
const repoRoot = new URL("..", import.meta.url).pathname;
const spawnBin = join(repoRoot, "packages/cli-spawn/bin/ariel-spawn.mjs");
const runsBin = join(repoRoot, "packages/cli-runs/bin/ariel-runs.mjs");
if (!existsSync(join(repoRoot, "packages/cli-runs/dist/ariel-runs.cjs"))) {
  process.stderr.write("bench/runs: ariel-runs is not built; run: node scripts/setup.mjs\n");
  process.exit(1);
}
const RUNS = smoke ? 3 : 15;
const LISTED = smoke ? 50 : 1000;
const BYTES = smoke ? 10_000_000 : 100_000_000;
const MEMORY_RUNS = smoke ? 5 : 50;
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  ARIEL_MONITOR_IDLE_MS: "30000",
};

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function median(n, fn) {
  fn();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Fields 14-17 of /proc/PID/stat: utime, stime, cutime, cstime (clock ticks). */
function ticks(pid) {
  const t = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = t.slice(t.lastIndexOf(")") + 2).split(" ");
  return { own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Pids of ariel's own processes (CLIs and monitors) serving workspace `ws`. */
function arielPids(ws) {
  const out = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
      if (argv.some((a) => a.includes("ariel-")) && argv.includes(ws)) out.push(Number(p));
    } catch {}
  }
  return out;
}

function newWorkspace(tag) {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), `ariel-bench-runs-${tag}-`)));
  run("git", ["init", "-q", "-b", "main", ws]);
  return ws;
}

function monitorOf(ws) {
  return JSON.parse(readFileSync(join(ws, ".ariel/monitor.json"), "utf8")).pid;
}

function cleanUp(ws) {
  const dir = join(ws, ".ariel/runs");
  for (const id of existsSync(dir) ? readdirSync(dir) : []) {
    try {
      const rec = JSON.parse(readFileSync(join(dir, id, "run.json"), "utf8"));
      if (rec.child && !existsSync(join(dir, id, "exit.json"))) process.kill(-rec.child.pgid, "SIGKILL");
    } catch {}
  }
  try {
    process.kill(monitorOf(ws), "SIGKILL");
  } catch {}
  rmSync(ws, { recursive: true, force: true });
}

const lines = [];
const report = (s) => {
  lines.push(s);
  process.stdout.write(`${s}\n`);
};
const nodeMs = median(RUNS, () => run(process.execPath, ["-e", "0"]));

// 1. detach start-up: interleaved with node -e 0, as npm installs the bin and through the launcher
{
  const ws = newWorkspace("start");
  try {
    const args = ["-C", ws, "--detach", "--json", "--", "true"];
    const installed = join(repoRoot, "packages/cli-spawn/dist/ariel-spawn.cjs");
    run(process.execPath, [installed, ...args]); // the monitor is running before the first round
    const [base, bin, launcher] = measureInterleaved(
      [
        { label: "node -e 0", cmd: process.execPath, args: ["-e", "0"] },
        { label: "dist", cmd: process.execPath, args: [installed, ...args] },
        { label: "launcher", cmd: process.execPath, args: [spawnBin, ...args] },
      ],
      { runs: RUNS, cwd: ws, env },
    );
    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const r = (m) => `${(m.wall / base.wall).toFixed(2)}x wall, ${(m.cpu / base.cpu).toFixed(2)}x CPU`;
    report(
      `spawn --detach -- true: ${bin.wall.toFixed(1)} ms, node -e 0: ${base.wall.toFixed(1)} ms, ratio ${r(bin)} (target <= 1.5x wall); through bin/ariel-spawn.mjs ${r(launcher)}; load average ${load}`,
    );
  } finally {
    cleanUp(ws);
  }
}

// 2. list over many ended runs (one real run, copied under fresh ids)
{
  const ws = newWorkspace("list");
  try {
    const rec = JSON.parse(run(process.execPath, [spawnBin, "-C", ws, "--detach", "--json", "--", "true"]));
    run(process.execPath, [runsBin, "wait", "-C", ws, rec.runId]);
    const src = join(ws, ".ariel/runs", rec.runId);
    for (let i = 0; i < LISTED - 1; i++) {
      const id = `20260101T000000Z-${i.toString(36).padStart(6, "0")}`;
      const dst = join(ws, ".ariel/runs", id);
      cpSync(src, dst, { recursive: true });
      for (const f of ["run.json", "exit.json"]) {
        const p = join(dst, f);
        writeFileSync(p, readFileSync(p, "utf8").replaceAll(rec.runId, id));
      }
    }
    const ms = median(RUNS, () => run(process.execPath, [runsBin, "list", "-C", ws, "--all"]));
    report(
      `ariel-runs list --all over ${LISTED} ended runs: ${ms.toFixed(1)} ms, ratio ${(ms / nodeMs).toFixed(2)}x of node -e 0 (target <= 2x)`,
    );
  } finally {
    cleanUp(ws);
  }
}

// 3. monitor overhead on a child writing a lot to stdout
{
  const ws = newWorkspace("output");
  try {
    const base0 = ticks(process.pid).children;
    run("sh", ["-c", `head -c ${BYTES} /dev/zero > ${join(ws, "direct.out")}`]);
    const baseline = ticks(process.pid).children - base0;
    const warm = JSON.parse(run(process.execPath, [spawnBin, "-C", ws, "--detach", "--json", "--", "true"]));
    run(process.execPath, [runsBin, "wait", "-C", ws, warm.runId]);
    const mon = monitorOf(ws);
    const m0 = ticks(mon);
    const rec = JSON.parse(
      run(process.execPath, [
        spawnBin,
        "-C",
        ws,
        "--detach",
        "--json",
        "--",
        "head",
        "-c",
        String(BYTES),
        "/dev/zero",
      ]),
    );
    run(process.execPath, [runsBin, "wait", "-C", ws, rec.runId]);
    const m1 = ticks(mon);
    const child = m1.children - m0.children;
    const monitor = m1.own - m0.own;
    const size = readFileSync(join(ws, ".ariel/runs", rec.runId, "stdout")).length;
    report(
      `${BYTES / 1e6} MB to stdout: child ${child} + monitor ${monitor} ticks vs ${baseline} ticks writing the file itself: ratio ${((child + monitor) / Math.max(1, baseline)).toFixed(2)}x (target <= 1.3x; ${size} bytes stored)`,
    );
  } finally {
    cleanUp(ws);
  }
}

// 4. memory of ariel's processes with N live runs
{
  const ws = newWorkspace("memory");
  try {
    const points = new Set([1, Math.ceil(MEMORY_RUNS / 5), Math.ceil(MEMORY_RUNS / 2), MEMORY_RUNS]);
    for (let i = 1; i <= MEMORY_RUNS; i++) {
      run(process.execPath, [spawnBin, "-C", ws, "--detach", "--", "sleep", "60"]);
      if (!points.has(i)) continue;
      const pids = arielPids(ws);
      const kb = pids.reduce((s, p) => s + rssKb(p), 0);
      report(
        `${i} live runs: ${pids.length} ariel process(es), ${(kb / 1024).toFixed(1)} MB RSS, ${(kb / 1024 / i).toFixed(2)} MB per run (target <= 10 MB)`,
      );
    }
  } finally {
    cleanUp(ws);
  }
}
