/**
 * @module host/supervise — the runs supervisor: the workspace's monitor and its request
 * protocol, detach (start), control (kill, wait, remove, respawn), logs, the tty machinery,
 * and the backends (`local`, `k8s`) behind one dispatcher. Run records are `host/runs/`.
 */
export * from "./backends/dispatch.ts";
export * from "./backends/k8s/mod.ts";
export * from "./backends/local/backend.ts";
export * from "./client.ts";
export * from "./control.ts";
export * from "./detach.ts";
export * from "./logs.ts";
export * from "./monitor/entry.ts";
export * from "./notify.ts";
export * from "./protocol.ts";
export * from "./pty.ts";
export * from "./reporter.ts";
export * from "./reporter_command.ts";
export * from "./run_attention.ts";
export * from "./screen.ts";
export * from "./send.ts";
export * from "./tty_attach.ts";
export * from "./tty_monitor.ts";
