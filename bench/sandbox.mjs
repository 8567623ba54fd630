// Sandboxed runs (docs/sandbox.md). Ratios and differences against baselines measured in the
// same run; never fails on time.
//   1. start-up: `ariel-spawn --sandbox -- true` (in place, in a checkout) against
//      `ariel-spawn -- true`, interleaved (issue 29's target: at most 15 ms more), with bubblewrap
//      alone (`bwrap … true`, the same namespaces) as the floor under the difference;
//   2. `git status` in a worktree of 6,000 files (`--smoke`: 600), inside the sandbox against
//      outside it: the median of N runs in one process each side (bench/_status_loop.mjs), so the
//      sandbox's start-up is not in it (target: at most 1.1x);
//   3. the sync after a run of 100 commits (`--smoke`: 10): from the sandboxed process's exit to
//      `sandbox.synced` in the run's events (target: at most 0.5 s).
// Run: node bench/sandbox.mjs [--smoke] (needs `node scripts/setup.mjs` first, and bwrap).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchEnv, builtCli, git, initRepo, loadAverage, REPO_ROOT, smoke, tempDir } from "./_env.mjs";
import { measureInterleaved } from "./_measure.mjs";

const { bundle } = builtCli("spawn", "bench/sandbox");
const RUNS = smoke ? 3 : 30;
const FILES = smoke ? 600 : 6000;
const COMMITS = smoke ? 10 : 100;
const STATUS_RUNS = smoke ? 3 : 15;
const env = benchEnv();

if (spawnSync("bwrap", ["--version"], { stdio: "ignore" }).status !== 0) {
  console.log("bench/sandbox: no bwrap on PATH (apt-get install bubblewrap); nothing measured");
  process.exit(smoke ? 0 : 1);
}

/** Run ariel-spawn in `cwd` with `args`; its stdout (throws on a non-zero exit). */
function spawnIn(cwd, args) {
  const r = spawnSync(process.execPath, [bundle, ...args], {
    cwd,
    env,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`ariel-spawn ${args.join(" ")}: ${r.status} ${r.stderr}`);
  return r.stdout;
}

function startup() {
  const ws = tempDir("ariel-bench-sandbox-");
  initRepo(ws, (dir) => writeFileSync(join(dir, "README.md"), "bench\n"));
  mkdirSync(join(ws, ".ariel"));
  const bwrap = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--unshare-user",
  ];
  bwrap.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
    "--",
    "true",
  );
  const [plain, sandboxed, floor] = measureInterleaved(
    [
      { label: "ariel-spawn -- true", cmd: process.execPath, args: [bundle, "--", "true"] },
      {
        label: "ariel-spawn --sandbox -- true",
        cmd: process.execPath,
        args: [bundle, "--sandbox", "--", "true"],
      },
      { label: "bwrap … true", cmd: "bwrap", args: bwrap },
    ],
    { runs: RUNS, cwd: ws, env },
  );
  console.log(`start-up, ${RUNS} rounds, load average ${loadAverage()}`);
  for (const r of [plain, sandboxed, floor])
    console.log(`  ${r.label.padEnd(32)} wall ${r.wall.toFixed(1).padStart(6)} ms`);
  console.log(
    `  --sandbox costs ${(sandboxed.wall - plain.wall).toFixed(1)} ms (target <= 15), of which bwrap alone ${floor.wall.toFixed(1)} ms`,
  );
}

function status() {
  const ws = tempDir("ariel-bench-sandbox-status-");
  initRepo(ws, (dir) => {
    for (let d = 0; d < FILES / 100; d++) {
      mkdirSync(join(dir, `d${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(join(dir, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
    }
  });
  mkdirSync(join(ws, ".ariel"));
  spawnIn(ws, ["--isolate", "--keep", "--task", "s", "--", "true"]);
  const loop = [process.execPath, join(REPO_ROOT, "bench/_status_loop.mjs"), String(STATUS_RUNS)];
  const outside = Number(spawnIn(ws, ["--isolate", "--task", "s", "--keep", "--", ...loop]).trim());
  const inside = Number(
    spawnIn(ws, ["--sandbox", "--isolate", "--task", "s", "--keep", "--", ...loop]).trim(),
  );
  console.log(
    `git status in a worktree of ${FILES} files, median of ${STATUS_RUNS}, load average ${loadAverage()}`,
  );
  console.log(
    `  outside ${outside.toFixed(2)} ms   inside ${inside.toFixed(2)} ms   ${(inside / outside).toFixed(2)}x (target <= 1.1x)`,
  );
}

function sync() {
  const ws = tempDir("ariel-bench-sandbox-sync-");
  initRepo(ws, (dir) => writeFileSync(join(dir, "README.md"), "bench\n"));
  mkdirSync(join(ws, ".ariel"));
  const work = `for i in $(seq ${COMMITS}); do echo "$i" > "f$i.txt"; git add "f$i.txt"; git commit -qm "commit $i"; done`;
  const out = spawnIn(ws, [
    "--sandbox",
    "--isolate",
    "--keep",
    "--task",
    "c",
    "--json",
    "--",
    "sh",
    "-c",
    work,
  ]);
  const events = out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const at = (name) => Date.parse(events.find((e) => e.event === name).ts);
  const ms = at("sandbox.synced") - at("process.exited");
  const n = Number(git(ws, "rev-list", "--count", "ariel/c")) - 1;
  console.log(`sync after a run of ${COMMITS} commits (${n} on the branch), load average ${loadAverage()}`);
  console.log(`  ${ms} ms from the exit to sandbox.synced (target <= 500)`);
}

startup();
status();
sync();
