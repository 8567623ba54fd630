/**
 * What the worktree host code uses from the `core`, `durable` and `discover` parts (workspace,
 * config, leases, CAS record store, repository lock, git retry, fingerprint), in one place.
 * @internal
 */
import type { Ports } from "../../ports.ts";
import { withLease as durableWithLease, type Lease } from "../lease-store.ts";
import { withRepoLock as durableWithRepoLock } from "../repo-lock.ts";
import { testPause } from "../test-hooks.ts";

export { loadConfig } from "../../config.ts";
export { sourceFingerprint } from "../../fingerprint.ts";
export { workspaceHash } from "../../hash.ts";
export { canonicalize, resolveContained } from "../../paths.ts";
export { ensureStateDir } from "../../workspace.ts";
export { runGitRetrying } from "../git-retry.ts";
export { readRecord, writeRecordCAS } from "../record-store.ts";
export type { Lease };
export { testPause };

/** Run `fn` under the task's lease (ERR_LEASE_HELD, exit 75, when another process holds it). */
export function withLease<T>(
  ports: Ports,
  root: string,
  taskId: string,
  owner: string,
  ttlMs: number,
  fn: (lease: Lease) => Promise<T>,
): Promise<T> {
  return durableWithLease(root, taskId, { owner, ttlMs, clock: ports.clock }, fn);
}

/** Run `fn` holding the repository's worktree lock (in its common git dir). */
export function withRepoLock<T>(commonGitDir: string, purpose: string, fn: () => Promise<T>): Promise<T> {
  return durableWithRepoLock(commonGitDir, () => fn(), { purpose });
}
