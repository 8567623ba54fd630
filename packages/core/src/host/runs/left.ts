import { existsSync } from "node:fs";
import type { RunView } from "../../runs/backend.ts";
import { type KeptRunWorktree, keptWorktree } from "../../runs/kept.ts";

/**
 * The worktree an ended isolated run kept, while it is still on disk (the user has not removed
 * it since): what `ariel-runs list` keeps showing by default, with the next command. A `--span`
 * run's counts while any leg it kept is still there.
 */
export function keptOnDisk(v: RunView, root?: string): KeptRunWorktree | null {
  const kept = keptWorktree(v.record, root);
  if (kept === null) return null;
  const r = v.record;
  const paths = kept.sources
    ? kept.sources.map((s) => r.legs?.find((l) => l.source === s)?.worktree ?? null)
    : [r.worktree];
  return paths.some((p) => p !== null && existsSync(p)) ? kept : null;
}
