// ariel-spawn benchmarks. Ratios against baselines measured in the same run; never fails on time.
//   1. start-up: `ariel-spawn -- true` against `true` itself and `node -e 0`;
//   2. fan-out: 100 sources (`--smoke`: 10) running `git rev-parse HEAD` with `-j 8`, against the
//      same work through `xargs -P 8 git -C`.
// Run: node bench/spawn.mjs [--smoke]   (needs `node scripts/setup.mjs` first)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const smoke = process.argv.includes("--smoke");
const repoRoot = new URL("..", import.meta.url).pathname;
const bin = join(repoRoot, "packages/cli-spawn/bin/ariel-spawn.mjs");
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

  const opts = { cwd: ws };
  const tTrue = median(RUNS, () => run("true", [], opts));
  const tNode = median(RUNS, () => run(process.execPath, ["-e", "0"], opts));
  const tSpawn = median(RUNS, () => run(process.execPath, [bin, "--", "true"], opts));
  const tDry = median(RUNS, () => run(process.execPath, [bin, "-n", "--", "true"], opts));

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
  const rows = [
    ["true", f(tTrue), "1.00x (baseline)"],
    ["node -e 0", f(tNode), x(tNode, tTrue)],
    ["ariel-spawn -- true", f(tSpawn), `${x(tSpawn, tTrue)} true, ${x(tSpawn, tNode)} node -e 0`],
    ["ariel-spawn -n -- true", f(tDry), `${x(tDry, tNode)} node -e 0`],
    [`xargs -P 8 git -C ... rev-parse (${SOURCES})`, f(tXargs), "1.00x (baseline)"],
    [`ariel-spawn -j 8 -- git rev-parse (${SOURCES})`, f(tFan), x(tFan, tXargs)],
    [`  ... with --json`, f(tFanJson), x(tFanJson, tXargs)],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  process.stdout.write(
    `spawn bench (${smoke ? "smoke" : "full"}; medians of ${RUNS} / ${FANOUT_RUNS} runs)\n`,
  );
  for (const [name, t, ratio] of rows)
    process.stdout.write(`  ${name.padEnd(w)}  ${t.padStart(10)}  ${ratio}\n`);
} finally {
  rmSync(ws, { recursive: true, force: true });
}
