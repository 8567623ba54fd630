/**
 * A read-only {@link FsPort} over node:fs's synchronous calls. For a short-lived CLI that has
 * nothing else to do while it reads (ariel-discover), blocking reads of tiny files (HEAD, refs)
 * are several times cheaper than promise-based ones: no thread-pool hop, no FileHandle. Its
 * writes throw TypeError: write through `nodeFs` (durable, atomic). It imports nothing but
 * node:fs, so a bundle that reads through it does not load node:crypto at start-up.
 *
 * @example
 * ```ts
 * const sources = await discoverSources(syncFs, root, {}, warn);
 * const same = discoverSourcesSync(syncReadFs, root, {}, warn); // no promise per read
 * ```
 */
import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import type { SyncReadFs } from "../discovery/io.ts";
import type { DirEntry, EntryKind, FsPort, StatInfo } from "../ports.ts";

/** What a stat says an entry is (links not followed when it came from lstat). */
export function kindOf(s: {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}): EntryKind {
  if (s.isSymbolicLink()) return "symlink";
  if (s.isDirectory()) return "dir";
  if (s.isFile()) return "file";
  return "other";
}

/** A node:fs stat as the {@link FsPort} gives it. */
export function info(s: import("node:fs").Stats): StatInfo {
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

/** One buffer for every small read: HEAD and ref files are a few dozen bytes. */
const small = Buffer.allocUnsafe(16 * 1024);

/**
 * A whole file as UTF-8: open, one read into the shared buffer, close (a quarter fewer system
 * calls than readFileSync, which also fstat()s); a file that fills the buffer is read again whole.
 */
function readTextSync(path: string): string {
  const fd = openSync(path, constants.O_RDONLY); // a number: no flag string to parse per call
  let n: number;
  try {
    n = readSync(fd, small, 0, small.length, 0);
  } finally {
    closeSync(fd);
  }
  return n < small.length ? small.toString("utf8", 0, n) : readFileSync(path, "utf8");
}

function readOnly(): Promise<never> {
  return Promise.reject(new TypeError("syncFs is read-only; write through nodeFs"));
}

/**
 * A stat that is null where nothing is: a missing path, or one under a file (ENOTDIR, which
 * `throwIfNoEntry: false` still throws), as nodeFs's stat and lstat are.
 */
function statOrNull(stat: typeof statSync, path: string): StatInfo | null {
  try {
    const s = stat(path, { throwIfNoEntry: false });
    return s ? info(s) : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw e;
  }
}

/** The synchronous reads themselves, for `discoverSourcesSync` (no promise per read). */
export const syncReadFs: SyncReadFs = {
  readDir: (path) =>
    readdirSync(path, { withFileTypes: true }).map((d): DirEntry => ({ name: d.name, kind: kindOf(d) })),
  readText: readTextSync,
  stat: (path) => statOrNull(statSync, path),
  realpath: (path) => realpathSync(path),
};

export const syncFs: FsPort = {
  readDir: (path) => settle(() => syncReadFs.readDir(path)),
  readText: (path) => settle(() => readTextSync(path)),
  readBytes: (path) => settle(() => new Uint8Array(readFileSync(path))),
  stat: (path) => settle(() => syncReadFs.stat(path)),
  lstat: (path) => settle(() => statOrNull(lstatSync, path)),
  realpath: (path) => settle(() => realpathSync(path)),
  readLink: (path) => settle(() => readlinkSync(path)),
  mkdirp: readOnly,
  writeAtomic: readOnly,
  remove: readOnly,
  rename: readOnly,
  readFileNoFollow: readOnly,
  createExclusive: readOnly,
  unlink: readOnly,
  rmdir: readOnly,
  syncDir: readOnly,
};
