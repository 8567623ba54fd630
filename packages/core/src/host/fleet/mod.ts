/**
 * @module host/fleet — the fleet's I/O: the workspace registry, each workspace's sources, tasks
 * and runs, and the event stream read from the per-run history files.
 */
export * from "./follow_run.ts";
export * from "./gather.ts";
export * from "./history.ts";
export * from "./runs.ts";
export * from "./tail.ts";
export * from "./workspaces.ts";
