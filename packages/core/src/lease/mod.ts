/** Pure lease logic (docs/architecture.md, Leases): decide acquire / steal / renew / held; TTL bounds. */
export * from "./decide.ts";
export * from "./ttl.ts";
