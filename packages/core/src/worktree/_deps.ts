/**
 * What the worktree planner uses from the rest of the pure core (names, paths, the bytewise
 * comparator), in one place.
 * @internal
 */
export { DEFAULT_OVERLAY } from "../config.ts";
export { compareBytewise } from "../discovery/compare.ts";
export {
  generateTaskId,
  validateBranchName,
  validateRequestNames,
  validateSourceName,
  validateTaskId,
} from "../names.ts";
export { isWithin } from "../paths.ts";
