/**
 * @module host/runs — background runs' records: `run.json`, `exit.json`, histories and output
 * files, the processes' identities, and what reading them tells (a run's view, who works in a
 * task). The supervisor that starts, watches and controls runs is `host/supervise/`.
 */
export * from "./active.ts";
export * from "./activity.ts";
export * from "./agent_history.ts";
export * from "./identity.ts";
export * from "./in_use.ts";
export * from "./left.ts";
export * from "./output.ts";
export * from "./resolve.ts";
export * from "./rows.ts";
export * from "./sandbox_history.ts";
export * from "./store.ts";
export * from "./view.ts";
