import { diskLowError } from "../../disk/guard.ts";
import { freeSpace } from "./walk.ts";

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
