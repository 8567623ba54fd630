/** @module runs/attention — which runs need the user: activity from screens and timing, agent presets. */

export * from "./arbiter.ts";
export * from "./classify.ts";
export * from "./presets.ts";
export * from "./prompt.ts";
export * from "./record.ts";
