/** @module runs/agents — what agents report about themselves: readers of their payloads, normalized events, the per-run wiring. */

export * from "./bound.ts";
export * from "./claude.ts";
export * from "./codex.ts";
export * from "./events.ts";
export * from "./gemini.ts";
export * from "./read.ts";
export * from "./summary.ts";
export * from "./wiring.ts";
