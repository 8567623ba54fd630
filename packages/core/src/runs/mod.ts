/** @module runs — the pure half of background runs: records, state, policies, planning. */

export * from "./agents/mod.ts";
export * from "./attention/mod.ts";
export * from "./backend.ts";
export * from "./chunks.ts";
export * from "./duration.ts";
export * from "./end.ts";
export * from "./kept.ts";
export * from "./paths.ts";
export * from "./plan.ts";
export * from "./prune.ts";
export * from "./record.ts";
export * from "./resolve.ts";
export * from "./restart.ts";
export * from "./segments.ts";
export * from "./select.ts";
export * from "./signals.ts";
export * from "./state.ts";
export * from "./tty.ts";
export * from "./wait_summary.ts";
