// Start-up of the most-called bins, `ariel-spawn -- true` and `ariel-runs list`, three ways, side
// by side in one interleaved run against `node -e 0` and the floor (bench/_spawn_floor.cjs):
//   - today's bin, dist/ariel-<name>.cjs: the bundle compiled with the build's V8 code cache
//     (docs/decisions/0033-startup-code-cache-and-vendor-chunks.md);
//   - the bundle with no cache (dist/ariel-<name>.main.cjs run by node): what the cache saves;
//   - a user-land start-up snapshot of the same bundle (`node --snapshot-blob B --build-snapshot`,
//     its main run by `v8.startupSnapshot.setDeserializeMainFunction`), made here in a temporary
//     directory by the running Node and run two ways: `node --snapshot-blob B` given the flag
//     directly (the best any launcher could do), and from a bin that npm can install, which is
//     run as `node bin.cjs` and can only pass the flag by starting node again (re-exec);
//   - and a snapshot with nothing in it: what loading a user-land snapshot costs by itself.
// CPU is the children's user+sys (bench/_measure.mjs); ratios are printed, never asserted.
// docs/benchmarks.md ("Start-up snapshot or code cache") has the results and decision 0130 the
// choice made from them.
// Run: node bench/snapshot.mjs [--smoke] [--runs N]   (needs `node scripts/setup.mjs` first)
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  benchEnv,
  builtCli,
  initRepo,
  loadAverage,
  numberOption,
  REPO_ROOT,
  smoke,
  tempDir,
} from "./_env.mjs";
import { measureInterleaved } from "./_measure.mjs";

const RUNS = numberOption("runs", smoke ? 3 : 30);
const env = benchEnv();
const node = process.execPath;

/**
 * The snapshot's entry script for a CLI bundle: the bundle's modules are evaluated while the
 * snapshot is built, and its last statement (`void cliMain(...)`, main.ts) becomes the main
 * function run after the snapshot is loaded. `require` in a snapshot's entry loads only
 * builtins, so anything else (a vendor chunk beside the bundle) is required at run time from
 * the bundle's directory.
 */
function snapshotEntry(bundle) {
  const code = readFileSync(bundle, "latin1");
  const at = code.lastIndexOf("\nvoid cliMain(");
  if (at === -1) throw new Error(`${bundle}: no cliMain call to make the snapshot's main`);
  const file = JSON.stringify(bundle);
  return `var require = ((builtin) => (id) =>
  id.startsWith("node:") || builtin("node:module").isBuiltin(id)
    ? builtin(id)
    : builtin("node:module").createRequire(${file})(id))(require);
var __filename = ${file}, __dirname = ${JSON.stringify(dirname(bundle))};
${code.slice(0, at)}
require("node:v8").startupSnapshot.setDeserializeMainFunction(() => {${code.slice(at)}
});
`;
}

/** Build a snapshot blob from `entryText` in `dir` with the running Node; its path. */
function buildBlob(dir, name, entryText) {
  const entry = join(dir, `${name}.entry.cjs`);
  const blob = join(dir, `${name}.blob`);
  writeFileSync(entry, entryText);
  const r = spawnSync(node, ["--snapshot-blob", blob, "--build-snapshot", entry], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`building ${name}.blob failed (${r.status}): ${r.stderr}`);
  return blob;
}

/**
 * A bin as npm could install it for a snapshot: run as `node bin.cjs ARGS` through its shebang,
 * it can only hand `--snapshot-blob` to a second node (Node 20 has no execve; a later Node's
 * `process.execve` would save the fork, not the first start).
 */
function relaunchBin(dir, name, blob) {
  const bin = join(dir, `${name}.relaunch.cjs`);
  writeFileSync(
    bin,
    `"use strict";
const { spawnSync } = require("node:child_process");
const r = spawnSync(process.execPath, ["--snapshot-blob", ${JSON.stringify(blob)}, __filename, ...process.argv.slice(2)], { stdio: "inherit" });
process.exitCode = r.status ?? 1;
`,
  );
  return bin;
}

const tmp = tempDir("ariel-bench-snapshot-");
try {
  const ws = join(tmp, "ws");
  for (const n of ["alpha", "beta", "gamma"]) initRepo(join(ws, n));
  mkdirSync(join(ws, ".ariel"));
  const empty = buildBlob(
    tmp,
    "empty",
    'require("node:v8").startupSnapshot.setDeserializeMainFunction(() => {});\n',
  );
  const commands = [
    { label: "node -e 0", cmd: node, args: ["-e", "0"] },
    {
      label: "floor: bench/_spawn_floor.cjs -- true",
      cmd: node,
      args: [join(REPO_ROOT, "bench/_spawn_floor.cjs"), "--", "true"],
    },
    { label: "node --snapshot-blob (empty snapshot)", cmd: node, args: ["--snapshot-blob", empty, "x"] },
  ];
  for (const [name, args] of [
    ["spawn", ["--", "true"]],
    ["runs", ["list"]],
  ]) {
    const { bundle: bin } = builtCli(name, "bench/snapshot");
    const bundle = join(dirname(bin), `ariel-${name}.main.cjs`);
    const blob = buildBlob(tmp, name, snapshotEntry(bundle));
    const what = `ariel-${name} ${args.join(" ")}`;
    commands.push(
      { label: `${what}: code cache (today's bin)`, cmd: node, args: [bin, ...args] },
      { label: `${what}: the bundle, no cache`, cmd: node, args: [bundle, ...args] },
      {
        label: `${what}: snapshot, node --snapshot-blob`,
        cmd: node,
        args: ["--snapshot-blob", blob, bin, ...args],
      },
      {
        label: `${what}: snapshot from a bin (re-exec)`,
        cmd: node,
        args: [relaunchBin(tmp, name, blob), ...args],
      },
    );
  }
  const load = loadAverage();
  const results = measureInterleaved(commands, { runs: RUNS, cwd: ws, env });
  const [base, floor] = results;
  const w = Math.max(...results.map((r) => r.label.length));
  process.stdout.write(
    `start-up snapshot against code cache (${smoke ? "smoke" : "full"}; ${RUNS} interleaved rounds; load average ${load} before, ${loadAverage()} after)\n` +
      `${"".padEnd(w)}   wall ms  cpu ms  CPU x node -e 0  CPU - floor\n`,
  );
  for (const r of results) {
    const x = r.cpu / base.cpu;
    process.stdout.write(
      `${r.label.padEnd(w)}  ${r.wall.toFixed(1).padStart(7)}  ${r.cpu.toFixed(1).padStart(6)}  ${x.toFixed(2).padStart(14)}x  ${(x - floor.cpu / base.cpu).toFixed(2).padStart(10)}x\n`,
    );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
