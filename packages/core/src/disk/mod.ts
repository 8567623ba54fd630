export * from "./gc.ts";
export * from "./guard.ts";
export * from "./handoff.ts";
export * from "./parse.ts";
export * from "./share.ts";
export * from "./usage.ts";
