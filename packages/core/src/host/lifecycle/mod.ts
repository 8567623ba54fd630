/**
 * @module host/lifecycle — the I/O half of core/lifecycle: the hook runner ({@link runHooks}),
 * the trust store and the machine's port registry.
 */
export * from "./hook_sets.ts";
export * from "./plan_hooks.ts";
export * from "./port_registry.ts";
export * from "./report.ts";
export * from "./run_hook.ts";
export * from "./run_hooks.ts";
export * from "./task_hooks.ts";
export * from "./task_setup.ts";
export * from "./trust_sources.ts";
export * from "./trust_store.ts";
