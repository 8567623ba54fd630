// ariel-worktree add against raw `git worktree add`, measured in the same run (docs/durability.md).
//
//   node bench/worktree.mjs            20,000-file repository, 5 sequential pairs, 3 rounds of 16 parallel
//   node bench/worktree.mjs --smoke    500 files, 2 pairs, 1 round, 2 cycles (for CI)
//
// 1. One add at a time: median wall time of `ariel-worktree add` (bundled bin, no pnpm shim)
//    over median `git worktree add -b` on the same repository; target ratio < 1.15.
// 2. Sixteen adds at once: wall time and successes of 16 `ariel-worktree add` against 16 raw
//    `git worktree add -b` started together (which fail some of the time on commondir and
//    config.lock, and may leave branches behind). Leaked branches are counted.
// 3. One task's life on a tiny repository (one file, one commit): the CPU (user + sys of the
//    reaped children, /proc/self/stat) of `ariel-worktree add` + `remove` (the bundle, which is
//    the bin npm installs; branchlet's bin likewise), interleaved with raw
//    `git worktree add -b` + `git worktree remove` + `git branch -D` and with branchlet 1.2.0's
//    `create` + `delete` (non-interactive flags; its default keeps the branch, as ariel's remove
//    does). branchlet is installed with npm into a cache dir under the temp dir, never into this
//    repository; without the registry (or in --smoke without a cached copy) that baseline is
//    skipped with a note. Two floors run in the same rounds: `node -e 0` and
//    `ariel-worktree --help`, twice each. --compare=DIR adds another build's add + remove (DIR
//    a copy of packages/ from it). Target (issue 12): ariel <= 0.25x branchlet.
// Sizes: --files=N --pairs=N --rounds=N --parallel=N --cycles=N (--rounds=0 skips part 2,
// --pairs=0 --rounds=0 parts 1 and 2 with their big repository, --cycles=0 part 3).
// Prints numbers and ratios; never fails on time. Needs `node scripts/setup.mjs` first.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  benchEnv,
  builtCli,
  git,
  initRepo,
  loadAverage,
  numberOption,
  optionAll,
  REPO_ROOT,
  smoke,
  tempDir,
} from "./_env.mjs";
import { childCpuMs } from "./_measure.mjs";

/** `--name=N` overrides a size (e.g. `--rounds=0` skips the parallel part). */
const FILES = numberOption("files", smoke ? 500 : 20_000);
const PAIRS = numberOption("pairs", smoke ? 2 : 5);
const ROUNDS = numberOption("rounds", smoke ? 1 : 3);
const PARALLEL = numberOption("parallel", 16);
const CYCLES = numberOption("cycles", smoke ? 2 : 15);
const BRANCHLET = "branchlet@1.2.0";

/** BUNDLE: what npm installs as the `ariel-worktree` bin (publishConfig.bin). */
const { bin: BIN, bundle: BUNDLE } = builtCli("worktree", "bench/worktree.mjs");
const ENV = benchEnv();

/** Run a command; resolve with its status and wall time in ms. */
function timed(cmd, args, cwd, env = ENV) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b) => {
      stderr += b;
    });
    child.on("close", (code) => resolve({ code, ms: performance.now() - t0, stderr }));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms) => `${ms.toFixed(0)} ms`;

function makeWorkspace() {
  const ws = tempDir("ariel-bench-wt-");
  const api = initRepo(
    join(ws, "api"),
    (api) => {
      for (let i = 0; i < FILES; i++) {
        const dir = join(api, "src", `d${Math.floor(i / 200)}`);
        if (i % 200 === 0) mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
      }
    },
    "bench",
  );
  mkdirSync(join(ws, ".ariel"));
  return { ws, api };
}

function reset(api) {
  for (const block of git(api, "worktree", "list", "--porcelain").split("\n\n").slice(1)) {
    const path = /^worktree (.*)$/m.exec(block)?.[1];
    if (!path) continue;
    spawnSync("git", ["worktree", "unlock", path], { cwd: api, env: ENV });
    spawnSync("git", ["worktree", "remove", "--force", path], { cwd: api, env: ENV });
  }
  git(api, "worktree", "prune");
  const branches = git(api, "for-each-ref", "--format=%(refname:short)", "refs/heads/").split("\n");
  const extra = branches.filter((b) => b && b !== "main");
  if (extra.length) git(api, "branch", "-q", "-D", ...extra);
}

