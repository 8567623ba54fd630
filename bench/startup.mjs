// Start-up cost of ariel-spawn, ariel-worktree and ariel-discover against `node -e 0`, measured
// in the same run and interleaved (one run of each command per round), so load on the machine
// hits all alike.
// CPU is the children's user+sys (cutime/cstime of /proc/self/stat, clock ticks: averaged over
// the runs); wall is the median. Ratios are printed, never asserted.
// Run: node bench/startup.mjs [--runs N] [BUILD_DIR...]   (needs `node scripts/setup.mjs` first)
// A BUILD_DIR holds cli-spawn/{bin,dist} and cli-worktree/{bin,dist}, and cli-discover/ if it
// is to be measured (e.g. a copy of packages/ from an older build) to compare builds in one run;
// the default is this checkout's packages/.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childCpuMs } from "./_measure.mjs";

const argv = process.argv.slice(2);
const runsAt = argv.indexOf("--runs");
const RUNS = runsAt !== -1 ? Number(argv[runsAt + 1]) : argv.includes("--smoke") ? 3 : 20;
const dirs = argv.filter((a, i) => !a.startsWith("--") && i !== runsAt + 1);
const repoRoot = new URL("..", import.meta.url).pathname;
const builds = dirs.length > 0 ? dirs : [join(repoRoot, "packages")];

const ws = realpathSync(mkdtempSync(join(tmpdir(), "ariel-bench-startup-")));
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  // Keep the benchmark's workspace out of the user's registry of workspaces.
  ARIEL_STATE_HOME: join(tmpdir(), "ariel-bench-state"),
};
try {
  spawnSync("git", ["init", "-q", "-b", "main", ws], { env });
  const cmds = [["node -e 0", ["-e", "0"]]];
  for (const b of builds) {
    const tag = builds.length > 1 ? `${b} ` : "";
    const spawnBin = join(b, "cli-spawn/bin/ariel-spawn.mjs");
    const wtBin = join(b, "cli-worktree/bin/ariel-worktree.mjs");
    const discoverBin = join(b, "cli-discover/bin/ariel-discover.mjs");
    cmds.push([`${tag}ariel-spawn -- true`, [spawnBin, "--", "true"]]);
    cmds.push([`${tag}ariel-spawn -n -- true`, [spawnBin, "-n", "--", "true"]]);
    cmds.push([`${tag}ariel-worktree list`, [wtBin, "list"]]);
    cmds.push([`${tag}ariel-worktree --help`, [wtBin, "--help"]]);
    if (existsSync(discoverBin)) cmds.push([`${tag}ariel-discover --json`, [discoverBin, "--json"]]);
  }
  const res = cmds.map(() => ({ wall: [], cpu: 0 }));
  for (let r = 0; r <= RUNS; r++) {
    cmds.forEach(([name, args], i) => {
      const c0 = childCpuMs();
      const t0 = process.hrtime.bigint();
      const p = spawnSync(process.execPath, args, { cwd: ws, env, stdio: ["ignore", "ignore", "pipe"] });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (p.status !== 0) throw new Error(`${name} failed (${p.status}): ${p.stderr}`);
      if (r === 0) return; // warm-up round
      res[i].wall.push(ms);
      res[i].cpu += childCpuMs() - c0;
    });
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const base = { wall: median(res[0].wall), cpu: res[0].cpu / RUNS };
  const load = existsSync("/proc/loadavg")
    ? readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3)
    : [];
  console.log(`start-up, ${RUNS} interleaved runs each, load average ${load.join(" ")}`);
  cmds.forEach(([name], i) => {
    const wall = median(res[i].wall);
    const cpu = res[i].cpu / RUNS;
    console.log(
      `${name.padEnd(36)} wall ${wall.toFixed(0).padStart(5)} ms ${(wall / base.wall).toFixed(2)}x` +
        `   cpu ${cpu.toFixed(0).padStart(5)} ms ${(cpu / base.cpu).toFixed(2)}x`,
    );
  });
} finally {
  rmSync(ws, { recursive: true, force: true });
}
