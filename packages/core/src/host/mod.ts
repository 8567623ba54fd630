/**
 * @module @ariel/core/host — the only code of ariel that touches the filesystem, processes and
 * clocks (through node: APIs, which Deno also serves).
 */
export * from "./cli/mod.ts";
export * from "./disk/mod.ts";
export * from "./fleet/mod.ts";
export * from "./free_space.ts";
export * from "./fs.ts";
export * from "./git.ts";
export * from "./git-retry.ts";
export * from "./jit.ts";
export * from "./land/mod.ts";
export * from "./lease-store.ts";
export * from "./lifecycle/mod.ts";
export * from "./lock-file.ts";
export * from "./output.ts";
export * from "./ports.ts";
export * from "./proc.ts";
export * from "./progress.ts";
export * from "./reconcile/mod.ts";
export * from "./record-store.ts";
export * from "./repo-lock.ts";
export * from "./runs/mod.ts";
export * from "./sandbox/mod.ts";
export * from "./spawn/mod.ts";
export * from "./state-file.ts";
export * from "./status.ts";
export * from "./supervise/mod.ts";
export * from "./sync_fs.ts";
export * from "./table.ts";
export * from "./test-hooks.ts";
export type { WalkWarning } from "./walk/walk.ts";
export * from "./warn.ts";
export * from "./workspace/mod.ts";
export * from "./worktree/mod.ts";
