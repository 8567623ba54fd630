import { existsSync } from "node:fs";
import type { RunView } from "../../runs/backend.ts";
import { type KeptRunWorktree, keptWorktree } from "../../runs/kept.ts";

/**
 * The worktree an ended isolated run kept, while it is still on disk (the user has not removed
 * it since): what `ariel-runs list` keeps showing by default, with the next command.
 */
export function keptOnDisk(v: RunView, root?: string): KeptRunWorktree | null {
  const kept = keptWorktree(v.record, root);
  return kept && v.record.worktree !== null && existsSync(v.record.worktree) ? kept : null;
}
