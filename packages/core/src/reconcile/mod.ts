/** `ariel-worktree reconcile`'s pure half: the facts it reads and the plan it makes. */
export * from "./facts.ts";
export * from "./plan.ts";
export * from "./summary.ts";
