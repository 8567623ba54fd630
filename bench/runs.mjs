// Background-run benchmarks (docs/runs.md). Ratios against baselines measured in the same run;
// never fails on time.
//   1. `ariel-spawn --detach -- true` until its run record is printed and it exits, against
//      `node -e 0` (interleaved; wall and CPU; monitor already running);
//   2. `ariel-runs list --all` over 1,000 ended runs (`--smoke`: 50), against `node -e 0`;
//   3. monitor overhead on a child that writes 100 MB (`--smoke`: 10 MB) to stdout, against the
//      same child writing to a file itself (CPU: the child, the monitor's own time and the
//      hole punch helper or `fallocate` runs that enforce the output cap), at the default cap
//      and a small one;
//   4. memory: N runs of `sleep 60` started by N separate `ariel-spawn --detach` calls (N = 50,
//      `--smoke`: 5): the resident memory of ariel's own processes, summed, per run, as N grows.
// Run: node bench/runs.mjs [--smoke] [--only=1,2,3,4]   (needs `node scripts/setup.mjs` first)
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  benchEnv,
  builtCli,
  listOption,
  loadAverage,
  monitorPid,
  rssKb,
  runsWorkspace,
  smoke,
  tempDir,
} from "./_env.mjs";
import { measureInterleaved } from "./_measure.mjs";

// --only=3 (or 1,4 ...): just those measurements
const only = listOption("only");
const want = (n) => !only || only.includes(String(n));
const runsBin = builtCli("runs", "bench/runs").bin;
const { bin: spawnBin, bundle: spawnBundle } = builtCli("spawn", "bench/runs");
const RUNS = smoke ? 3 : 15;
const LISTED = smoke ? 50 : 1000;
const BYTES = smoke ? 10_000_000 : 100_000_000;
const MEMORY_RUNS = smoke ? 5 : 50;
const env = benchEnv({ ARIEL_MONITOR_IDLE_MS: "30000" });

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

