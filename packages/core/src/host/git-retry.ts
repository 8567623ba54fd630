import type { GitPort, GitResult, GitRunOptions } from "../ports.ts";
import { sleep } from "./proc.ts";

/**
 * git's transient failures under concurrency: another git process holds a lock ariel does not
 * control, or `git worktree add` read a half-written `commondir`. Only these are retried.
 */
export const TRANSIENT_GIT_ERRORS: readonly RegExp[] = [
  /commondir/,
  /config\.lock/,
  /index\.lock/,
  /Unable to create '[^']*\.lock'/,
  /could not lock config file/,
];

/** True when git's stderr shows one of {@link TRANSIENT_GIT_ERRORS}. */
export function isTransientGitError(stderr: string): boolean {
  return TRANSIENT_GIT_ERRORS.some((re) => re.test(stderr));
}

export interface GitRetryOptions extends GitRunOptions {
  /** Attempts in all, including the first (default 6). */
  attempts?: number;
  /** First backoff in ms (default 25), doubled per retry up to `maxDelayMs` (default 1000), jittered. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Called before each retry, e.g. to undo what the failed attempt left (a branch it made). */
  beforeRetry?: (attempt: number, failed: GitResult) => Promise<void> | void;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface GitRetryResult extends GitResult {
  /** How many times git ran. */
  attempts: number;
}

/**
 * Run git, retrying only its transient lock/`commondir` failures with jittered exponential
 * backoff, at most `attempts` times. Any other failure (and the last transient one) is returned
 * as is, like {@link GitPort.run}: a non-zero exit is a result, not a throw.
 *
 * @example
 * ```ts
 * const r = await runGitRetrying(nodeGit, ["worktree", "add", "-b", b, dir, base], { cwd: repo });
 * if (r.code !== 0) throw new ArielError("ERR_GIT", r.stderr.trim());
 * ```
 */
export async function runGitRetrying(
  git: GitPort,
  args: readonly string[],
  options: GitRetryOptions,
): Promise<GitRetryResult> {
  const attempts = Math.max(1, options.attempts ?? 6);
  const base = options.baseDelayMs ?? 25;
  const max = options.maxDelayMs ?? 1000;
  const wait = options.sleep ?? ((ms: number) => sleep(ms));
  const random = options.random ?? Math.random;
  const runOptions: GitRunOptions = { cwd: options.cwd };
  if (options.env) runOptions.env = options.env;
  if (options.input !== undefined) runOptions.input = options.input;
  for (let attempt = 1; ; attempt++) {
    const r = await git.run(args, runOptions);
    if (r.code === 0 || attempt >= attempts || !isTransientGitError(r.stderr))
      return { ...r, attempts: attempt };
    await options.beforeRetry?.(attempt, r);
    const ceiling = Math.min(max, base * 2 ** (attempt - 1));
    await wait(Math.round(ceiling * (0.5 + random() / 2)));
  }
}
