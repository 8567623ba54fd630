/**
 * @module host/land — the I/O halves of reviewing and landing a task (docs/lifecycle.md).
 */

export * from "./branches.ts";
export * from "./diff.ts";
export * from "./hooks.ts";
export * from "./land.ts";
export * from "./recover.ts";
