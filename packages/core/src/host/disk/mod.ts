/**
 * @module host/disk — the I/O half of ariel's disk commands: the usage walker, free space, and
 * the disk guard. The arithmetic and the plans are pure (core/disk).
 */
export * from "./du.ts";
export * from "./gc.ts";
export * from "./guard.ts";
export * from "./handoff.ts";
export * from "./share.ts";
export { readAllTasks } from "./tasks.ts";
export { freeSpace, type WalkWarning } from "./walk.ts";
