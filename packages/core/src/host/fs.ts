import { constants, promises as fsp } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { DirEntry, EntryKind, FsPort, StatInfo } from "../ports.ts";
import { randomHex } from "./builtins.ts";

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
  writeAtomic: (path, data) => writeAtomic(path, data),
  remove: (path) => fsp.rm(path, { recursive: true, force: true }),
  rename: (from, to) => fsp.rename(from, to),
};
