/** @module spawn — pure planning for ariel-spawn: targets, plans, events, exit statuses. */
export * from "./events.ts";
export * from "./exit.ts";
export * from "./plan.ts";
export * from "./resolve.ts";
export * from "./run_id.ts";
export * from "./summary.ts";
export * from "./targets.ts";
export * from "./tasks.ts";
