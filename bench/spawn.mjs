// ariel-spawn benchmarks. Ratios against baselines measured in the same run; never fails on time.
//   1. start-up: `ariel-spawn -- true` in a workspace of 3 sources against `node -e 0` (and
//      `true` itself), interleaved, wall and CPU (issue 12's target: <= 1.3x the CPU), run as
//      npm installs it (dist/ariel-spawn.cjs) and, for comparison, through the repository's
//      launcher (bin/ariel-spawn.mjs: one ES-module load more), and the floor under it
//      (bench/_spawn_floor.cjs: node:child_process, the piped child and the history fsync alone);
//   2. fan-out (issue 12): a workspace of 100 sources under a root that is a checkout too (101;
//      `--smoke`: 10), `ariel-discover --json | ariel-spawn --source - -j 8 -- git rev-parse HEAD`
//      against `find ROOT -maxdepth 2 -name .git -print0 | xargs -0 -P 8 -I{} git -C {} rev-parse
//      HEAD`, and against a floor (bench/_fanout_floor.cjs: the same children started by a bare
//      node script). Pipelines are wired without a shell; wall is the median of the rounds, CPU
//      the reaped processes' user+sys (the git children included), averaged.
// Run: node bench/spawn.mjs [--smoke] [--fanout-runs N] [--fanout-build DIR]...
// (needs `node scripts/setup.mjs` first). A --fanout-build DIR holds cli-discover/dist and
// cli-spawn/dist of another build (e.g. a copy of packages/ from before a change): its pipeline
// is measured in the same rounds.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  benchEnv,
  builtCli,
  initRepo,
  loadAverage,
  numberOption,
  optionAll,
  REPO_ROOT as repoRoot,
  smoke,
  tempDir,
} from "./_env.mjs";
import { childCpuMs, measureInterleaved, median } from "./_measure.mjs";

// installedBin: the bin as npm installs it (publishConfig.bin): what the start-up target is about.
const { bin, bundle: installedBin } = builtCli("spawn", "bench/spawn");
const RUNS = smoke ? 3 : 20;
const SOURCES = smoke ? 10 : 100;
const FANOUT_RUNS = numberOption("fanout-runs", smoke ? 2 : 15);
const env = benchEnv();

const ws = tempDir("ariel-bench-spawn-");
const small = tempDir("ariel-bench-spawn-startup-");
try {
  const names = Array.from({ length: SOURCES }, (_, i) => `src${String(i).padStart(3, "0")}`);
  initRepo(ws, () => {}, "root");
  for (const n of names) initRepo(join(ws, n), (dir) => writeFileSync(join(dir, "README.md"), `${n}\n`));

  // Start-up in its own workspace of 3 sources (the fan-out one below has 100).
  for (const n of ["alpha", "beta", "gamma"]) initRepo(join(small, n));
  mkdirSync(join(small, ".ariel"));
  const [sNode, sTrue, sSpawn, sDry, sLauncher, sFloor] = measureInterleaved(
    [
      { label: "node -e 0", cmd: process.execPath, args: ["-e", "0"] },
      { label: "true", cmd: "true", args: [] },
      { label: "ariel-spawn -- true", cmd: process.execPath, args: [installedBin, "--", "true"] },
      { label: "ariel-spawn -n -- true", cmd: process.execPath, args: [installedBin, "-n", "--", "true"] },
      { label: "launcher", cmd: process.execPath, args: [bin, "--", "true"] },
      {
        label: "floor",
        cmd: process.execPath,
        args: [join(repoRoot, "bench/_spawn_floor.cjs"), "--", "true"],
      },
    ],
    { runs: RUNS, cwd: small, env },
  );

  const fan = await fanout(ws, SOURCES + 1);
  const f = (ms) => `${ms.toFixed(1)} ms`;
  const x = (a, b) => `${(a / b).toFixed(2)}x`;
  const both = (r) => `${x(r.wall, sNode.wall)} wall, ${x(r.cpu, sNode.cpu)} CPU of node -e 0`;
  const rows = [
    ["node -e 0 (3-source workspace)", f(sNode.wall), `1.00x (baseline; ${f(sNode.cpu)} CPU)`],
    ["true", f(sTrue.wall), both(sTrue)],
    ["ariel-spawn -- true", f(sSpawn.wall), `${both(sSpawn)} (target <= 1.3x CPU)`],
    ["ariel-spawn -n -- true", f(sDry.wall), both(sDry)],
    ["  -- true through bin/ariel-spawn.mjs", f(sLauncher.wall), both(sLauncher)],
    ["  floor: bench/_spawn_floor.cjs -- true", f(sFloor.wall), both(sFloor)],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  process.stdout.write(
    `spawn bench (${smoke ? "smoke" : "full"}; medians of ${RUNS} / ${FANOUT_RUNS} runs; load average ${loadAverage()})\n`,
  );
  for (const [name, t, ratio] of rows)
    process.stdout.write(`  ${name.padEnd(w)}  ${t.padStart(10)}  ${ratio}\n`);
  process.stdout.write(
    `fan-out, ${SOURCES + 1} sources, -j 8 (${FANOUT_RUNS} interleaved rounds; load average ${fan.load} before, ${loadAverage()} after)\n`,
  );
  const fw = Math.max(...fan.results.map((r) => r.label.length));
  const [base] = fan.results;
  for (const r of fan.results) {
    process.stdout.write(
      `  ${r.label.padEnd(fw)}  wall ${f(r.wall).padStart(10)} ${x(r.wall, base.wall)}   cpu ${f(r.cpu).padStart(10)} ${x(r.cpu, base.cpu)}\n`,
    );
  }
} finally {
  rmSync(ws, { recursive: true, force: true });
  rmSync(small, { recursive: true, force: true });
}

/**
 * Run `stages` as one pipeline (each stage's stdout is the next one's stdin, no shell) and
 * resolve with its wall ms and the last stage's stdout; rejects when any stage fails.
 */
function pipeline(stages, cwd) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const procs = [];
    let stdin = "ignore";
    for (const [cmd, ...args] of stages) {
      const p = spawn(cmd, args, { cwd, env, stdio: [stdin, "pipe", "pipe"] });
      // The next stage holds its own copy of the pipe; ours is closed so that it sees the end.
      if (stdin !== "ignore") stdin.destroy();
      stdin = p.stdout;
      procs.push(p);
    }
    const out = [];
    stdin.on("data", (b) => out.push(b));
    const errs = procs.map(() => []);
    let open = procs.length;
    const codes = [];
    for (const [i, p] of procs.entries()) {
      p.stderr.on("data", (b) => errs[i].push(b));
      p.on("close", (code) => {
        codes[i] = code;
        if (--open > 0) return;
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const bad = codes.findIndex((c) => c !== 0);
        if (bad !== -1) {
          reject(new Error(`${stages[bad].join(" ")} failed (${codes[bad]}): ${Buffer.concat(errs[bad])}`));
        } else resolve({ ms, stdout: Buffer.concat(out).toString("utf8") });
      });
    }
  });
}

