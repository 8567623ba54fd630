export * from "./guard.ts";
export * from "./parse.ts";
export * from "./usage.ts";
