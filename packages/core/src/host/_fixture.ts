/**
 * For tests only (the core's own and the e2e suites'; the build leaves `*_fixture.ts` out): real
 * git repositories in temporary directories, and the durability tests' worker processes. Git runs
 * without a shell and with a fixed identity and dates, so hashes are reproducible.
 * `test/helpers/git.ts` re-exports the git helpers for the e2e tests: test code may import from
 * the packages, never the other way round.
 * @internal
 *
 * @example
 * ```ts
 * const repo = tempDir("ariel-x-");
 * initRepo(repo, { "README.md": "# x\n" }); // one commit on main
 * git(repo, "rev-parse", "HEAD");
 * ```
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

export const GIT_TEST_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: "Ariel Test",
  GIT_AUTHOR_EMAIL: "ariel@example.invalid",
  GIT_COMMITTER_NAME: "Ariel Test",
  GIT_COMMITTER_EMAIL: "ariel@example.invalid",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  LC_ALL: "C",
};

/** The checkout these tests run from: no helper here may write or run git in it. */
const PROJECT = fileURLToPath(new URL("../../../../", import.meta.url)).replace(/\/$/, "");

/**
 * `path`, when it is a place a test may use: absolute, and not in the project's own checkout.
 * A relative path would be taken from the test process's cwd, the checkout: one test that passed
 * a commit's sha where a directory was meant once committed into it.
 */
function scratch(path: string): string {
  if (!isAbsolute(path) || path === PROJECT || path.startsWith(`${PROJECT}/`)) {
    throw new Error(
      `test helper: ${JSON.stringify(path)} is not a scratch path (absolute, outside ${PROJECT})`,
    );
  }
  return path;
}

/** Run git in `cwd`; throws with git's stderr on a non-zero exit. Returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  scratch(cwd);
  const r = spawnSync("git", ["-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    env: { ...process.env, ...GIT_TEST_ENV },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} (in ${cwd}) failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** Run git and return status and output without throwing. */
export function gitRaw(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  scratch(cwd);
  const r = spawnSync("git", args, { cwd, env: { ...process.env, ...GIT_TEST_ENV }, encoding: "utf8" });
  return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh, canonical (realpath) temporary directory. Call the returned cleanup in afterEach. */
export function tempDir(prefix = "ariel-test-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Whether process `pid` is gone by `withinMs` (polled): what a test asks of a child's leftovers. */
export async function processGone(pid: number, withinMs = 5000): Promise<boolean> {
  const gone = () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  };
  for (const end = Date.now() + withinMs; !gone() && Date.now() < end; ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return gone();
}

/** Remove a test's directory; a file something still writes into it as it goes is retried, not failed on. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

/** Write a file (creating parent directories). */
export function writeFile(path: string, content: string): void {
  scratch(path);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/**
 * `git init` a repository at `dir` with one commit of `files` (default: README.md) on `main`.
 * Returns the commit's sha.
 */
export function initRepo(dir: string, files: Record<string, string> = { "README.md": "hello\n" }): string {
  scratch(dir);
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  for (const [name, content] of Object.entries(files)) writeFile(join(dir, name), content);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "initial");
  return git(dir, "rev-parse", "HEAD");
}

/** Commit every change in `dir` with `message`; returns the new sha. */
export function commitAll(dir: string, message = "change"): string {
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", message);
  return git(dir, "rev-parse", "HEAD");
}

/**
 * Bundle `_durable_worker_fixture.ts` (a child process for the multi-process durability tests)
 * with esbuild; run it with {@link runWorker}.
 */
export async function bundleWorker(): Promise<string> {
  const { build } = await import("esbuild");
  const dir = mkdtempSync(join(tmpdir(), "ariel-worker-"));
  const outfile = join(dir, "worker.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./_durable_worker_fixture.ts", import.meta.url))],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    logLevel: "warning",
  });
  return outfile;
}

/** Remove a bundle made by {@link bundleWorker} (call in afterAll). */
export function removeWorker(worker: string): void {
  rmSync(dirname(worker), { recursive: true, force: true });
}

export interface WorkerRun {
  child: ChildProcess;
  /** Resolves with the first stdout line that parses as JSON and satisfies `pred`. */
  line(pred?: (o: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  done: Promise<{
    code: number | null;
    signal: string | null;
    lines: Record<string, unknown>[];
    stderr: string;
  }>;
}

export function runWorker(worker: string, action: string, args: Record<string, unknown>): WorkerRun {
  const child = spawn(process.execPath, [worker, action, JSON.stringify(args)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    pred: (o: Record<string, unknown>) => boolean;
    resolve: (o: Record<string, unknown>) => void;
  }[] = [];
  let buf = "";
  let stderr = "";
  child.stdout?.on("data", (b: Buffer) => {
    buf += b.toString("utf8");
    let nl = buf.indexOf("\n");
    while (nl !== -1) {
      const o = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      buf = buf.slice(nl + 1);
      lines.push(o);
      for (const w of [...waiters]) {
        if (w.pred(o)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(o);
        }
      }
      nl = buf.indexOf("\n");
    }
  });
  child.stderr?.on("data", (b: Buffer) => {
    stderr += b.toString("utf8");
  });
  const done = new Promise<{
    code: number | null;
    signal: string | null;
    lines: Record<string, unknown>[];
    stderr: string;
  }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, lines, stderr })));
  return {
    child,
    done,
    line(pred = () => true) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ pred, resolve });
        done.then((d) => reject(new Error(`worker ended (${d.code}) before the line: ${d.stderr}`)));
      });
    },
  };
}
