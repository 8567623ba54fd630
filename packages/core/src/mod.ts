/**
 * @module @ariel/core — the pure core: errors, names, paths, discovery, planning, records.
 * Nothing here imports `node:`, Deno, citty or consola; I/O comes in through {@link Ports}.
 */
export * from "./config.ts";
export * from "./contract_summary.ts";
export * from "./discovery/mod.ts";
export * from "./disk/mod.ts";
export * from "./errors.ts";
export * from "./fingerprint.ts";
export * from "./fleet/mod.ts";
export * from "./hash.ts";
export * from "./k8s/mod.ts";
export * from "./land/mod.ts";
export * from "./lease/mod.ts";
export * from "./lifecycle/mod.ts";
export * from "./limits.ts";
export * from "./names.ts";
export * from "./ndjson.ts";
export * from "./paths.ts";
export * from "./plural.ts";
export * from "./ports.ts";
export * from "./reconcile/mod.ts";
export * from "./runs/mod.ts";
export * from "./sandbox/mod.ts";
export * from "./schema/mod.ts";
export * from "./shell_words.ts";
export * from "./size.ts";
export * from "./spawn/mod.ts";
export * from "./state_home.ts";
export * from "./state_paths.ts";
export * from "./suggest.ts";
export * from "./version.ts";
export * from "./workspace.ts";
export * from "./worktree/mod.ts";
