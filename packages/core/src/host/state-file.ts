import { ArielError } from "../errors.ts";
import type { FsPort, StatInfo } from "../ports.ts";

/**
 * ariel's state files (task records, leases, lock files) are ours, or they are refused: one that
 * is a symbolic link or not a regular file is never read through and never replaced, it is
 * ERR_NOT_REGULAR_FILE (exit 77). The read itself never follows a link (O_NOFOLLOW, see
 * {@link FsPort.readFileNoFollow}).
 *
 * @example
 * ```ts
 * const file = await readStateFile(nodeFs, "/w/.ariel/leases/t1.json", 64 * 1024, "lease");
 * if (file) JSON.parse(file.text);
 * ```
 */

/** A state file's text and what fstat said of it. */
export interface StateFile {
  text: string;
  info: StatInfo;
}

/** ERR_NOT_REGULAR_FILE for the state file `path` that is a `kind`. */
export function notRegular(path: string, kind: string, what: string): ArielError {
  const is = kind === "symlink" ? "a symbolic link" : kind === "dir" ? "a directory" : "not a regular file";
  return new ArielError("ERR_NOT_REGULAR_FILE", `${what} ${path} is ${is}; refusing to read or replace it`, {
    context: { path, kind },
  });
}

/**
 * Read the state file at `path`: null when absent; ERR_NOT_REGULAR_FILE when it is a link or
 * not a regular file; `tooLarge` (a thrown error) when it exceeds `maxBytes`.
 */
export async function readStateFile(
  fs: FsPort,
  path: string,
  maxBytes: number,
  what: string,
  tooLarge?: (size: number) => Error,
): Promise<StateFile | null> {
  const r = await fs.readFileNoFollow(path, maxBytes);
  if (r === null) return null;
  if (r.info.kind !== "file") throw notRegular(path, r.info.kind, what);
  if (r.bytes === null) {
    throw (
      tooLarge?.(r.info.size) ??
      new ArielError(
        "ERR_RECORD_TOO_LARGE",
        `${what} ${path}: ${r.info.size} bytes exceeds the ${maxBytes}-byte bound`,
        {
          context: { path, size: r.info.size, max: maxBytes },
        },
      )
    );
  }
  return { text: new TextDecoder().decode(r.bytes), info: r.info };
}
