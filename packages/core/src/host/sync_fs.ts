/**
 * A read-mostly {@link FsPort} over node:fs's synchronous calls. For a short-lived CLI that has
 * nothing else to do while it reads (ariel-discover), blocking reads of tiny files (HEAD, refs)
 * are several times cheaper than promise-based ones: no thread-pool hop, no FileHandle. Writes
 * delegate to {@link nodeFs} (durable, atomic).
 *
 * @example
 * ```ts
 * const sources = await discoverSources(syncFs, root, {}, warn);
 * ```
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import type { DirEntry, EntryKind, FsPort, StatInfo } from "../ports.ts";
import { nodeFs } from "./fs.ts";

function kindOf(s: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryKind {
  if (s.isSymbolicLink()) return "symlink";
  if (s.isDirectory()) return "dir";
  if (s.isFile()) return "file";
  return "other";
}

function info(s: import("node:fs").Stats): StatInfo {
  return { kind: kindOf(s), size: s.size, mtimeMs: s.mtimeMs, mode: s.mode, dev: s.dev, ino: s.ino };
}

/** Run `fn` now; its value or error as a settled promise (the FsPort contract is async). */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}

export const syncFs: FsPort = {
  readDir: (path) =>
    settle(() =>
      readdirSync(path, { withFileTypes: true }).map((d): DirEntry => ({ name: d.name, kind: kindOf(d) })),
    ),
  readText: (path) => settle(() => readFileSync(path, "utf8")),
  readBytes: (path) => settle(() => new Uint8Array(readFileSync(path))),
  stat: (path) =>
    settle(() => {
      const s = statSync(path, { throwIfNoEntry: false });
      return s ? info(s) : null;
    }),
  lstat: (path) =>
    settle(() => {
      const s = lstatSync(path, { throwIfNoEntry: false });
      return s ? info(s) : null;
    }),
  realpath: (path) => settle(() => realpathSync(path)),
  readLink: (path) => settle(() => readlinkSync(path)),
  mkdirp: (path) => nodeFs.mkdirp(path),
  writeAtomic: (path, data) => nodeFs.writeAtomic(path, data),
  remove: (path) => nodeFs.remove(path),
  rename: (from, to) => nodeFs.rename(from, to),
};
