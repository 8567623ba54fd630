// What the benchmarks share besides measuring (bench/_measure.mjs): their command line, the
// environment their git and ariel children run in, the built CLIs, and temporary workspaces of
// real git repositories.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const REPO_ROOT = new URL("..", import.meta.url).pathname;

const argv = process.argv.slice(2);

/** `--name` is on the command line. */
export const flag = (name) => argv.includes(`--${name}`);

/** `--smoke`: the small sizes and few rounds (CI checks that the benchmark runs). */
export const smoke = flag("smoke");

/** The value of `--name V` or `--name=V` (the first one given), or undefined. */
export function option(name) {
  return optionAll(name)[0];
}

/** Every value of a repeatable `--name V` / `--name=V`, in order. */
export function optionAll(name) {
  return argv.flatMap((a, i) => {
    if (a.startsWith(`--${name}=`)) return [a.slice(name.length + 3)];
    return argv[i - 1] === `--${name}` ? [a] : [];
  });
}

/** `--name N` / `--name=N` as a number, or `dflt` when it is not given. */
export function numberOption(name, dflt) {
  const v = option(name);
  return v === undefined ? dflt : Number(v);
}

/** `--name=a,b` as a list, or undefined when it is not given. */
export const listOption = (name) => option(name)?.split(",");

/** The arguments that are neither options nor the value of one of `valued` (names that take one). */
export const positionals = (valued = []) =>
  argv.filter((a, i) => !a.startsWith("--") && !valued.some((v) => argv[i - 1] === `--${v}`));

/**
 * The environment of everything a benchmark runs: git without the user's or the system's config
 * and with a fixed identity, a fixed owner for ariel's leases, the C locale, and a state home
 * under the temp dir (the benchmarks' workspaces stay out of the user's registry); `extra` last.
 */
export function benchEnv(extra = {}) {
  return {
    ...process.env,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.invalid",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.invalid",
    ARIEL_OWNER: "bench",
    ARIEL_STATE_HOME: join(tmpdir(), "ariel-bench-state"),
    LC_ALL: "C",
    ...extra,
  };
}

/**
 * The paths of a built CLI (`name`: spawn, worktree, ...): `bin` is the repository's launcher
 * (bin/ariel-NAME.mjs), `bundle` what npm installs as the bin (dist/ariel-NAME.cjs). Exits 1
 * with a note naming `bench` when it is not built.
 */
export function builtCli(name, bench) {
  const dir = join(REPO_ROOT, `packages/cli-${name}`);
  const bundle = join(dir, `dist/ariel-${name}.cjs`);
  if (!existsSync(bundle)) {
    process.stderr.write(`${bench}: ariel-${name} is not built; run: node scripts/setup.mjs\n`);
    process.exit(1);
  }
  return { bin: join(dir, `bin/ariel-${name}.mjs`), bundle };
}

/** A fresh temporary directory (its real path), named `prefix` and a random tail. */
export const tempDir = (prefix) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

/** Run git in `cwd` (no shell); its trimmed stdout. Throws with git's stderr when it fails. */
export function git(cwd, ...args) {
  const r = spawnSync("git", args, { cwd, env: benchEnv(), encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * `git init` a repository on `main` at `dir` (made when missing), let `fill(dir)` write its
 * files, and commit them all (an empty commit when there are none). Returns `dir`.
 */
export function initRepo(dir, fill = () => {}, message = "initial") {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  fill(dir);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", message);
  return dir;
}

/** The 1-, 5- and 15-minute load averages as /proc/loadavg prints them ("" without /proc). */
export function loadAverage() {
  if (!existsSync("/proc/loadavg")) return "";
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

/** A fresh workspace for a runs bench: an empty git checkout (branch main) in a temp directory. */
export function runsWorkspace(prefix) {
  const ws = tempDir(prefix);
  git(ws, "init", "-q", "-b", "main");
  return ws;
}

/** The pid of workspace `ws`'s run monitor (from .ariel/monitor.json). */
export function monitorPid(ws) {
  return JSON.parse(readFileSync(join(ws, ".ariel/monitor.json"), "utf8")).pid;
}

/** A process's resident memory in kB (0 once it is gone). */
export function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
