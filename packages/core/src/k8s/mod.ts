export * from "./job.ts";
export * from "./log_resume.ts";
export * from "./names.ts";
export * from "./options.ts";
export * from "./scripts.ts";
export * from "./state.ts";
export * from "./yaml.ts";
