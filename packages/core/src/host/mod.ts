/**
 * @module @ariel/core/host — the only code of ariel that touches the filesystem, processes and
 * clocks (through node: APIs, which Deno also serves).
 */
export * from "./cli.ts";
export * from "./fs.ts";
export * from "./git.ts";
export * from "./jit.ts";
export * from "./output.ts";
export * from "./ports.ts";
export * from "./status.ts";
export * from "./sync_fs.ts";
export * from "./table.ts";
