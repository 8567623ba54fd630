import { classifyTree, emptyUsage } from "../../disk/usage.ts";
import type { Ports } from "../../ports.ts";
import { walkTrees } from "../walk/parallel_walk.ts";
import { newWalkState } from "../walk/walk.ts";

/**
 * Allocated bytes under `path` (st_blocks × 512, like `du -s`), without following links, a
 * hardlinked file counted once, without a shell. Unreadable entries count as 0. The same walk as
 * `ariel-worktree du` (host/walk/parallel_walk.ts).
 */
export async function diskBytes(_ports: Ports, path: string): Promise<number> {
  const usage = emptyUsage();
  const [tree] = await walkTrees([path], newWalkState());
  classifyTree(tree!, null, usage);
  return usage.total;
}
