/**
 * @module host/worktree — ariel-worktree's I/O: make, check, snapshot, remove, restore, list
 * and verify task worktrees. The decisions are pure (core/worktree); this applies them.
 *
 * @example
 * ```ts
 * import { addTask, removeTask } from "@ariel/core/host";
 * const { record } = await addTask(hostPorts(), { root, taskId: "fix-login", sources: ["api"] });
 * const { refused, results } = await removeTask(hostPorts(), { root, taskId: "fix-login" });
 * ```
 */
export * from "./add.ts";
export { type AdoptOptions, type AdoptResult, adoptWorktree } from "./adopt.ts";
export * from "./claude_hook.ts";
export * from "./handoff.ts";
export { type ListResult, listTasks, type WorktreeRow } from "./list.ts";
export { type TaskPathOptions, taskPath } from "./path.ts";
export * from "./remove.ts";
export * from "./restore.ts";
export * from "./share.ts";
export { readTask, taskRecordPath, writeTask } from "./store.ts";
export * from "./task.ts";
export { readAllTasks } from "./tasks.ts";
export { type VerifyLeg, type VerifyResult, verifyTask } from "./verify.ts";
export { openWorkspace, type ResolvedSource, resolveSource, type WorktreeWorkspace } from "./workspace.ts";
