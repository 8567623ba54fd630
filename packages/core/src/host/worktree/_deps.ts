/**
 * What the worktree host code uses from the `core`, `durable` and `discover` parts (workspace,
 * config, leases, CAS record store, repository lock, git retry, fingerprint), in one place.
 * @internal
 */
export { loadConfig } from "../../config.ts";
export { sourceFingerprint } from "../../fingerprint.ts";
export { workspaceHash } from "../../hash.ts";
export { canonicalize, resolveContained } from "../../paths.ts";
export { commonGitDir, ensureStateDir } from "../../workspace.ts";
export { runGitRetrying } from "../git-retry.ts";
export { assertLeaseFree, type Lease, withLease } from "../lease-store.ts";
export { readRecord, writeRecordCAS } from "../record-store.ts";
export { withRepoLock } from "../repo-lock.ts";
export { testPause } from "../test-hooks.ts";
