// CI's proof that ariel installs and runs as published: pack every package with pnpm, check
// each tarball's manifest and files, install them the way users will into empty prefixes
// (scripts/pack-install.mjs), then run every bin from that PATH: `--version`, `--help`, and the
// three CLIs against a demo workspace of real git repositories. @ariel/core is installed into a
// consumer project, imported, and its declarations type-checked. Last, `changeset version` runs
// on a copy of the manifests (offline). Any failure is listed and the exit status is 1.
//
//   npm run build && node scripts/pack-check.mjs [--keep]

import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { filesOf, installInProject, must, packAndInstall, run } from "./pack-install.mjs";
import {
  CORE_DIR,
  cliPackages,
  META_ALIASES,
  META_DIR,
  PACKAGES,
  ROOT,
  readJson,
  runtimeDependencyVersions,
} from "./packages.mjs";

const keep = process.argv.includes("--keep");
const tmp = realpathSync(mkdtempSync(join(tmpdir(), "ariel-pack-check-")));
const failures = [];
const fail = (what) => failures.push(what);
const ok = (what) => process.stdout.write(`ok  ${what}\n`);

const root = readJson(join(ROOT, "package.json"));
const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
const clis = cliPackages();
const meta = readJson(join(META_DIR, "package.json"));
const core = readJson(join(CORE_DIR, "package.json"));
const expected = [core.name, ...clis.map((c) => c.name), meta.name];
const dirOf = new Map([
  [core.name, "packages/core"],
  [meta.name, "packages/ariel"],
  ...clis.map((c) => [c.name, c.dir.slice(ROOT.length)]),
]);

