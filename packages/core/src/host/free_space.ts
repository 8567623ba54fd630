/**
 * Free space on the filesystem that will hold a path, and the floor every command that writes
 * worktrees or runs checks before it changes anything (`minFreeBytes`, `--min-free`). The rule
 * (how low is too low, the error) is pure: core/disk/guard.ts.
 */
import { statfs } from "node:fs";
import { promisify } from "node:util";
import { diskLowError, type FreeSpace } from "../disk/guard.ts";

const statfsAsync = promisify(statfs);

/**
 * Refuse (ERR_DISK_LOW, exit 75) when the filesystem holding `path` has less than
 * `minFreeBytes` free. Called before a command changes anything. 0 or undefined: no floor.
 */
export async function checkMinFree(
  path: string,
  minFreeBytes: number | undefined,
  action: string,
): Promise<void> {
  if (minFreeBytes === undefined || minFreeBytes <= 0) return;
  const err = diskLowError(await freeSpace(path), minFreeBytes, action);
  if (err) throw err;
}

/** Free space of the filesystem holding `path` (or its nearest existing parent). */
export async function freeSpace(path: string): Promise<FreeSpace> {
  let p = path;
  for (;;) {
    try {
      const s = await statfsAsync(p);
      return { path: p, free: s.bavail * s.bsize, size: s.blocks * s.bsize };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const parent = p.slice(0, p.lastIndexOf("/")) || "/";
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === p) throw e;
      p = parent;
    }
  }
}