/** Fields 14-17 of /proc/PID/stat: utime, stime, cutime, cstime (clock ticks); field 4 the ppid. */
function stat(pid) {
  const t = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = t.slice(t.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

/**
 * A process's CPU ticks: its own, and its children's: the reaped ones (cutime, cstime) and the
 * live ones (the monitor's hole punch helper outlives a run: its time counts as it is spent).
 */
function ticks(pid) {
  const t = stat(pid);
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const c = stat(p);
      if (c.ppid === pid) t.children += c.own + c.children;
    } catch {}
  }
  return t;
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

function cleanUp(ws) {
  const dir = join(ws, ".ariel/runs");
  for (const id of existsSync(dir) ? readdirSync(dir) : []) {
    try {
      const rec = JSON.parse(readFileSync(join(dir, id, "run.json"), "utf8"));
      if (rec.child && !existsSync(join(dir, id, "exit.json"))) process.kill(-rec.child.pgid, "SIGKILL");
    } catch {}
  }
  try {
    process.kill(monitorPid(ws), "SIGKILL");
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
if (want(1)) {
  const ws = runsWorkspace("ariel-bench-runs-start-");
  try {
    const args = ["-C", ws, "--detach", "--shared", "--json", "--", "true"];
    run(process.execPath, [spawnBundle, ...args]); // the monitor is running before the first round
    const [base, bin, launcher] = measureInterleaved(
      [
        { label: "node -e 0", cmd: process.execPath, args: ["-e", "0"] },
        { label: "dist", cmd: process.execPath, args: [spawnBundle, ...args] },
        { label: "launcher", cmd: process.execPath, args: [spawnBin, ...args] },
      ],
      { runs: RUNS, cwd: ws, env },
    );
    const r = (m) => `${(m.wall / base.wall).toFixed(2)}x wall, ${(m.cpu / base.cpu).toFixed(2)}x CPU`;
    report(
      `spawn --detach -- true: ${bin.wall.toFixed(1)} ms, node -e 0: ${base.wall.toFixed(1)} ms, ratio ${r(bin)} (target <= 1.5x wall); through bin/ariel-spawn.mjs ${r(launcher)}; load average ${loadAverage()}`,
    );
  } finally {
    cleanUp(ws);
  }
}

// 2. list over many ended runs (one real run, copied under fresh ids)
if (want(2)) {
  const ws = runsWorkspace("ariel-bench-runs-list-");
  try {
    const rec = JSON.parse(
      run(process.execPath, [spawnBin, "-C", ws, "--detach", "--shared", "--json", "--", "true"]),
    );
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

// 3. monitor overhead on a child writing a lot to stdout, with the output cap enforced:
//    (a) a cap above what is written (nothing dropped: the monitor's fixed cost per run),
//    (b) the default cap (64 MiB, looked at every second: one hole punched at the end), and the
//        same with no perl on the monitor's PATH (each hole punched by util-linux `fallocate`),
//    (c) a 16 MiB cap looked at every 10 ms (holes punched while the child writes: worst case).
//    Baseline and run alternate, REPEAT times each. CPU comes in 10 ms ticks and one 100 MB
//    write is ~10 of them, so the ratio is of the sums over all repeats; the range is per repeat.
const REPEAT = smoke ? 3 : 7;
function outputOverhead(tag, extraEnv) {
  const ws = runsWorkspace(`ariel-bench-runs-output-${tag.replace(/\W/g, "-")}-`);
  try {
    const wsEnv = { ...env, ...extraEnv };
    const warm = JSON.parse(
      run(process.execPath, [spawnBin, "-C", ws, "--detach", "--shared", "--json", "--", "true"], {
        env: wsEnv,
      }),
    );
    run(process.execPath, [runsBin, "wait", "-C", ws, warm.runId]);
    const mon = monitorPid(ws);
    const ratios = [];
    let kept = 0;
    let sum = 0;
    let sumBase = 0;
    let sumMonitor = 0;
    for (let i = 0; i < REPEAT; i++) {
      const base0 = stat(process.pid).children;
      rmSync(join(ws, "direct.out"), { force: true });
      run("sh", ["-c", `head -c ${BYTES} /dev/zero > ${join(ws, "direct.out")}`]);
      const baseline = stat(process.pid).children - base0;
      const m0 = ticks(mon);
      const rec = JSON.parse(
        run(process.execPath, [
          spawnBin,
          "-C",
          ws,
          "--detach",
          "--shared",
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
      // the monitor's children: the run's child, the hole punch helper, any `fallocate` it ran
      const child = m1.children - m0.children;
      const monitor = m1.own - m0.own;
      ratios.push((child + monitor) / Math.max(1, baseline));
      sum += child + monitor;
      sumBase += baseline;
      sumMonitor += monitor;
      kept = statSync(join(ws, ".ariel/runs", rec.runId, "stdout")).blocks * 512;
    }
    ratios.sort((a, b) => a - b);
    report(
      `${BYTES / 1e6} MB to stdout, cap ${tag}: ratio ${(sum / Math.max(1, sumBase)).toFixed(2)}x (child and fallocate ${sum - sumMonitor} + monitor ${sumMonitor} ticks vs ${sumBase} writing the file itself, ${REPEAT} interleaved; per repeat ${ratios[0].toFixed(2)}-${ratios[ratios.length - 1].toFixed(2)}; ${(kept / 2 ** 20).toFixed(1)} MiB kept) (target <= 1.3x)`,
    );
  } finally {
    cleanUp(ws);
  }
}
if (want(3)) {
  outputOverhead("1PB", { ARIEL_RUN_OUTPUT_CAP: String(2 ** 50) });
  outputOverhead("64MiB", {});
  // the same through util-linux `fallocate` per hole: no perl on the monitor's PATH (decision 0040)
  const bin = tempDir("ariel-bench-runs-bin-");
  try {
    for (const tool of ["git", "fallocate", "true"]) {
      const dir = (process.env.PATH ?? "").split(":").find((d) => d && existsSync(join(d, tool)));
      if (dir) symlinkSync(join(dir, tool), join(bin, tool));
    }
    outputOverhead("64MiB, fallocate(1)", { PATH: bin });
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
  outputOverhead("16MiB/10ms", {
    ARIEL_RUN_OUTPUT_CAP: String(16 * 2 ** 20),
    ARIEL_RUN_OUTPUT_POLL_MS: "10",
  });
  report(`load average: ${loadAverage()}`);
}

// 4. memory of ariel's processes with N live runs
if (want(4)) {
  const ws = runsWorkspace("ariel-bench-runs-memory-");
  try {
    const points = new Set([1, Math.ceil(MEMORY_RUNS / 5), Math.ceil(MEMORY_RUNS / 2), MEMORY_RUNS]);
    for (let i = 1; i <= MEMORY_RUNS; i++) {
      run(process.execPath, [spawnBin, "-C", ws, "--detach", "--shared", "--", "sleep", "60"]);
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
