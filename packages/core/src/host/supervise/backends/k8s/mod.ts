export * from "./backend.ts";
export { clientFor } from "./client.ts";
export * from "./source_facts.ts";
export * from "./spawn.ts";
export { viewK8sRun } from "./view.ts";
