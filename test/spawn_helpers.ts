/**
 * Shared set-up for the ariel-spawn end-to-end tests: workspaces of real repositories, a child
 * that reports its own cwd and environment, and a way to run ariel-spawn while signalling it.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CliResult, cliCommand, type Runtime, testStateHome } from "./helpers/cli.ts";
import { initRepo, tempDir } from "./helpers/git.ts";
import { watchJsonLines } from "./helpers/json_lines.ts";

export const NODE = process.execPath;

/**
 * A child that prints one JSON line: its cwd and the ARIEL_ variables it sees (but the test
 * harness's ARIEL_STATE_HOME, which is inherited like any variable).
 */
export const REPORT = [
  NODE,
  "-e",
  "const e={};for(const[k,v]of Object.entries(process.env))if(k.startsWith('ARIEL_')&&k!=='ARIEL_STATE_HOME')e[k]=v;" +
    "console.log(JSON.stringify({cwd:process.cwd(),env:e}))",
];

/** A workspace directory holding one committed repository per name ("." = the root itself). */
export function workspace(names: readonly string[]): string {
  const root = tempDir("ariel-spawn-");
  for (const n of names) initRepo(n === "." ? root : join(root, n), { "README.md": `${n}\n` });
  return root;
}

/** `--source NAME` for each of `names`. */
export const sources = (names: readonly string[]): string[] => names.flatMap((n) => ["--source", n]);

/** The history files under `<root>/.ariel/runs`. */
export function runFiles(root: string): string[] {
  const dir = join(root, ".ariel/runs");
  return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : [];
}

export function readNdjson(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Start ariel-spawn, call `onLine` for each stdout line (it may signal the process through the
 * given pid), and resolve when it exits.
 */
export function runSpawnWatching(
  args: readonly string[],
  options: { cwd: string; input?: string; runtime?: Runtime; env?: Record<string, string> },
  onLine: (line: string, pid: number, closeStdout: () => void) => void,
): Promise<CliResult> {
  const [exe, ...pre] = cliCommand("spawn", options.runtime);
  return new Promise((resolve, reject) => {
    const child = spawn(exe as string, [...pre, ...args], {
      cwd: options.cwd,
      env: {
        ...process.env,
        NO_COLOR: "1",
        ARIEL_STATE_HOME: testStateHome(),
        // The fixtures' roots are plain directories: name them, so .ariel/ may be made there.
        ARIEL_WORKSPACE_ROOT: options.cwd,
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    watchJsonLines(child, "ariel-spawn", args);
    let out = "";
    let pending = "";
    const err: Buffer[] = [];
    child.stdout.on("error", () => {});
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString("utf8");
      pending += b.toString("utf8");
      let nl = pending.indexOf("\n");
      while (nl !== -1) {
        onLine(pending.slice(0, nl), child.pid as number, () => child.stdout.destroy());
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
      }
    });
    child.stderr.on("data", (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: out, stderr: Buffer.concat(err).toString("utf8") });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
  });
}