const inTarball = (files, target) => files.includes(target.replace(/^\.\//, ""));
const extract = async (file, path) => (await must("tar", ["-xzOf", file, `package/${path}`])).stdout;

/** What every package must hold: metadata, README, LICENSE, runnable bins, no sources, no links. */
async function commonProblems(name, m, file, files) {
  const bad = [];
  if (m.private) bad.push('"private": true');
  if (m.license !== root.license) bad.push(`license ${m.license} (the repository's is ${root.license})`);
  if (m.engines?.node !== ">=20") bad.push(`engines.node ${m.engines?.node}`);
  if (!m.description) bad.push("no description");
  if (m.repository?.url !== root.repository.url || m.repository?.directory !== dirOf.get(name)) {
    bad.push(`repository ${JSON.stringify(m.repository)}`);
  }
  if (m.version !== core.version) bad.push(`version ${m.version}, core's is ${core.version}`);
  for (const f of ["README.md", "LICENSE", "package.json"]) if (!files.includes(f)) bad.push(`no ${f}`);
  if (files.includes("LICENSE") && (await extract(file, "LICENSE")) !== license) {
    bad.push("LICENSE differs from the repository's");
  }
  const deps = { ...m.dependencies, ...m.peerDependencies, ...m.optionalDependencies };
  for (const [dep, range] of Object.entries(deps)) {
    if (String(range).startsWith("workspace:")) bad.push(`dependency ${dep}@${range}`);
  }
  const ts = files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  if (ts.length > 0) bad.push(`TypeScript sources: ${ts.slice(0, 3).join(", ")}`);
  for (const [bin, target] of Object.entries(m.bin ?? {})) {
    if (!inTarball(files, target)) bad.push(`bin ${bin} -> ${target} is not in the tarball`);
    else {
      const head = (await extract(file, target.replace(/^\.\//, ""))).split("\n", 1)[0];
      if (head !== "#!/usr/bin/env node") bad.push(`bin ${bin} starts with ${JSON.stringify(head)}`);
    }
  }
  return bad;
}

/** @ariel/core: every export target is in the tarball, with declarations. */
function coreProblems(m, files) {
  const bad = [];
  for (const [sub, target] of Object.entries(m.exports ?? {})) {
    for (const t of typeof target === "string" ? [target] : Object.values(target)) {
      if (!inTarball(files, t)) bad.push(`exports["${sub}"] -> ${t} is not in the tarball`);
    }
  }
  if (!String(m.exports?.["."]?.types).endsWith(".d.ts")) bad.push("exports[.] has no types");
  return bad;
}

/** ariel: depends on exactly every CLI package, at its own version, and has every bin. */
function metaProblems(m) {
  const bad = [];
  const deps = Object.entries(m.dependencies ?? {}).map(([n, v]) => `${n}@${v}`);
  const want = clis.map((c) => `${c.name}@${m.version}`);
  if (deps.sort().join() !== want.sort().join()) {
    bad.push(`dependencies ${deps.join(", ")}, expected ${want.join(", ")}`);
  }
  const bins = Object.keys(m.bin ?? {}).sort();
  const wantBins = [...clis.map((c) => c.bin), ...Object.keys(META_ALIASES)].sort();
  if (bins.join() !== wantBins.join()) bad.push(`bins ${bins.join(", ")}, expected ${wantBins.join(", ")}`);
  return bad;
}

/** A CLI package: its bin is its bundle (or its loader), and it needs nothing beside what the build wrote. */
function cliProblems(name, m, files) {
  const bad = [];
  const cli = clis.find((c) => c.name === name);
  // A CLI bundles everything but the runtime dependencies (scripts/packages.mjs), at core's versions.
  const allowed = runtimeDependencyVersions();
  for (const [dep, range] of Object.entries(m.dependencies ?? {})) {
    if (allowed[dep] !== range)
      bad.push(`runtime dependency ${dep}@${range} (a CLI bundles everything else)`);
  }
  if (m.bin?.[cli.bin] !== `./dist/${cli.bin}.cjs`) bad.push(`bin ${JSON.stringify(m.bin)}`);
  // What the build wrote beside the bin (vendor chunks, a code-cached bundle and its cache:
  // scripts/build.mjs) is loaded at run time: all of it must be in the tarball.
  for (const f of readdirSync(join(cli.dir, "dist"))) {
    if (!files.includes(`dist/${f}`)) bad.push(`dist/${f} (written by the build) is not in the tarball`);
  }
  return bad;
}

/** The manifest and file checks every tarball must pass. */
async function checkTarball(name, { file, manifest: m }) {
  const files = await filesOf(file);
  const own =
    name === core.name
      ? coreProblems(m, files)
      : name === meta.name
        ? metaProblems(m)
        : cliProblems(name, m, files);
  const bad = [...(await commonProblems(name, m, file, files)), ...own];
  if (bad.length > 0) fail(`${name}: ${bad.join("; ")}`);
  else ok(`${name}@${m.version} tarball (${files.length} files)`);
}

function git(cwd, ...args) {
  return must("git", ["-c", "user.name=pack-check", "-c", "user.email=pack-check@example.invalid", ...args], {
    cwd,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}

/** A workspace of three real repositories, alpha, beta and gamma; returns their HEADs. */
async function demoWorkspace(dir) {
  mkdirSync(dir, { recursive: true });
  const heads = {};
  for (const name of ["alpha", "beta", "gamma"]) {
    await git(dir, "init", "-q", "-b", "main", name);
    writeFileSync(join(dir, name, "README.md"), `# ${name}\n`);
    await git(join(dir, name), "add", "README.md");
    await git(join(dir, name), "commit", "-q", "-m", "initial");
    heads[name] = (await git(join(dir, name), "rev-parse", "HEAD")).stdout.trim();
  }
  return heads;
}

/** PATH with only the prefix's bin, node and git: nothing of this repository. */
function pathFor(prefix) {
  const gitDir = process.env.PATH.split(delimiter).find((d) => d && existsSync(join(d, "git")));
  return [join(prefix, "bin"), dirname(process.execPath), gitDir].filter(Boolean).join(delimiter);
}

/** Run every bin of `prefix` from its PATH; the demo for discover, worktree and spawn. */
async function checkPrefix(label, prefix, version, bundles) {
  const ws = join(tmp, `ws-${label}`);
  const heads = await demoWorkspace(ws);
  // ARIEL_STATE_HOME: runs outside a workspace keep their history there, not in the user's home.
  const env = {
    ...process.env,
    PATH: pathFor(prefix),
    NO_COLOR: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    ARIEL_STATE_HOME: join(tmp, "state"),
  };
  const ariel = (bin, ...args) => run(bin, args, { cwd: ws, env });
  const expect = async (what, r, test) => {
    if (r.code === 0 && test(r.stdout)) ok(`${label}: ${what}`);
    else fail(`${label}: ${what}: exit ${r.code ?? r.signal}\nstdout: ${r.stdout}stderr: ${r.stderr}`);
  };
  for (const cli of clis) {
    const link = join(prefix, "bin", cli.bin);
    if (!existsSync(link)) {
      fail(`${label}: ${cli.bin} is not installed in ${join(prefix, "bin")}`);
      continue;
    }
    const target = realpathSync(link);
    if (bundles && (!lstatSync(link).isSymbolicLink() || !target.endsWith(`/dist/${cli.bin}.cjs`))) {
      fail(`${label}: ${cli.bin} is not a link to the CJS bundle (${target})`);
    }
    await expect(`${cli.bin} --version`, await ariel(cli.bin, "--version"), (o) => o === `${version}\n`);
    await expect(`${cli.bin} --help`, await ariel(cli.bin, "--help"), (o) => o.includes(cli.bin));
  }
  if (clis.some((c) => c.bin === "ariel-tui")) await checkTui(label, prefix, ws, env);
  if (!clis.some((c) => c.bin === "ariel-discover")) return;
  const sources = (o) =>
    o
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .map((r) => `${r.type}:${r.name}:${r.kind}:${r.head}`)
      .join(" ");
  const three = ["alpha", "beta", "gamma"].map((n) => `source:${n}:checkout:${heads[n]}`).join(" ");
  await expect("ariel-discover --json lists 3 sources", await ariel("ariel-discover", "--json"), (o) => {
    return sources(o) === three;
  });
  const leg = join(ws, ".ariel/worktrees/pack-check/alpha");
  await expect(
    "ariel-worktree -C WS add --task pack-check --source alpha (names the workspace: .ariel/)",
    await ariel("ariel-worktree", "-C", ws, "add", "--task", "pack-check", "--source", "alpha"),
    () => existsSync(join(leg, "README.md")),
  );
  const listed = (await git(join(ws, "alpha"), "worktree", "list", "--porcelain")).stdout;
  if (!listed.includes(`worktree ${leg}\n`)) fail(`${label}: git does not list the worktree ${leg}`);
  await expect(
    "ariel-worktree remove --task pack-check",
    await ariel("ariel-worktree", "remove", "--task", "pack-check"),
    () => !existsSync(leg),
  );
  await expect(
    "ariel-spawn --source beta --source gamma -- git rev-parse HEAD",
    await ariel("ariel-spawn", "--source", "beta", "--source", "gamma", "--", "git", "rev-parse", "HEAD"),
    (o) => o === `[beta]  ${heads.beta}\n[gamma] ${heads.gamma}\n`, // prefixes padded to the longest name
  );
  if (clis.some((c) => c.bin === "ariel-fleet")) await checkFleet(label, ws, env);
  if (clis.some((c) => c.bin === "ariel-mcp")) checkMcp(label, ws, env, heads);
  if (!clis.some((c) => c.bin === "ariel-runs")) return;
  // A detached run: its monitor re-runs the installed bin, so this proves that path works too.
  await expect(
    "ariel-spawn --detach --name pack-check --source beta -- git rev-parse HEAD",
    await ariel(
      "ariel-spawn",
      "--detach",
      "--name",
      "pack-check",
      "--source",
      "beta",
      "--",
      "git",
      "rev-parse",
      "HEAD",
    ),
    () => true,
  );
  await expect("ariel-runs wait pack-check", await ariel("ariel-runs", "wait", "pack-check"), () => true);
  await expect(
    "ariel-runs logs pack-check",
    await ariel("ariel-runs", "logs", "pack-check"),
    (o) => o === `${heads.beta}\n`,
  );
  // A tty run: the monitor loads the pseudo-terminal addon, ariel-runs the terminal emulator,
  // both from the installed packages' runtime dependencies (never from the bundles).
  await expect(
    "ariel-spawn --detach --tty --size 30x5 --name pack-tty -- git rev-parse HEAD",
    await ariel(
      "ariel-spawn",
      ..."--detach --tty --size 30x5 --name pack-tty --source gamma -- git rev-parse --short HEAD".split(" "),
    ),
    () => true,
  );
  await expect("ariel-runs wait pack-tty", await ariel("ariel-runs", "wait", "pack-tty"), () => true);
  await expect(
    "ariel-runs screen pack-tty",
    await ariel("ariel-runs", "screen", "pack-tty"),
    (o) => o === `${heads.gamma.slice(0, 7)}\n`,
  );
}

/**
 * The terminal UI as installed (`ariel-tui`, and `ariel` where the meta package is): without a
 * terminal it exits 2 naming `ariel-runs list`; on a pseudo-terminal it draws its first frame
 * (the "Needs you" group) and `q` ends it with 0.
 */
async function checkTui(label, prefix, ws, env) {
  const bins = ["ariel-tui", ...Object.keys(META_ALIASES)].filter((b) => existsSync(join(prefix, "bin", b)));
  if (label === meta.name && !bins.includes("ariel"))
    fail(`${label}: ariel is not installed in ${join(prefix, "bin")}`);
  for (const bin of bins) {
    if (bin !== "ariel-tui") {
      // ariel-tui's --version is checked with every CLI's; its other name here.
      const v = await run(bin, ["--version"], { cwd: ws, env });
      if (v.code === 0 && v.stdout === `${core.version}\n`) ok(`${label}: ${bin} --version`);
      else fail(`${label}: ${bin} --version: exit ${v.code}\nstdout: ${v.stdout}`);
    }
    const r = await run(bin, ["-C", ws], { cwd: ws, env });
    if (r.code === 2 && r.stderr.includes("ariel-runs list"))
      ok(`${label}: ${bin} without a terminal exits 2`);
    else fail(`${label}: ${bin} without a terminal: exit ${r.code}\nstderr: ${r.stderr}`);
    const what = `${label}: ${bin} on a terminal draws its list, q quits with 0`;
    try {
      const pty = createRequire(join(CORE_DIR, "package.json"))("@lydell/node-pty");
      const p = pty.spawn(join(prefix, "bin", bin), ["-C", ws], {
        cols: 80,
        rows: 24,
        cwd: ws,
        env,
        name: "xterm-256color",
      });
      let seen = "";
      p.onData((d) => {
        seen += d;
      });
      const code = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          p.kill("SIGKILL");
          reject(new Error(`no frame in 20 s: ${JSON.stringify(seen.slice(-400))}`));
        }, 20_000);
        const look = setInterval(() => {
          if (seen.includes("Needs you")) {
            clearInterval(look);
            p.write("q");
          }
        }, 50);
        p.onExit((e) => {
          clearTimeout(timer);
          clearInterval(look);
          resolve(e.exitCode);
        });
      });
      if (code !== 0) throw new Error(`exit ${code}`);
      ok(what);
    } catch (e) {
      fail(`${what}: ${e instanceof Error ? e.message : e}`);
    }
  }
}

/**
 * `ariel-mcp` as installed: a client's exchange piped in is answered in order, and its
 * list_sources call runs the installed ariel-discover beside it (found without this repository).
 */
function checkMcp(label, ws, env, heads) {
  const what = `${label}: ariel-mcp answers initialize, tools/list and a list_sources call`;
  const rpc = [
    {
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "pack-check", version: "0" },
      },
    },
    { method: "notifications/initialized" },
    { id: 2, method: "tools/list" },
    { id: 3, method: "tools/call", params: { name: "list_sources", arguments: {} } },
  ];
  const r = spawnSync("ariel-mcp", ["-C", ws], {
    cwd: ws,
    env,
    input: `${rpc.map((m) => JSON.stringify({ jsonrpc: "2.0", ...m })).join("\n")}\n`,
    encoding: "utf8",
    timeout: 60_000,
  });
  try {
    const replies = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const names = replies[2]?.result?.structuredContent?.records?.map((s) => `${s.name}:${s.head}`);
    const want = ["alpha", "beta", "gamma"].map((n) => `${n}:${heads[n]}`);
    if (r.status !== 0 || replies.length !== 3 || replies[1].result.tools.length < 12)
      throw new Error("bad replies");
    if (JSON.stringify(names) !== JSON.stringify(want)) throw new Error(`list_sources gave ${names}`);
    ok(what);
  } catch (e) {
    fail(
      `${what}: ${e instanceof Error ? e.message : e}; exit ${r.status}\nstdout: ${r.stdout}stderr: ${r.stderr}`,
    );
  }
}

/** `ariel-fleet serve` as installed: its dashboard (inlined into the bundle) answers on `/`. */
async function checkFleet(label, ws, env) {
  const what = `${label}: ariel-fleet serve --addr 127.0.0.1:0 serves the dashboard`;
  const child = spawn("ariel-fleet", ["serve", "--addr", "127.0.0.1:0", "--workspace", ws, "--json"], {
    cwd: ws,
    env: { ...env, ARIEL_STATE_HOME: join(tmp, "state") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr = [];
  child.stderr.on("data", (b) => stderr.push(b));
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  try {
    const line = await new Promise((resolve, reject) => {
      let buf = "";
      child.stdout.on("data", (b) => {
        buf += b;
        if (buf.includes("\n")) resolve(buf.slice(0, buf.indexOf("\n")));
      });
      child.on("close", () => reject(new Error(`exited before printing its URL: ${Buffer.concat(stderr)}`)));
    });
    const res = await fetch(JSON.parse(line).url);
    const body = await res.text();
    if (res.status !== 200 || !/<html/i.test(body))
      throw new Error(`GET / gave ${res.status}: ${body.slice(0, 200)}`);
    child.kill("SIGTERM");
    const code = await exited;
    if (code !== 0) throw new Error(`exit ${code} after SIGTERM: ${Buffer.concat(stderr)}`);
    ok(what);
  } catch (e) {
    child.kill("SIGKILL");
    fail(`${what}: ${e instanceof Error ? e.message : e}`);
  } finally {
    clearTimeout(timer);
  }
}

/** @ariel/core in a consumer project: ESM import at run time, declarations under tsc. */
async function checkCore(registryUrl) {
  const dir = join(tmp, "consumer");
  await installInProject(tmp, dir, registryUrl, [core.name]);
  writeFileSync(
    join(dir, "check.mjs"),
    `import { VERSION, ArielError } from "${core.name}";\nimport { runCli } from "${core.name}/host";\n` +
      `if (VERSION !== ${JSON.stringify(core.version)} || typeof ArielError !== "function" || typeof runCli !== "function") process.exit(1);\n`,
  );
  const r = await run(process.execPath, ["check.mjs"], { cwd: dir });
  if (r.code === 0)
    ok(`${core.name}: import from a consumer project (ESM, its dependencies from the registry)`);
  else fail(`${core.name}: import failed (${r.code}): ${r.stderr}`);
  writeFileSync(
    join(dir, "check.ts"),
    `import { VERSION, type ArielError } from "${core.name}";\nimport type { runCli } from "${core.name}/host";\n` +
      "export const v: string = VERSION;\nexport type E = ArielError;\nexport type R = typeof runCli;\n",
  );

  // The resolutions a consumer may use (TypeScript 7 has no node10 resolution any more).
  for (const [module, moduleResolution] of [
    ["nodenext", "nodenext"],
    ["esnext", "bundler"],
  ]) {
    const config = join(dir, `tsconfig.${moduleResolution}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          module,
          moduleResolution,
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules/@types")],
        },
        files: ["check.ts"],
      }),
    );
    const t = await run(join(ROOT, "node_modules/.bin/tsc"), ["-p", config], { cwd: dir });
    if (t.code === 0) ok(`${core.name}: its .d.ts type-check in a consumer (tsc, ${moduleResolution})`);
    else fail(`${core.name}: a ${moduleResolution} consumer does not type-check:\n${t.stdout}${t.stderr}`);
  }
}

/** `npm run version-packages` on a copy of the manifests: one new version everywhere, no network. */
async function checkRelease() {
  const dir = join(tmp, "release");
  const copy = (rel) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    cpSync(join(ROOT, rel), join(dir, rel), { recursive: true });
  };
  for (const rel of ["package.json", "pnpm-workspace.yaml", ".changeset", "packages/core/src/version.ts"])
    copy(rel);
  for (const rel of ["scripts/sync-version.mjs", "scripts/packages.mjs"]) copy(rel);
  for (const d of readdirSync(PACKAGES)) {
    if (existsSync(join(PACKAGES, d, "package.json"))) copy(`packages/${d}/package.json`);
  }
  const pending = readdirSync(join(ROOT, ".changeset")).some((f) => f.endsWith(".md") && f !== "README.md");
  await must(join(ROOT, "node_modules/.bin/changeset"), ["version"], { cwd: dir });
  await must(process.execPath, ["scripts/sync-version.mjs"], { cwd: dir });
  const versions = new Set(
    readdirSync(join(dir, "packages")).map((d) => readJson(join(dir, "packages", d, "package.json")).version),
  );
  const [next] = versions;
  const printed = readFileSync(join(dir, "packages/core/src/version.ts"), "utf8").includes(`"${next}"`);
  if (versions.size !== 1 || !printed || (pending && next === core.version)) {
    fail(`changeset version gave versions ${[...versions].join(", ")} (VERSION updated: ${printed})`);
  } else ok(`npm run version-packages on a copy: every package ${core.version} -> ${next}, --version too`);
}

let registry;
try {
  const installed = await packAndInstall(tmp, meta.name);
  registry = installed.registry;
  const { packed, prefixes } = installed;
  for (const name of expected) {
    if (!packed.has(name)) fail(`${name} was not packed (is it "private"?)`);
  }
  for (const name of packed.keys()) {
    if (!expected.includes(name)) fail(`${name} was packed but pack-check does not know it`);
  }
  for (const name of expected.filter((n) => packed.has(n))) await checkTarball(name, packed.get(name));
  ok(`installed the CLI tarballs into ${prefixes.clis} and ${meta.name} by name into ${prefixes.ariel}`);
  await checkPrefix("CLI packages", prefixes.clis, core.version, true);
  await checkPrefix(meta.name, prefixes.ariel, core.version, false);
  await checkCore(registry.url);
  await checkRelease();
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
} finally {
  await registry?.close();
  if (keep) process.stdout.write(`kept ${tmp}\n`);
  else rmSync(tmp, { recursive: true, force: true });
}
if (failures.length > 0) {
  for (const f of failures) process.stderr.write(`pack-check: FAIL ${f}\n`);
  process.stderr.write(`pack-check: ${failures.length} failure(s) in ${PACKAGES}\n`);
  process.exit(1);
}
process.stdout.write(`pack-check: ${expected.length} packages pack, install and run\n`);
