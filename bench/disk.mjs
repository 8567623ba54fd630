// ariel-worktree du, add --share and gc against baselines measured in the same run (docs/disk.md).
//
//   node bench/disk.mjs           20,000-file checkout + 50,000-file node_modules; 10 shared legs; gc of 1,000 tasks
//   node bench/disk.mjs --smoke   500 + 1,000 files; 3 shared legs of a smaller tree; gc of 50 tasks; one run each (CI)
//
// 1. du: median wall time of `ariel-worktree du --task t` over `du -s --apparent-size` on the
//    same leg (a C walk of the same tree), interleaved run by run with a floor: a bare Node
//    loop making the same syscalls (readdirSync + lstatSync per entry); target ratio <= 1.5.
//    The ratio is of wall time; the CPU time of each (children included) is printed beside it.
//    Where NODE_EXTRA_CA_CERTS is set, ariel-worktree du and node -e 0 are measured without it
//    too (Node 20 reads and parses that file at every start; du does not).
// 2. Flat disk: allocated bytes (du -s -B1, hardlinks once) of 10 legs made with `add --share
//    node_modules`, against one leg with its own copy; target <= 1.2. Once per mode: `tree`
//    (the default, each leg its own directories) and `store` (the legs and .ariel/share
//    together). Also what each shared leg still pays for, and what the store does.
// 3. gc: `gc -n` and `gc` over N closed task records (each with its released lease file) against
//    `node -e 0`; the ratio at N/10 and N shows how it grows. `--against=PATH` (another build's
//    bin/ariel-worktree.mjs) runs the same commands of that build in the same rounds.
// Sizes: --files=N --deps=N --legs=N --tasks=N; --against=PATH. Prints numbers and ratios; never fails on time.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { benchEnv, builtCli, initRepo, listOption, numberOption, option, smoke, tempDir } from "./_env.mjs";
import { childCpuMs, median } from "./_measure.mjs";

const FILES = numberOption("files", smoke ? 500 : 20_000);
const DEPS = numberOption("deps", smoke ? 1_000 : 50_000);
const LEGS = numberOption("legs", smoke ? 3 : 10);
const TASKS = numberOption("tasks", smoke ? 50 : 1_000);
const RUNS = smoke ? 1 : 5;
/** `--against=PATH`: another build's bin/ariel-worktree.mjs (main's, say), its gc measured alongside. */
const AGAINST = option("against");
/** `--only=du,share,gc` runs some parts. */
const ONLY = listOption("only");
const part = (name) => !ONLY || ONLY.includes(name);

const BIN = builtCli("worktree", "bench/disk.mjs").bin;
const ENV = benchEnv();

/** Run a command to its end (in `env`): wall time (`ms`), its CPU time with its children's (`cpu`), stdout. */
function run(cmd, args, cwd, env = ENV) {
  const c0 = childCpuMs();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", maxBuffer: 1 << 28 });
  const ms = performance.now() - t0;
  const c1 = childCpuMs();
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return { ms, cpu: c1 - c0, stdout: r.stdout };
}
const ariel = (cwd, ...args) => run(process.execPath, [BIN, ...args], cwd);
const allocated = (...paths) =>
  Number(
    run("du", ["-s", "-B1", "-c", ...paths], "/")
      .stdout.trim()
      .split("\n")
      .pop()
      .split("\t")[0],
  );
