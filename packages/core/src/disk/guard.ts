import { ArielError } from "../errors.ts";
import { formatBytes } from "../size.ts";

/** Free space of one filesystem, as statfs reports it to an unprivileged user. */
export interface FreeSpace {
  /** The path measured (the worktree root, or its nearest existing parent). */
  path: string;
  /** Bytes available to us (f_bavail × f_bsize). */
  free: number;
  /** Size of the filesystem (f_blocks × f_bsize). */
  size: number;
}

/**
 * ERR_DISK_LOW (exit 75) when `space.free` is under `minFreeBytes`, else null. The hint names
 * the free space and the command that reclaims it. Pure.
 */
export function diskLowError(space: FreeSpace, minFreeBytes: number, action: string): ArielError | null {
  if (minFreeBytes <= 0 || space.free >= minFreeBytes) return null;
  return new ArielError(
    "ERR_DISK_LOW",
    `${action}: only ${formatBytes(space.free)} free on ${space.path}, under the floor of ${formatBytes(minFreeBytes)}`,
    {
      hint: `free space first: ariel-worktree du shows what tasks cost, ariel-worktree gc -n plans what to reclaim (${formatBytes(space.free)} free; lower --min-free or config minFreeBytes to go on); nothing was changed`,
      context: { path: space.path, free: space.free, minFreeBytes },
    },
  );
}
