/**
 * @module worktree — pure planning for ariel-worktree: add/remove plans, refusals, overlay
 * selection, leg directory names and the task record model. I/O lives in host/worktree.
 */
export * from "./bounds.ts";
export * from "./claude_hook.ts";
export * from "./leg_dir.ts";
export * from "./next_step.ts";
export * from "./ours.ts";
export * from "./overlay.ts";
export * from "./plan_add.ts";
export * from "./plan_adopt.ts";
export * from "./plan_remove.ts";
export * from "./porcelain.ts";
export * from "./record.ts";
export * from "./ref_guard.ts";
export * from "./refusal_error.ts";
export * from "./refusals.ts";
export * from "./shell_init.ts";