const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** `n` files spread 20 to a directory, sizes 1..16 KiB (roughly a node_modules). */
function fillTree(dir, n, prefix) {
  for (let i = 0; i < n; i++) {
    const d = join(dir, `${prefix}${Math.floor(i / 20)}`);
    if (i % 20 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${i}.js`), "x".repeat(1024 * (1 + (i % 16))));
  }
}

/** What a source repository commits: `files` files under src/, a .gitignore and a lockfile. */
function sourceTree(dir, files) {
  fillTree(join(dir, "src"), files, "d");
  writeFileSync(join(dir, ".gitignore"), "node_modules/\n.ariel/\n");
  writeFileSync(join(dir, "package-lock.json"), '{"lockfileVersion":3}\n');
}

const root = tempDir("ariel-bench-disk-");
const stateHome = tempDir("ariel-bench-state-");
// A plain directory of checkouts is a workspace only when named (docs/contract.md); the bench's
// workspace stays out of the user's registry of workspaces.
ENV.ARIEL_WORKSPACE_ROOT = root;
ENV.ARIEL_STATE_HOME = stateHome;
try {
  const api = initRepo(join(root, "api"), (d) => sourceTree(d, FILES), "init");
  fillTree(join(api, "node_modules"), DEPS, "pkg");

  // 1. du against du -s --apparent-size on one leg holding its own node_modules, and the floor
  // of a Node walk: start-up plus one readdirSync per directory and one lstatSync per entry.
  if (part("du")) {
    ariel(root, "add", "--source", "api", "--task", "own");
    const own = join(root, ".ariel/worktrees/own/api");
    cpSync(join(api, "node_modules"), join(own, "node_modules"), { recursive: true });
    ariel(root, "du", "--task", "own"); // warm the page cache for both
    const floor =
      "const fs=require('fs');const s=[process.argv[1]];let b=0;while(s.length){const d=s.pop();" +
      "for(const n of fs.readdirSync(d)){const p=d+'/'+n;const st=fs.lstatSync(p);b+=st.blocks*512;if(st.isDirectory())s.push(p)}}";
    const times = { ariel: [], du: [], floor: [], node: [], arielNoCa: [], nodeNoCa: [] };
    const cpu = { ariel: 0, du: 0, floor: 0, node: 0, arielNoCa: 0, nodeNoCa: 0 };
    const measure = (name, r) => {
      times[name].push(r.ms);
      cpu[name] += r.cpu;
    };
    // NODE_EXTRA_CA_CERTS (set on some machines for a TLS proxy) makes Node 20 read and parse
    // that file at every start, before any script runs: measured without it too, once, here.
    const extraCa = ENV.NODE_EXTRA_CA_CERTS !== undefined;
    const noCa = { ...ENV };
    delete noCa.NODE_EXTRA_CA_CERTS;
    for (let i = 0; i < RUNS; i++) {
      measure("ariel", ariel(root, "du", "--task", "own"));
      measure("du", run("du", ["-s", "--apparent-size", own], root));
      measure("floor", run(process.execPath, ["-e", floor, own], root));
      measure("node", run(process.execPath, ["-e", "0"], root));
      if (!extraCa) continue;
      measure("arielNoCa", run(process.execPath, [BIN, "du", "--task", "own"], root, noCa));
      measure("nodeNoCa", run(process.execPath, ["-e", "0"], root, noCa));
    }
    const [duAriel, duC, duFloor, node] = [times.ariel, times.du, times.floor, times.node].map(median);
    // Wall time decides the target; CPU time (all processes, summed over the runs) says how much
    // of it other work on the machine took.
    console.log(
      `du: ${FILES} tracked + ${DEPS} node_modules files: ariel-worktree du ${duAriel.toFixed(0)} ms, du -s --apparent-size ${duC.toFixed(0)} ms, ratio ${(duAriel / duC).toFixed(2)} (wall, target <= 1.5); floor (node walk, same syscalls) ${duFloor.toFixed(0)} ms = ${(duFloor / duC).toFixed(2)}x du; node -e 0 ${node.toFixed(0)} ms; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    console.log(
      `du: CPU over ${RUNS} runs (user + sys, children included): ariel-worktree du ${cpu.ariel} ms, du ${cpu.du} ms, ratio ${(cpu.ariel / cpu.du).toFixed(2)}; floor ${(cpu.floor / cpu.du).toFixed(2)}x; node -e 0 ${(cpu.node / cpu.du).toFixed(2)}x`,
    );
    if (extraCa) {
      const [arielNoCa, nodeNoCa] = [times.arielNoCa, times.nodeNoCa].map(median);
      console.log(
        `du: NODE_EXTRA_CA_CERTS is set (Node reads it at every start): without it, ariel-worktree du ${arielNoCa.toFixed(0)} ms, ratio ${(arielNoCa / duC).toFixed(2)} (wall), CPU ${(cpu.arielNoCa / cpu.du).toFixed(2)}x; node -e 0 ${nodeNoCa.toFixed(0)} ms (${node.toFixed(0)} ms with it)`,
      );
    }

    ariel(root, "remove", "--task", "own", "--allow", "dirty");
  }

  // 2. gc over TASKS closed records (copies of one real closed record and its released lease),
  // and with --against, the same commands of another build, interleaved run by run.
  if (part("gc")) {
    ariel(root, "add", "--source", "api", "--task", "c0");
    ariel(root, "remove", "--task", "c0");
    const tasks = join(root, ".ariel/tasks");
    const leases = join(root, ".ariel/leases");
    const model = JSON.parse(readFileSync(join(tasks, "c0.json"), "utf8"));
    const modelLease = JSON.parse(readFileSync(join(leases, "c0.json"), "utf8"));
    /** Tasks c0..c(n-1), closed, each with its released lease file, and nothing else; no archive. */
    const write = (n) => {
      for (const d of [tasks, leases, join(root, ".ariel/archive")])
        rmSync(d, { recursive: true, force: true });
      mkdirSync(tasks);
      mkdirSync(leases);
      for (let i = 0; i < n; i++) {
        const r = {
          ...model,
          taskId: `c${i}`,
          legs: model.legs.map((l) => ({ ...l, worktreePath: l.worktreePath.replace("/c0/", `/c${i}/`) })),
        };
        writeFileSync(join(tasks, `c${i}.json`), JSON.stringify(r));
        writeFileSync(join(leases, `c${i}.json`), `${JSON.stringify({ ...modelLease, taskId: `c${i}` })}\n`);
      }
      // On disk before gc starts, as records written days ago are: gc's first fsync would
      // otherwise write these thousands of fresh files back.
      run("sync", [], root);
    };
    const builds = [["this build", BIN], ...(AGAINST ? [["--against", AGAINST]] : [])];
    const small = Math.max(2, Math.floor(TASKS / 10));
    const times = { node: [] };
    const push = (k, ms) => {
      times[k] ??= [];
      times[k].push(ms);
    };
    for (let i = 0; i < RUNS; i++) {
      push("node", run(process.execPath, ["-e", "0"], root).ms);
      for (const [n, what] of [
        [small, "plan-small"],
        [TASKS, "plan"],
      ]) {
        write(n);
        for (const [label, bin] of builds)
          push(`${label} ${what}`, run(process.execPath, [bin, "gc", "-n", "--older-than", "0"], root).ms);
      }
      for (const [n, what] of [
        [small, "apply-small"],
        [TASKS, "apply"],
      ]) {
        for (const [label, bin] of builds) {
          write(n);
          const apply = run(process.execPath, [bin, "gc", "--older-than", "0", "--json"], root);
          const archived = apply.stdout.split("\n").filter((l) => l.includes('"gc.task.archive"')).length;
          if (archived !== n) throw new Error(`${label}: gc archived ${archived} of ${n} tasks`);
          push(`${label} ${what}`, apply.ms);
        }
      }
    }
    const node = median(times.node);
    const show = (k) => `${median(times[k]).toFixed(0)} ms (${(median(times[k]) / node).toFixed(1)}x)`;
    console.log(
      `gc: node -e 0 ${node.toFixed(0)} ms (median of ${RUNS}); load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    const growth = (k) => (median(times[k]) / median(times[`${k}-small`])).toFixed(1);
    for (const [label] of builds) {
      console.log(
        `gc (${label}): gc -n over ${small} tasks ${show(`${label} plan-small`)}, over ${TASKS} ${show(`${label} plan`)}, growth x${growth(`${label} plan`)}; gc archiving ${small} ${show(`${label} apply-small`)}, ${TASKS} ${show(`${label} apply`)}, growth x${growth(`${label} apply`)}`,
      );
    }
  }
  // 3. Flat disk (last: its legs stay until the workspace is deleted): LEGS shared legs against the one leg with its own copy, on a repository whose
  // dependencies outweigh its checkout (web: 200 tracked files, the same node_modules).
  if (part("share")) {
    const web = initRepo(join(root, "web"), (d) => sourceTree(d, 200), "init");
    fillTree(join(web, "node_modules"), DEPS, "pkg");
    ariel(root, "add", "--source", "web", "--task", "own-web");
    const ownWeb = join(root, ".ariel/worktrees/own-web/web");
    cpSync(join(web, "node_modules"), join(ownWeb, "node_modules"), { recursive: true });
    const oneLeg = allocated(ownWeb);
    ariel(root, "remove", "--task", "own-web", "--allow", "dirty");
    const legDirs = (prefix) =>
      Array.from({ length: LEGS }, (_, i) => join(root, `.ariel/worktrees/${prefix}${i}`));
    // Mode tree (the default): each leg its own directories, every file a hardlink.
    for (let i = 0; i < LEGS; i++)
      ariel(root, "add", "--source", "web", "--task", `s${i}`, "--share", "node_modules");
    const shared = allocated(...legDirs("s"));
    const unshared = LEGS * oneLeg;
    console.log(
      `share: one leg with its own node_modules ${mib(oneLeg)}; ${LEGS} such legs would take ${mib(unshared)}; ${LEGS} legs with --share node_modules (mode tree) take ${mib(shared)} (du -s -B1); ratio to one leg ${(shared / oneLeg).toFixed(2)} (target <= 1.2)`,
    );
    // Mode store: one store of the tree's directories under .ariel/share, each leg links into it.
    for (let i = 0; i < LEGS; i++)
      ariel(
        root,
        "add",
        "--source",
        "web",
        "--task",
        `p${i}`,
        "--share",
        "node_modules",
        "--share-mode",
        "store",
      );
    const storeDir = join(root, ".ariel/share");
    const storeBytes = allocated(...legDirs("p"), storeDir);
    // ariel du sees the one store as its own record (its file bytes went to the tree-mode legs,
    // walked first: a file is counted once, where it is met first).
    const stores = ariel(root, "du", "--json")
      .stdout.split("\n")
      .filter((l) => l.includes('"type":"du.share"')).length;
    console.log(
      `share: ${LEGS} legs with --share node_modules --share-mode store take ${mib(storeBytes)} with their store (du -s -B1 over the legs and .ariel/share; ariel du shows ${stores} store); ratio to one leg ${(storeBytes / oneLeg).toFixed(2)} (target <= 1.2)`,
    );
    // What a shared leg still pays for (the last one, after the others took the file bytes).
    const deps = allocated(join(web, "node_modules"));
    const beyond = (base, p) => allocated(...base, p) - allocated(...base);
    for (const [mode, prefix, base] of [
      ["tree", "s", [join(web, "node_modules")]],
      ["store", "p", [join(web, "node_modules"), storeDir]],
    ]) {
      const last = join(root, `.ariel/worktrees/${prefix}${LEGS - 1}/web`);
      console.log(
        `share (${mode}): each leg pays ${mib(beyond(base, last))} (${mib(beyond(base, join(last, "node_modules")))} of it its node_modules, the rest its checkout)`,
      );
    }
    console.log(
      `share (store): the store pays ${mib(allocated(join(web, "node_modules"), storeDir) - deps)} beyond the source's files (its directories and manifest); admin dirs of the ${2 * LEGS} legs in web/.git/worktrees ${mib(allocated(join(web, ".git/worktrees")))} (outside the worktree root, not in the ratio)`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
  rmSync(stateHome, { recursive: true, force: true });
}
