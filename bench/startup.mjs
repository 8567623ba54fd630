// Start-up cost of ariel-spawn, ariel-worktree and ariel-discover against `node -e 0`, measured
// in the same run and interleaved (one run of each command per round), so load on the machine
// hits all alike.
// CPU is the children's user+sys (cutime/cstime of /proc/self/stat, clock ticks: averaged over
// the runs); wall is the median. Ratios are printed, never asserted.
// Run: node bench/startup.mjs [--runs N] [BUILD_DIR...]   (needs `node scripts/setup.mjs` first)
// A BUILD_DIR holds cli-spawn/{bin,dist} and cli-worktree/{bin,dist}, and cli-discover/ if it
// is to be measured (e.g. a copy of packages/ from an older build) to compare builds in one run;
// the default is this checkout's packages/.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { benchEnv, git, numberOption, positionals, REPO_ROOT, smoke, tempDir } from "./_env.mjs";
import { measureInterleaved, printRatios } from "./_measure.mjs";

const RUNS = numberOption("runs", smoke ? 3 : 20);
const dirs = positionals(["runs"]);
const builds = dirs.length > 0 ? dirs : [join(REPO_ROOT, "packages")];

const ws = tempDir("ariel-bench-startup-");
const env = benchEnv();
try {
  git(ws, "init", "-q", "-b", "main");
  const commands = [{ label: "node -e 0", cmd: process.execPath, args: ["-e", "0"] }];
  const node = (label, args) => commands.push({ label, cmd: process.execPath, args });
  for (const b of builds) {
    const tag = builds.length > 1 ? `${b} ` : "";
    const spawnBin = join(b, "cli-spawn/bin/ariel-spawn.mjs");
    const wtBin = join(b, "cli-worktree/bin/ariel-worktree.mjs");
    const discoverBin = join(b, "cli-discover/bin/ariel-discover.mjs");
    node(`${tag}ariel-spawn -- true`, [spawnBin, "--", "true"]);
    node(`${tag}ariel-spawn -n -- true`, [spawnBin, "-n", "--", "true"]);
    node(`${tag}ariel-worktree list`, [wtBin, "list"]);
    node(`${tag}ariel-worktree --help`, [wtBin, "--help"]);
    if (existsSync(discoverBin)) node(`${tag}ariel-discover --json`, [discoverBin, "--json"]);
  }
  const results = measureInterleaved(commands, { runs: RUNS, cwd: ws, env });
  printRatios(`start-up, ${RUNS} interleaved runs each`, results, 36);
} finally {
  rmSync(ws, { recursive: true, force: true });
}
