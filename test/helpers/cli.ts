/**
 * Run a built ariel CLI as a separate process, under Node (the bundle, via the bin) or Deno
 * (from source), and capture stdout, stderr and the exit status. Works under vitest and Deno.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CommandDef } from "../../packages/core/src/host/cli/define.ts";
import { watchJsonLines } from "./json_lines.ts";

export type CliName = "discover" | "worktree" | "spawn" | "runs" | "fleet" | "mcp" | "tui";
export type Runtime = "node" | "deno";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
/**
 * The deno binary the npm package installed. Not node_modules/.bin/deno: that is a shell script
 * running a Node script that runs deno, so a signal a test sends to the CLI's pid (Ctrl-C to
 * attach) would reach the wrapper and not Deno, and every call would start a Node process too.
 */
export const DENO = ((real) => (existsSync(real) ? real : join(REPO_ROOT, "node_modules/.bin/deno")))(
  join(REPO_ROOT, "node_modules/deno/deno"),
);

export interface CliResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string | Uint8Array;
  runtime?: Runtime;
  /** Milliseconds before the process is killed (default 60 s). */
  timeoutMs?: number;
}

/**
 * The user state dir the CLIs under test get (`ARIEL_STATE_HOME`): one temporary directory per run
 * of the suite (helpers/state_home_setup.ts), shared by every test process (its files have unique
 * names: run ids, workspace hashes), so no test
 * writes the workspace registry or run histories under the real home directory. Tests that look
 * into a state dir give their own.
 */
