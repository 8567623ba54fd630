/**
 * @module land — pure halves of reviewing and landing a task: diff records and the land planner
 * (docs/lifecycle.md). The I/O lives in host/land.
 */
export * from "./diff.ts";
export * from "./hints.ts";
export * from "./plan_land.ts";
export * from "./recover.ts";
