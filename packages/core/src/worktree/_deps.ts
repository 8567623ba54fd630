/**
 * What the worktree planner uses from the rest of the pure core (names, paths), in one place.
 * @internal
 */
export { DEFAULT_OVERLAY } from "../config.ts";
export { generateTaskId, validateBranchName, validateSourceName, validateTaskId } from "../names.ts";
export { isWithin } from "../paths.ts";
