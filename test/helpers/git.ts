/**
 * Real git repositories in temporary directories, for integration and end-to-end tests.
 * Runs git without a shell and with a fixed identity and dates, so hashes are reproducible.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

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

/** Run git in `cwd`; throws with git's stderr on a non-zero exit. Returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
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
  const r = spawnSync("git", args, { cwd, env: { ...process.env, ...GIT_TEST_ENV }, encoding: "utf8" });
  return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh, canonical (realpath) temporary directory. Call the returned cleanup in afterEach. */
export function tempDir(prefix = "ariel-test-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Write a file (creating parent directories). */
export function writeFile(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/**
 * `git init` a repository at `dir` with one commit of `files` (default: README.md) on `main`.
 * Returns the commit's sha.
 */
export function initRepo(dir: string, files: Record<string, string> = { "README.md": "hello\n" }): string {
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
