/**
 * @module host/disk — the I/O half of ariel's disk commands: `du` over tasks and `gc` (with its
 * archive). The arithmetic and the plans are pure (core/disk); the tree walker is host/walk/,
 * free space host/free_space.ts, and a task's share stores and handoff live with the worktrees.
 */
export * from "./du.ts";
export * from "./gc.ts";
