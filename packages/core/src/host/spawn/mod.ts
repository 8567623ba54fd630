/** @module host/spawn — running ariel-spawn's children: processes, output, history, signals. */
export * from "./execute.ts";
export * from "./history.ts";
export * from "./interrupts.ts";
export * from "./isolation.ts";
export * from "./lines.ts";
export * from "./pool.ts";
export * from "./process.ts";
export * from "./run.ts";
