import { emptyUsage } from "../../disk/usage.ts";
import type { Ports } from "../../ports.ts";
import { newWalkState, walkUsage } from "../disk/walk.ts";

/**
 * Allocated bytes under `path` (st_blocks × 512, like `du -s`), without following links, a
 * hardlinked file counted once, without a shell. Unreadable entries count as 0. The same walk as
 * `ariel-worktree du` (host/disk/walk.ts).
 */
export async function diskBytes(_ports: Ports, path: string): Promise<number> {
  const usage = emptyUsage();
  walkUsage(path, null, newWalkState(), usage);
  return usage.total;
}