/**
 * The fan-out of issue 12, interleaved with its baseline and the floor: one round runs each
 * pipeline once (a first round, not counted, warms the page cache and checks that every one
 * printed `expectedLines` lines: one commit id per source).
 */
function fanout(ws, expectedLines) {
  const find = ["find", ws, "-maxdepth", "2", "-name", ".git", "-print0"];
  const child = ["git", "rev-parse", "HEAD"];
  // The bins as npm installs them: the CommonJS bundles themselves.
  const ariel = (packages, label) => [
    label,
    [
      [process.execPath, join(packages, "cli-discover/dist/ariel-discover.cjs"), "--json"],
      [
        process.execPath,
        join(packages, "cli-spawn/dist/ariel-spawn.cjs"),
        "--source",
        "-",
        "-j",
        "8",
        "--",
        ...child,
      ],
    ],
  ];
  const builds = optionAll("fanout-build");
  const cases = [
    [
      "find | xargs -0 -P 8 -I{} git -C {} rev-parse HEAD",
      [find, ["xargs", "-0", "-P", "8", "-I{}", "git", "-C", "{}", ...child.slice(1)]],
    ],
    [
      "floor: find | node _fanout_floor.cjs 8 -- git ...",
      [find, [process.execPath, join(repoRoot, "bench/_fanout_floor.cjs"), "8", "--", ...child]],
    ],
    ariel(join(repoRoot, "packages"), "ariel-discover --json | ariel-spawn --source - -j 8"),
    ...builds.map((b) => ariel(b, `${b}: the same pipeline`)),
  ];
  const load = loadAverage();
  const walls = cases.map(() => []);
  const cpu = cases.map(() => 0);
  const rounds = (async () => {
    for (let round = 0; round <= FANOUT_RUNS; round++) {
      for (let i = 0; i < cases.length; i++) {
        const [label, stages] = cases[i];
        const c0 = childCpuMs();
        const { ms, stdout } = await pipeline(stages, ws);
        const c1 = childCpuMs();
        if (round === 0) {
          const lines = stdout.split("\n").filter((l) => /[0-9a-f]{40}$/.test(l)).length;
          if (lines !== expectedLines)
            throw new Error(`${label}: ${lines} commit ids, expected ${expectedLines}`);
          continue;
        }
        walls[i].push(ms);
        cpu[i] += c1 - c0;
      }
    }
  })();
  return rounds.then(() => ({
    load,
    results: cases.map(([label], i) => ({
      label,
      wall: median(walls[i]),
      cpu: cpu[i] / FANOUT_RUNS,
    })),
  }));
}
