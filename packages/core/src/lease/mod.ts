/** Pure lease logic (DESIGN.md §6): decide acquire / steal / renew / held; TTL bounds. */
export * from "./decide.ts";
export * from "./ttl.ts";
