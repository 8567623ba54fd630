/**
 * @module lifecycle — a task's life beyond its worktrees: hooks (events, argv, trust digests)
 * and port leases, as pure data. The I/O half is host/lifecycle.
 */
export * from "./events.ts";
export * from "./hooks.ts";
export * from "./ports.ts";
