/** @module host/runs — the I/O half of background runs: the monitor, the local backend, control. */
export * from "./active.ts";
export * from "./client.ts";
export * from "./control.ts";
export * from "./detach.ts";
export * from "./identity.ts";
export * from "./in_use.ts";
export * from "./left.ts";
export * from "./local.ts";
export * from "./logs.ts";
export * from "./monitor.ts";
export * from "./output.ts";
export * from "./protocol.ts";
export * from "./resolve.ts";
export * from "./rows.ts";
export * from "./store.ts";
