// ariel-discover benchmarks, each against a baseline measured in the same run (never failing):
//   start-up: `ariel-discover --json` on a 3-source workspace vs `node -e 0`
//   scale:    1,000 and 10,000 sources vs `node -e 0` and vs `find ROOT -maxdepth 2 -name .git`,
//             and against a floor (bench/_discover_floor.cjs: the same reads, no discovery logic)
// `--smoke` runs tiny sizes and few iterations (CI). `--runs N` sets the iterations.
//
// How it measures: every command runs to completion with spawnSync (no shell), interleaved with
// its baseline so drift hits both alike. Wall time is the median over the runs. CPU time is the
// user+sys time of the reaped children, read from the cutime/cstime fields of /proc/self/stat
// before and after the batch (Linux; clock ticks, so it is summed over the batch and divided).
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtCli, numberOption, REPO_ROOT, smoke, tempDir } from "./_env.mjs";
import { childCpuMs, median } from "./_measure.mjs";

const RUNS = numberOption("runs", smoke ? 3 : 21);
const SIZES = smoke ? [50, 500] : [1000, 10000];
const { bin } = builtCli("discover", "bench/discover");
const floor = join(REPO_ROOT, "bench/_discover_floor.cjs"); // the same reads without discovery's logic

function once(cmd, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
  return { ms, bytes: r.stdout.length };
}

/** Run every command RUNS times, interleaved; per command: median wall ms and mean CPU ms. */
function measure(commands) {
  const walls = commands.map(() => []);
  const cpu = commands.map(() => 0);
  for (const [cmd, args] of commands) once(cmd, args); // warm the page cache
  for (let i = 0; i < RUNS; i++) {
    commands.forEach(([cmd, args], j) => {
      const c0 = childCpuMs();
      walls[j].push(once(cmd, args).ms);
      cpu[j] += childCpuMs() - c0;
    });
  }
  return commands.map((_, j) => ({ wall: median(walls[j]), cpu: cpu[j] / RUNS }));
}

function gitInit(dir, sha) {
  // What `git init` + one commit leaves that discovery reads: HEAD, a loose branch ref.
  mkdirSync(join(dir, ".git", "refs", "heads"), { recursive: true });
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, ".git", "refs", "heads", "main"), `${sha}\n`);
}

function workspace(n) {
  const root = tempDir(`ariel-bench-${n}-`);
  const sha = "0123456789abcdef0123456789abcdef01234567";
  for (let i = 0; i < n; i++) gitInit(join(root, `repo-${String(i).padStart(5, "0")}`), sha);
  mkdirSync(join(root, "docs")); // one plain directory
  return root;
}

const fmt = (x) => (Number.isNaN(x) ? "n/a" : x.toFixed(1));
const ratio = (a, b) => (Number.isNaN(a) || b === 0 ? "n/a" : `${(a / b).toFixed(2)}x`);
const node = process.execPath;
const made = [];

try {
  process.stdout.write(`runs per command: ${RUNS}${smoke ? " (smoke)" : ""}; node ${process.version}\n`);

  const small = workspace(3);
  made.push(small);
  const [base, disc] = measure([
    [node, ["-e", "0"]],
    [node, [bin, "--json", "-C", small]],
  ]);
  process.stdout.write(
    `\nstart-up (3 sources)        wall ms   cpu ms\n` +
      `  node -e 0                 ${fmt(base.wall).padStart(7)}  ${fmt(base.cpu).padStart(7)}\n` +
      `  ariel-discover --json     ${fmt(disc.wall).padStart(7)}  ${fmt(disc.cpu).padStart(7)}\n` +
      `  ratio (target <= 1.3x)    ${ratio(disc.wall, base.wall).padStart(7)}  ${ratio(disc.cpu, base.cpu).padStart(7)}\n`,
  );

  const rows = [];
  for (const n of SIZES) {
    const root = workspace(n);
    made.push(root);
    const [b, d, f, fl] = measure([
      [node, ["-e", "0"]],
      [node, [bin, "--json", "-C", root]],
      ["find", [root, "-maxdepth", "2", "-name", ".git"]],
      [node, [floor, root]],
    ]);
    rows.push({ n, b, d, f });
    process.stdout.write(
      `\n${n} sources                 wall ms   cpu ms\n` +
        `  node -e 0                 ${fmt(b.wall).padStart(7)}  ${fmt(b.cpu).padStart(7)}\n` +
        `  find -maxdepth 2 -name .git ${fmt(f.wall).padStart(5)}  ${fmt(f.cpu).padStart(7)}\n` +
        `  ariel-discover --json     ${fmt(d.wall).padStart(7)}  ${fmt(d.cpu).padStart(7)}\n` +
        `  vs node -e 0              ${ratio(d.wall, b.wall).padStart(7)}  ${ratio(d.cpu, b.cpu).padStart(7)}\n` +
        `  per source (above node)   ${(((d.wall - b.wall) / n) * 1000).toFixed(1).padStart(6)}µs\n` +
        `  vs node -e 0 + find       ${ratio(d.wall, b.wall + f.wall).padStart(7)}  ${ratio(d.cpu, b.cpu + f.cpu).padStart(7)}  (issue target: <= 1.3x CPU)\n` +
        `  floor: same syscalls, no logic ${fmt(fl.wall).padStart(4)}  ${fmt(fl.cpu).padStart(7)}  = ${ratio(fl.cpu, b.cpu + f.cpu)} of node -e 0 + find (CPU)\n`,
    );
  }
  const [lo, hi] = rows;
  if (lo && hi) {
    const growth = (hi.d.wall - hi.b.wall) / (lo.d.wall - lo.b.wall);
    process.stdout.write(
      `\ngrowth ${lo.n} -> ${hi.n} sources (${hi.n / lo.n}x more), time above node -e 0: ${growth.toFixed(2)}x` +
        ` (linear = ${hi.n / lo.n}x)\n`,
    );
  }
} finally {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
}
