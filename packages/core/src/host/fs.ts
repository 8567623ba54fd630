import { constants, promises as fsp, mkdirSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { DirEntry, EntryKind, FsPort, NoFollowRead, StatInfo } from "../ports.ts";
import { randomHex } from "./builtins.ts";
import { syncFs } from "./sync_fs.ts";

function kindOf(s: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryKind {
  if (s.isSymbolicLink()) return "symlink";
  if (s.isDirectory()) return "dir";
  if (s.isFile()) return "file";
  return "other";
}

function info(s: import("node:fs").Stats): StatInfo {
  return { kind: kindOf(s), size: s.size, mtimeMs: s.mtimeMs, mode: s.mode, dev: s.dev, ino: s.ino };
}

async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw e;
  }
}

/** fsync a directory so a rename inside it is durable (best effort where unsupported). */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: import("node:fs/promises").FileHandle | undefined;
  try {
    fh = await fsp.open(dir, constants.O_RDONLY);
    await fh.sync();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EINVAL" && code !== "EPERM" && code !== "EBADF") throw e;
  } finally {
    await fh?.close();
  }
}

/**
 * Write `data` to `path` durably: temp file in the same directory, fsync, rename over, fsync the
 * directory. A reader sees the old or the new content, never a torn one.
 */
export async function writeAtomic(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomHex(6)}.tmp`);
  const fh = await fsp.open(tmp, "wx", mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  try {
    await fsp.rename(tmp, path);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(dir);
}

/** See {@link FsPort.readFileNoFollow}. */
export async function readFileNoFollow(path: string, maxBytes: number): Promise<NoFollowRead | null> {
  const noFollow = constants.O_NOFOLLOW as number | undefined;
  if (noFollow === undefined) {
    // No O_NOFOLLOW here (Windows): look first. A swap between lstat and open is the residual race.
    const st = await orNull(fsp.lstat(path));
    if (st === null) return null;
    if (!st.isFile()) return { info: info(st), bytes: null };
  }
  let fh: import("node:fs/promises").FileHandle;
  try {
    fh = await fsp.open(path, constants.O_RDONLY | (noFollow ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    // ELOOP: a symbolic link (EMLINK on FreeBSD); ENXIO: a socket. Say what is there instead.
    if (code === "ELOOP" || code === "EMLINK" || code === "ENXIO") {
      const st = await orNull(fsp.lstat(path));
      return st && { info: info(st), bytes: null };
    }
    throw e;
  }
  try {
    const st = info(await fh.stat());
    if (st.kind !== "file" || st.size > maxBytes) return { info: st, bytes: null };
    const bytes = new Uint8Array(await fh.readFile());
    if (bytes.length > maxBytes) return { info: { ...st, size: bytes.length }, bytes: null };
    return { info: st, bytes };
  } finally {
    await fh.close();
  }
}

/** See {@link FsPort.createExclusive}. */
export async function createExclusive(path: string, data: string): Promise<boolean> {
  let fh: import("node:fs/promises").FileHandle;
  try {
    const flags =
      constants.O_CREAT |
      constants.O_EXCL |
      constants.O_WRONLY |
      ((constants.O_NOFOLLOW as number | undefined) ?? 0);
    fh = await fsp.open(path, flags, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    await fh.writeFile(data);
  } catch (e) {
    await fh.close();
    await fsp.rm(path, { force: true });
    throw e;
  }
  await fh.close();
  return true;
}

async function ignoreAbsent(p: Promise<void>): Promise<void> {
  try {
    await p;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** The real filesystem, through node:fs (which Deno also serves). */
export const nodeFs: FsPort = {
  async readDir(path) {
    const entries = await fsp.readdir(path, { withFileTypes: true });
    return entries.map((d): DirEntry => ({ name: d.name, kind: kindOf(d) }));
  },
  readText: (path) => fsp.readFile(path, "utf8"),
  readBytes: async (path) => new Uint8Array(await fsp.readFile(path)),
  stat: async (path) => {
    const s = await orNull(fsp.stat(path));
    return s && info(s);
  },
  lstat: async (path) => {
    const s = await orNull(fsp.lstat(path));
    return s && info(s);
  },
  realpath: (path) => fsp.realpath(path),
  readLink: (path) => fsp.readlink(path),
  mkdirp: async (path) => {
    await fsp.mkdir(path, { recursive: true });
  },
  writeAtomic: (path, data, mode) => writeAtomic(path, data, mode),
  remove: (path) => fsp.rm(path, { recursive: true, force: true }),
  rename: (from, to) => fsp.rename(from, to),
  readFileNoFollow,
  createExclusive,
  unlink: (path) => ignoreAbsent(fsp.unlink(path)),
  rmdir: (path) => ignoreAbsent(fsp.rmdir(path)),
  syncDir: (path) => fsyncDir(path),
};

/**
 * {@link nodeFs} with its reads and `mkdirp` done synchronously (those of {@link syncFs}), for a
 * short-lived CLI that resolves its workspace and sources before it does anything else
 * (ariel-spawn): no thread-pool hop per read, and node:fs/promises is not loaded at all on a path
 * that writes nothing else through it (~0.04× of `node -e 0`; docs/benchmarks.md). Writes stay
 * nodeFs's, durable and atomic. Not for a long-running process that serves others meanwhile.
 */
export const blockingFs: FsPort = {
  ...nodeFs,
  readDir: syncFs.readDir,
  readText: syncFs.readText,
  readBytes: syncFs.readBytes,
  stat: syncFs.stat,
  lstat: syncFs.lstat,
  // realpath(3) itself, not node's walk that lstat()s every component in JavaScript.
  realpath: async (path) => realpathSync.native(path),
  readLink: syncFs.readLink,
  mkdirp: async (path) => {
    mkdirSync(path, { recursive: true });
  },
};
