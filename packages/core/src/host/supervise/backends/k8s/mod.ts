export * from "./backend.ts";
export * from "./source_facts.ts";
export * from "./spawn.ts";
