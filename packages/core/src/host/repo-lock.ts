import { isAbsolute, join, resolve } from "node:path";
import { ArielError } from "../errors.ts";
import { childMessage } from "../fingerprint.ts";
import type { FsPort, GitPort } from "../ports.ts";
import { type LockHandle, withLockFile } from "./lock-file.ts";
import { testPause } from "./test-hooks.ts";

/**
 * The per-repository lock that serializes ariel's git worktree mutations (docs/durability.md):
 * `<common git dir>/ariel-worktree.lock`, holding the holder's pid, start time and host. A
 * holder that died is detected and its lock broken safely (see lock-file.ts); a live one is
 * waited for with backoff, then ERR_LOCKED (exit 75).
 */

/** File name of the lock inside the common git dir. */
export const REPO_LOCK_NAME = "ariel-worktree.lock";

/** Default wait for the repository lock: `ARIEL_LOCK_TIMEOUT_MS`, else 60 s. */
export function defaultRepoLockTimeout(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.ARIEL_LOCK_TIMEOUT_MS);
  return Number.isFinite(n) && n >= 0 && env.ARIEL_LOCK_TIMEOUT_MS !== "" ? n : 60_000;
}

export interface RepoLockOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Written into the lock file for a person reading it, e.g. "add fix-login". */
  purpose?: string;
  /** The filesystem (default: the real one). */
  fs?: FsPort;
}

/**
 * Run `fn` holding the repository lock of `commonGitDir` (absolute; see
 * {@link resolveCommonGitDir}). Not re-entrant across nesting: hold it once around the
 * sequence of git worktree commands of one mutation.
 *
 * @example
 * ```ts
 * const common = await resolveCommonGitDir(nodeGit, sourcePath);
 * await withRepoLock(common, async () => {
 *   await runGitRetrying(nodeGit, ["worktree", "add", ...], { cwd: sourcePath });
 * });
 * ```
 */
export async function withRepoLock<T>(
  commonGitDir: string,
  fn: (lock: LockHandle) => Promise<T>,
  options: RepoLockOptions = {},
): Promise<T> {
  if (!isAbsolute(commonGitDir)) throw new RangeError(`common git dir must be absolute: ${commonGitDir}`);
  await testPause("repo-lock:acquire"); // lets a test count how often a lock is waited for
  return withLockFile(
    join(commonGitDir, REPO_LOCK_NAME),
    {
      what: "repository lock",
      timeoutMs: options.timeoutMs ?? defaultRepoLockTimeout(),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.purpose ? { purpose: options.purpose } : {}),
      ...(options.fs ? { fs: options.fs } : {}),
    },
    async (lock) => {
      await testPause("repo-lock:held");
      return fn(lock);
    },
  );
}

/** The absolute common git dir of the repository holding `cwd` (`git rev-parse --git-common-dir`). */
export async function resolveCommonGitDir(git: GitPort, cwd: string): Promise<string> {
  const r = await git.run(["rev-parse", "--git-common-dir"], { cwd });
  if (r.code !== 0) {
    throw new ArielError("ERR_GIT", `not a git repository: ${cwd}`, {
      context: { path: cwd, stderr: childMessage(r.stderr) },
    });
  }
  return resolve(cwd, r.stdout.trim());
}
