/** @module host/workspace — the workspace's I/O half: its state dir, the user registry, notices. */
export * from "./notice.ts";
export * from "./registry.ts";
export * from "./state_dir.ts";
