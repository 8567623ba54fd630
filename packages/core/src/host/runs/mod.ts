/** @module host/runs — the I/O half of background runs: the monitor, the local backend, control. */
export * from "./active.ts";
export * from "./activity.ts";
export * from "./client.ts";
export * from "./control.ts";
export * from "./detach.ts";
export * from "./identity.ts";
export * from "./local.ts";
export * from "./logs.ts";
export * from "./monitor.ts";
export * from "./notify.ts";
export * from "./output.ts";
export * from "./protocol.ts";
export * from "./pty.ts";
export * from "./screen.ts";
export * from "./store.ts";
export * from "./tty_attach.ts";
export * from "./tty_monitor.ts";