export function testStateHome(): string {
  const dir =
    process.env.TEST_ARIEL_STATE_HOME ?? join(tmpdir(), `ariel-test-state-${process.getuid?.() ?? "user"}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** argv[0..] that starts CLI `name` under `runtime`. */
export function cliCommand(name: CliName, runtime: Runtime = "node"): string[] {
  if (runtime === "deno") {
    return [DENO, "run", "-A", "--quiet", join(REPO_ROOT, `packages/cli-${name}/src/main.ts`)];
  }
  const bin = join(REPO_ROOT, `packages/cli-${name}/bin/ariel-${name}.mjs`);
  const dist = join(REPO_ROOT, `packages/cli-${name}/dist/ariel-${name}`);
  if (!existsSync(`${dist}.mjs`) && !existsSync(`${dist}.cjs`)) {
    throw new Error(`ariel-${name} is not built; run: node scripts/setup.mjs`);
  }
  return [process.execPath, bin];
}

/**
 * The environment a CLI under test gets: this process's, no colour, the test state home, then
 * `extra` (where an undefined value removes the variable).
 */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  const base = { ...process.env, NO_COLOR: "1", ARIEL_STATE_HOME: testStateHome() };
  for (const [k, v] of Object.entries({ ...base, ...extra })) {
    if (v !== undefined) env[k] = v;
  }
  return env;
}

/**
 * The CLIs whose command a test may run in its own process (see {@link inProcess}); not the
 * servers (ariel-fleet, ariel-mcp), which a test talks to while they run.
 */
const IN_PROCESS: Partial<Record<CliName, () => Promise<{ command: unknown }>>> = {
  worktree: () => import("../../packages/cli-worktree/src/command.ts"),
  discover: () => import("../../packages/cli-discover/src/command.ts"),
  spawn: () => import("../../packages/cli-spawn/src/command.ts"),
  runs: () => import("../../packages/cli-runs/src/command.ts"),
  fleet: () => import("../../packages/cli-fleet/src/command.ts"),
};

/** Whether calls of CLI `name` under `runtime` may run in this process (see {@link inProcess}). */
export function inProcessCli(name: CliName, runtime: Runtime | undefined): boolean {
  return process.env.ARIEL_TEST_IN_PROCESS === "1" && IN_PROCESS[name] !== undefined && runtime === undefined;
}

/**
 * Set `vars` on this process (undefined removes one), and the bin of `name` as its argv[1];
 * returns what puts them back. An in-process command's own git processes and the run monitor it
 * may start take their environment from this process, and a monitor is started as
 * `node <argv[1]> --ariel-run-monitor`: from the CLI's bin, as from the CLI's own process (the
 * monitor itself is then not mutation-tested).
 */
export function actAsProcessOf(name: CliName, vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const setAll = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  setAll(vars);
  const argv1 = process.argv[1];
  process.argv[1] = cliCommand(name)[1] as string;
  return () => {
    process.argv[1] = argv1 as string;
    setAll(saved);
  };
}

/** The command definition of CLI `name`, for a run in this process. */
export async function commandOf(name: CliName): Promise<CommandDef> {
  const load = IN_PROCESS[name];
  if (!load) throw new Error(`ariel-${name} does not run in-process`);
  return (await load()).command as CommandDef;
}

/**
 * Whether this call runs in the test's process: only under `npm run mutate`
 * (ARIEL_TEST_IN_PROCESS=1, vitest.mutate.config.ts), and only for a call that needs no process
 * of its own: no stdin, no other runtime, no other git (its version is checked once per
 * process), no test hook's pause line (written to the process's own stderr).
 */
function inProcess(name: CliName, options: CliOptions): boolean {
  if (!inProcessCli(name, options.runtime) || options.input !== undefined) return false;
  return options.env?.ARIEL_GIT === undefined && options.env?.ARIEL_TEST_PAUSE_AT === undefined;
}

/**
 * `ariel-<name> ...args` run by `runCli` in this process, with the environment its process would
 * get: what lets mutation testing see these end-to-end cases kill a mutant of a CLI's or the
 * host's source (docs/testing.md, "Mutation testing").
 */
async function runInThisProcess(
  name: CliName,
  args: readonly string[],
  options: CliOptions,
): Promise<CliResult> {
  const [command, { runInProcess }] = await Promise.all([
    commandOf(name),
    import("../../packages/core/src/host/cli/_fixture.ts"),
  ]);
  const extra = options.env ?? {};
  const restore = actAsProcessOf(name, extra);
  try {
    const r = await runInProcess(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...cliEnv(extra), ARIEL_TEST_IN_PROCESS: undefined },
    });
    return { ...r, signal: null };
  } finally {
    restore();
  }
}

/** Run `ariel-<name> ...args` and wait for it. */
export function runAriel(
  name: CliName,
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliResult> {
  if (inProcess(name, options)) return runInThisProcess(name, args, options);
  const [exe, ...pre] = cliCommand(name, options.runtime);
  return new Promise((resolve, reject) => {
    const child = spawn(exe as string, [...pre, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: cliEnv(options.env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    watchJsonLines(child, `ariel-${name}`, args);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
  });
}

/**
 * Run `ariel-<name> ...args` in the workspace `root` (its cwd), which is named with
 * ARIEL_WORKSPACE_ROOT: a plain directory of checkouts is a workspace only when named, so that
 * .ariel/ may be made there. `options.env` goes on top.
 */
export function arielIn(
  name: CliName,
  root: string,
  args: readonly string[],
  options: Omit<CliOptions, "cwd"> = {},
): Promise<CliResult> {
  return runAriel(name, args, { ...options, cwd: root, env: { ARIEL_WORKSPACE_ROOT: root, ...options.env } });
}

/** A CLI started by {@link startPausedAt}, paused at its test hook. */
export interface PausedCli {
  /** The paused process's own pid, as it printed it (the one to signal, whatever runs the bin). */
  pid: number;
  /** Its status, signal and output once it has ended. */
  done: Promise<CliResult>;
  /** SIGKILL it (unless it has ended) and wait for the end: its status and the signal. */
  kill(): Promise<{ code: number | null; signal: string | null }>;
}

/**
 * Start `ariel-<name> ...args` with the test hooks on and a pause at `point` (ARIEL_TEST_HOOKS,
 * ARIEL_TEST_PAUSE_AT; `options.env` on top of {@link cliEnv}, e.g. ARIEL_TEST_PAUSE_MS);
 * resolves once it says it is paused there, and rejects if it ends before.
 */
export async function startPausedAt(
  name: CliName,
  point: string,
  args: readonly string[],
  options: Omit<CliOptions, "input" | "timeoutMs"> = {},
): Promise<PausedCli> {
  const [exe, ...pre] = cliCommand(name, options.runtime);
  const child = spawn(exe as string, [...pre, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: cliEnv({ ARIEL_TEST_HOOKS: "1", ARIEL_TEST_PAUSE_AT: point, ...options.env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  watchJsonLines(child, `ariel-${name}`, args);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stderr = () => Buffer.concat(err).toString("utf8");
  child.stdout.on("data", (b: Buffer) => out.push(b));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: stderr() }),
    );
  });
  const pid = await new Promise<number>((resolve, reject) => {
    const marker = new RegExp(`ariel-test-paused ${point} (\\d+)`);
    child.stderr.on("data", (b: Buffer) => {
      err.push(b);
      const m = marker.exec(stderr());
      if (m) resolve(Number(m[1]));
    });
    done.then(({ code }) => reject(new Error(`ended (${code}) before ${point}: ${stderr()}`)), reject);
  });
  return {
    pid,
    done,
    async kill() {
      try {
        process.kill(pid, "SIGKILL");
      } catch {} // it ended already: its end says how
      const { code, signal } = await done;
      return { code, signal };
    },
  };
}

/** Parse NDJSON stdout into records (throws on a bad line, which a test should see). */
export function records(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
