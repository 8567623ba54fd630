/**
 * Run a built ariel CLI as a separate process, under Node (the bundle, via the bin) or Deno
 * (from source), and capture stdout, stderr and the exit status. Works under vitest and Deno.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export type CliName = "discover" | "worktree" | "spawn" | "runs" | "fleet";
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
 * The user state dir the CLIs under test get (`ARIEL_STATE_HOME`): one temporary directory shared
 * by every test process (its files have unique names: run ids, workspace hashes), so no test
 * writes the workspace registry or run histories under the real home directory. Tests that look
 * into a state dir give their own.
 */
export function testStateHome(): string {
  const dir = join(tmpdir(), `ariel-test-state-${process.getuid?.() ?? "user"}`);
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

/** Run `ariel-<name> ...args` and wait for it. */
export function runAriel(
  name: CliName,
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const [exe, ...pre] = cliCommand(name, options.runtime);
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    const base = { ...process.env, NO_COLOR: "1", ARIEL_STATE_HOME: testStateHome() };
    for (const [k, v] of Object.entries({ ...base, ...options.env })) {
      if (v !== undefined) env[k] = v;
    }
    const child = spawn(exe as string, [...pre, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
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

/** Parse NDJSON stdout into records (throws on a bad line, which a test should see). */
export function records(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
