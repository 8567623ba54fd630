/** @module host/runs — the I/O half of background runs: the monitor, the local backend, control. */

export * from "../supervise/backends/local/backend.ts";
export * from "../supervise/client.ts";
export * from "../supervise/control.ts";
export * from "../supervise/detach.ts";
export * from "../supervise/logs.ts";
export * from "../supervise/monitor.ts";
export * from "../supervise/notify.ts";
export * from "../supervise/protocol.ts";
export * from "../supervise/pty.ts";
export * from "../supervise/screen.ts";
export * from "../supervise/tty_attach.ts";
export * from "../supervise/tty_monitor.ts";
export * from "./active.ts";
export * from "./activity.ts";
export * from "./identity.ts";
export * from "./in_use.ts";
export * from "./left.ts";
export * from "./output.ts";
export * from "./resolve.ts";
export * from "./rows.ts";
export * from "./store.ts";
