// ariel-spawn benchmarks. Ratios against baselines measured in the same run; never fails on time.
//   1. start-up: `ariel-spawn -- true` in a workspace of 3 sources against `node -e 0` (and
//      `true` itself), interleaved, wall and CPU (issue 12's target: <= 1.3x the CPU), run as
//      npm installs it (dist/ariel-spawn.cjs) and, for comparison, through the repository's
//      launcher (bin/ariel-spawn.mjs: one ES-module load more), and the floor under it
//      (bench/_spawn_floor.cjs: node:child_process, the piped child and the history fsync alone);
//   2. fan-out: 100 sources (`--smoke`: 10) running `git rev-parse HEAD` with `-j 8`, against the
//      same work through `xargs -P 8 git -C`.
// Run: node bench/spawn.mjs [--smoke]   (needs `node scripts/setup.mjs` first)
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
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
const bin = join(repoRoot, "packages/cli-spawn/bin/ariel-spawn.mjs");
// The bin as npm installs it (publishConfig.bin): what the start-up target is about.
const installedBin = join(repoRoot, "packages/cli-spawn/dist/ariel-spawn.cjs");
if (!existsSync(join(repoRoot, "packages/cli-spawn/dist/ariel-spawn.cjs"))) {
  process.stderr.write("bench/spawn: ariel-spawn is not built; run: node scripts/setup.mjs\n");
  process.exit(1);
}
const RUNS = smoke ? 3 : 20;
const SOURCES = smoke ? 10 : 100;
const FANOUT_RUNS = smoke ? 1 : 5;

const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",

  // Keep the benchmark's workspaces out of the user's registry of workspaces.
  ARIEL_STATE_HOME: join(tmpdir(), "ariel-bench-state"),
};

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { env, stdio: ["pipe", "ignore", "pipe"], ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
}

/** Median wall time in ms of `fn` over `n` runs (after one warm-up). */
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

const ws = realpathSync(mkdtempSync(join(tmpdir(), "ariel-bench-spawn-")));
const small = realpathSync(mkdtempSync(join(tmpdir(), "ariel-bench-spawn-startup-")));
try {
  const names = Array.from({ length: SOURCES }, (_, i) => `src${String(i).padStart(3, "0")}`);
  run("git", ["init", "-q", "-b", "main", ws]);
  run("git", ["-C", ws, "commit", "-q", "--allow-empty", "-m", "root"]);
  for (const n of names) {
    const dir = join(ws, n);
    mkdirSync(dir);
    run("git", ["init", "-q", "-b", "main", dir]);
    writeFileSync(join(dir, "README.md"), `${n}\n`);
    run("git", ["-C", dir, "add", "-A"]);
    run("git", ["-C", dir, "commit", "-q", "-m", "initial"]);
  }

  // Start-up in its own workspace of 3 sources (the fan-out one below has 100).
  for (const n of ["alpha", "beta", "gamma"]) {
    mkdirSync(join(small, n), { recursive: true });
    run("git", ["init", "-q", "-b", "main", join(small, n)]);
    run("git", ["-C", join(small, n), "commit", "-q", "--allow-empty", "-m", "initial"]);
  }
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

  const list = `${names.join("\n")}\n`;
  const paths = `${names.map((n) => join(ws, n)).join("\n")}\n`;
  const tXargs = median(FANOUT_RUNS, () =>
    run("xargs", ["-P", "8", "-I{}", "git", "-C", "{}", "rev-parse", "HEAD"], { cwd: ws, input: paths }),
  );
  const tFan = median(FANOUT_RUNS, () =>
    run(process.execPath, [bin, "--source", "-", "-j", "8", "--", "git", "rev-parse", "HEAD"], {
      cwd: ws,
      input: list,
    }),
  );
  const tFanJson = median(FANOUT_RUNS, () =>
    run(process.execPath, [bin, "--source", "-", "-j", "8", "--json", "--", "git", "rev-parse", "HEAD"], {
      cwd: ws,
      input: list,
    }),
  );

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
    [`xargs -P 8 git -C ... rev-parse (${SOURCES})`, f(tXargs), "1.00x (baseline)"],
    [`ariel-spawn -j 8 -- git rev-parse (${SOURCES})`, f(tFan), x(tFan, tXargs)],
    [`  ... with --json`, f(tFanJson), x(tFanJson, tXargs)],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  process.stdout.write(
    `spawn bench (${smoke ? "smoke" : "full"}; medians of ${RUNS} / ${FANOUT_RUNS} runs; load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")})\n`,
  );
  for (const [name, t, ratio] of rows)
    process.stdout.write(`  ${name.padEnd(w)}  ${t.padStart(10)}  ${ratio}\n`);
} finally {
  rmSync(ws, { recursive: true, force: true });
  rmSync(small, { recursive: true, force: true });
}
