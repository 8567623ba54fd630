import { type ArielError, isArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import { type Lease, withRepoLock } from "./_deps.ts";

/**
 * How every worktree mutation proves it may act (docs/durability.md, "Fencing"). A step that
 * changes git or the filesystem runs inside `lease.fenced`, which holds the lease lock while it
 * checks the token and while the step runs; a git step takes its repository lock first. The
 * lock order is the same everywhere (repository lock → lease lock → record lock), so two
 * processes never wait for each other in a circle.
 * @internal
 */

/** The options every worktree command takes its task lease with. */
export function leaseOptions(ports: Ports, owner: string, ttlMs: number) {
  return { owner, ttlMs, clock: ports.clock, fs: ports.fs };
}

/**
 * Run `fn` (git commands on one repository) holding that repository's lock, then proving and
 * holding the task's lease: checked after the wait for the repository lock, right before `fn`.
 */
export function repoStep<T>(
  ports: Ports,
  lease: Lease,
  commonGitDir: string,
  purpose: string,
  fn: () => Promise<T>,
): Promise<T> {
  return withRepoLock(commonGitDir, () => lease.fenced(fn), { purpose, fs: ports.fs });
}

/** True for ERR_FENCED: this process lost the task and must change nothing more. */
export function isFenced(e: unknown): e is ArielError {
  return isArielError(e) && e.code === "ERR_FENCED";
}