/**
 * branchlet 1.2.0's entry point, installed with npm into a cache dir under the temp dir (reused
 * by later runs); null, with the reason printed, when it cannot be had.
 */
function branchletBin() {
  const prefix = join(tmpdir(), `ariel-bench-${BRANCHLET.replace("@", "-")}`);
  const bin = join(prefix, "node_modules/branchlet/dist/index.js");
  if (existsSync(bin)) return bin;
  if (smoke) {
    process.stdout.write(
      `  (${BRANCHLET} baseline skipped: --smoke installs nothing; not cached in ${prefix})\n`,
    );
    return null;
  }
  mkdirSync(prefix, { recursive: true });
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(
    npm,
    ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", BRANCHLET],
    { encoding: "utf8", timeout: 120_000 },
  );
  if (r.status === 0 && existsSync(bin)) return bin;
  const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n")[0];
  process.stdout.write(`  (${BRANCHLET} baseline skipped: npm install failed, offline? ${why})\n`);
  return null;
}

/**
 * Part 3: add + remove of one task on a tiny repository, CPU against raw git and branchlet,
 * interleaved round by round (a first round warms caches and is not counted).
 */
async function tinyCycle() {
  const ws = tempDir("ariel-bench-tiny-");
  const api = initRepo(join(ws, "api"), (api) => writeFileSync(join(api, "README.md"), "tiny\n"), "tiny");
  mkdirSync(join(ws, ".ariel"));
  // branchlet keeps its settings under $HOME/.branchlet: a throwaway home, not the user's.
  const home = join(ws, "home");
  mkdirSync(home);
  const bl = branchletBin();
  const run = (cmd, args, cwd, env = ENV) => {
    const r = spawnSync(cmd, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  };
  const cases = [
    {
      label: "raw git worktree add -b + remove + branch -D",
      steps: (i) => [
        ["git", ["worktree", "add", "-q", "-b", `raw-${i}`, join(ws, `raw-${i}`)], api],
        ["git", ["worktree", "remove", join(ws, `raw-${i}`)], api],
        ["git", ["branch", "-q", "-D", `raw-${i}`], api],
      ],
    },
    {
      label: "ariel-worktree add + remove",
      steps: (i) => [
        [process.execPath, [BUNDLE, "add", "-C", ws, "--source", "api", "--task", `t-${i}`], ws],
        [process.execPath, [BUNDLE, "remove", "-C", ws, "--task", `t-${i}`], ws],
      ],
      after: (i) => git(api, "branch", "-q", "-D", `ariel/t-${i}`),
    },
  ];
  // Other builds to compare in the same run: --compare=DIR (a copy of packages/ from another build).
  for (const dir of optionAll("compare")) {
    const bin = join(dir, "cli-worktree/dist/ariel-worktree.cjs");
    cases.push({
      label: `ariel-worktree add + remove (${dir})`,
      steps: (i) => [
        [process.execPath, [bin, "add", "-C", ws, "--source", "api", "--task", `c-${i}`], ws],
        [process.execPath, [bin, "remove", "-C", ws, "--task", `c-${i}`], ws],
      ],
      after: (i) => git(api, "branch", "-q", "-D", `ariel/c-${i}`),
    });
  }
  // The floors under any pair of commands: two bare node start-ups, two ariel-worktree start-ups.
  cases.push(
    {
      label: "floor: node -e 0, twice",
      steps: () => [
        [process.execPath, ["-e", "0"], ws],
        [process.execPath, ["-e", "0"], ws],
      ],
    },
    {
      label: "floor: ariel-worktree --help, twice",
      steps: () => [
        [process.execPath, [BUNDLE, "--help"], ws],
        [process.execPath, [BUNDLE, "--help"], ws],
      ],
    },
  );
  if (bl) {
    cases.push({
      label: `${BRANCHLET} create + delete`,
      env: { ...ENV, HOME: home },
      steps: (i) => [
        [process.execPath, [bl, "create", "-n", `bl-${i}`, "-s", "main"], api],
        [process.execPath, [bl, "delete", "-n", `bl-${i}`], api],
      ],
      after: (i) => git(api, "branch", "-q", "-D", `bl-${i}`),
    });
  }
  const cpu = cases.map(() => 0);
  const walls = cases.map(() => []);
  for (let round = 0; round <= CYCLES; round++) {
    cases.forEach((c, k) => {
      const c0 = childCpuMs();
      const t = performance.now();
      for (const [cmd, args, cwd] of c.steps(round)) run(cmd, args, cwd, c.env);
      const ms = performance.now() - t;
      const used = childCpuMs() - c0;
      c.after?.(round);
      if (round === 0) return;
      cpu[k] += used;
      walls[k].push(ms);
    });
  }
  const load = loadAverage();
  process.stdout.write(
    `add + remove of one task, tiny repository, ${CYCLES} interleaved rounds, load average ${load}\n`,
  );
  const out = cases.map((c, k) => ({ label: c.label, cpuMs: cpu[k] / CYCLES, wallMs: median(walls[k]) }));
  const ariel = out[1];
  const branchlet = bl ? out[out.length - 1] : null;
  const width = Math.max(...out.map((r) => r.label.length));
  for (const r of out) {
    const ratio = branchlet ? `   ${(r.cpuMs / branchlet.cpuMs).toFixed(2)}x branchlet` : "";
    process.stdout.write(
      `  ${r.label.padEnd(width)}  cpu ${r.cpuMs.toFixed(0).padStart(5)} ms   wall ${r.wallMs.toFixed(0).padStart(5)} ms` +
        `   ${(r.cpuMs / ariel.cpuMs).toFixed(2)}x ariel${ratio}\n`,
    );
  }
  if (bl) process.stdout.write(`  target (issue 12): ariel <= 0.25x ${BRANCHLET} (cpu)\n`);
  rmSync(ws, { recursive: true, force: true });
  return {
    rounds: CYCLES,
    load,
    rawCpuMs: Math.round(out[0].cpuMs),
    arielCpuMs: Math.round(ariel.cpuMs),
    branchletCpuMs: branchlet ? Math.round(branchlet.cpuMs) : null,
    ratioToBranchlet: branchlet ? +(ariel.cpuMs / branchlet.cpuMs).toFixed(3) : null,
    floorHelpCpuMs: Math.round(out.find((r) => r.label.includes("--help"))?.cpuMs ?? 0),
  };
}

const base = [];
for (let i = 0; i < 5; i++) base.push((await timed(process.execPath, ["-e", "0"], REPO_ROOT)).ms);
const nodeStart = median(base);

process.stdout.write(
  `files=${FILES} pairs=${PAIRS} rounds=${ROUNDS} parallel=${PARALLEL} cycles=${CYCLES}\n`,
);
process.stdout.write(`baseline: node -e 0 ${fmt(nodeStart)}\n`);
const cycle = CYCLES > 0 ? await tinyCycle() : null;
if (PAIRS === 0 && ROUNDS === 0) {
  process.stdout.write(
    `${JSON.stringify({ bench: "worktree", nodeStartMs: Math.round(nodeStart), cycle })}\n`,
  );
  process.exit(0);
}
const t0 = performance.now();
const { ws, api } = makeWorkspace();
process.stdout.write(`repository made in ${fmt(performance.now() - t0)}\n`);

// 1. One at a time, alternating so both see the same cache state.
const raw = [];
const ours = [];
let failures = 0;
for (let i = 0; i < PAIRS; i++) {
  const r = await timed("git", ["worktree", "add", "-q", join(ws, `raw-${i}`), "-b", `raw-${i}`], api);
  const a = await timed(
    process.execPath,
    [BIN, "add", "-C", ws, "--source", "api", "--task", `seq-${i}`],
    ws,
  );
  if (r.code !== 0 || a.code !== 0) failures++;
  raw.push(r.ms);
  ours.push(a.ms);
}
reset(api);
const seqRatio = median(ours) / median(raw);
process.stdout.write(
  `sequential add: raw git ${fmt(median(raw))}, ariel ${fmt(median(ours))}, ratio ${seqRatio.toFixed(2)}x` +
    ` (target < 1.15x; ariel minus node start-up ${((median(ours) - nodeStart) / median(raw)).toFixed(2)}x)` +
    `${failures ? `, ${failures} failed` : ""}\n`,
);

// 2. Sixteen at once.
if (ROUNDS === 0) {
  rmSync(ws, { recursive: true, force: true });
  process.exit(0);
}
const par = { raw: { ms: [], ok: 0, leaked: 0 }, ours: { ms: [], ok: 0, leaked: 0 } };
for (let round = 0; round < ROUNDS; round++) {
  let t = performance.now();
  const rs = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) =>
      timed(
        "git",
        ["worktree", "add", "-q", join(ws, `p${round}-${i}`), "-b", `p${round}-${i}`, "main"],
        api,
      ),
    ),
  );
  par.raw.ms.push(performance.now() - t);
  par.raw.ok += rs.filter((r) => r.code === 0).length;
  for (const r of rs.filter((x) => x.code !== 0).slice(0, 3)) {
    process.stdout.write(`  raw git worktree add failed (${r.code}): ${r.stderr.trim().split("\n")[0]}\n`);
  }
  const wts = `${git(api, "worktree", "list", "--porcelain")}\n`;
  for (let i = 0; i < PARALLEL; i++) {
    const hasBranch = spawnSync("git", ["rev-parse", "-q", "--verify", `refs/heads/p${round}-${i}`], {
      cwd: api,
      env: ENV,
    });
    if (hasBranch.status === 0 && !wts.includes(`branch refs/heads/p${round}-${i}\n`)) par.raw.leaked++;
  }
  reset(api);

  t = performance.now();
  const as = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) =>
      timed(process.execPath, [BIN, "add", "-C", ws, "--source", "api", "--task", `p${round}-${i}`], ws),
    ),
  );
  par.ours.ms.push(performance.now() - t);
  par.ours.ok += as.filter((r) => r.code === 0).length;
  for (const r of as.filter((x) => x.code !== 0).slice(0, 3)) {
    process.stdout.write(`  ariel add failed (${r.code}): ${r.stderr.trim().split("\n")[0]}\n`);
  }
  const wts2 = `${git(api, "worktree", "list", "--porcelain")}\n`;
  const branches = git(api, "for-each-ref", "--format=%(refname:short)", "refs/heads/ariel/").split("\n");
  par.ours.leaked += branches.filter((b) => b && !wts2.includes(`branch refs/heads/${b}\n`)).length;
  reset(api);
  rmSync(join(ws, ".ariel"), { recursive: true, force: true });
  mkdirSync(join(ws, ".ariel"));
}
const total = PARALLEL * ROUNDS;
const parRatio = median(par.ours.ms) / median(par.raw.ms);
process.stdout.write(
  `${PARALLEL} parallel adds: raw git ${fmt(median(par.raw.ms))} with ${par.raw.ok}/${total} ok` +
    ` and ${par.raw.leaked} leaked branches; ariel ${fmt(median(par.ours.ms))} with ${par.ours.ok}/${total} ok` +
    ` and ${par.ours.leaked} leaked; time ratio ${parRatio.toFixed(2)}x\n`,
);
process.stdout.write(
  `${JSON.stringify({
    bench: "worktree",
    files: FILES,
    cycle,
    nodeStartMs: Math.round(nodeStart),
    sequential: {
      rawMs: Math.round(median(raw)),
      arielMs: Math.round(median(ours)),
      ratio: +seqRatio.toFixed(3),
    },
    parallel: {
      n: PARALLEL,
      rounds: ROUNDS,
      rawMs: Math.round(median(par.raw.ms)),
      rawOk: par.raw.ok,
      rawLeakedBranches: par.raw.leaked,
      arielMs: Math.round(median(par.ours.ms)),
      arielOk: par.ours.ok,
      arielLeakedBranches: par.ours.leaked,
      ratio: +parRatio.toFixed(3),
    },
  })}\n`,
);
rmSync(ws, { recursive: true, force: true });
