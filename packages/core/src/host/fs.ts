import {
  closeSync,
  constants,
  promises as fsp,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { DirEntry, FsPort, NoFollowRead } from "../ports.ts";
import { randomHex } from "./builtins.ts";
import { info, kindOf, syncFs } from "./sync_fs.ts";

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

/** O_CREAT|O_EXCL|O_WRONLY, and O_NOFOLLOW where there is one: a link there is never followed. */
function exclusiveFlags(): number {
  return (
    constants.O_CREAT |
    constants.O_EXCL |
    constants.O_WRONLY |
    ((constants.O_NOFOLLOW as number | undefined) ?? 0)
  );
}

/** See {@link FsPort.createExclusive}. */
export async function createExclusive(path: string, data: string): Promise<boolean> {
  let fh: import("node:fs/promises").FileHandle;
  try {
    fh = await fsp.open(path, exclusiveFlags(), 0o644);
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

// The same operations as writeAtomic, readFileNoFollow, createExclusive and fsyncDir above, done
// synchronously, for blockingFs. Kept beside their async twins on purpose: the async ones serve
// long-running processes (the run monitor, ariel-fleet) that must not block, these a CLI whose
// every thread-pool hop is wall time (docs/benchmarks.md, ariel-spawn --detach).

function orNullSync<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw e;
  }
}

function ignoreAbsentSync(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

function fsyncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EINVAL" && code !== "EPERM" && code !== "EBADF") throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function writeAtomicSync(path: string, data: string | Uint8Array, mode = 0o644): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomHex(6)}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDirSync(dir);
}

function readFileNoFollowSync(path: string, maxBytes: number): NoFollowRead | null {
  const noFollow = constants.O_NOFOLLOW as number | undefined;
  if (noFollow === undefined) {
    const st = orNullSync(() => lstatSync(path));
    if (st === null) return null;
    if (!st.isFile()) return { info: info(st), bytes: null };
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (noFollow ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (code === "ELOOP" || code === "EMLINK" || code === "ENXIO") {
      const st = orNullSync(() => lstatSync(path));
      return st && { info: info(st), bytes: null };
    }
    throw e;
  }
  try {
    const st = info(fstatSync(fd));
    if (st.kind !== "file" || st.size > maxBytes) return { info: st, bytes: null };
    const bytes = new Uint8Array(readFileSync(fd));
    if (bytes.length > maxBytes) return { info: { ...st, size: bytes.length }, bytes: null };
    return { info: st, bytes };
  } finally {
    closeSync(fd);
  }
}

function createExclusiveSync(path: string, data: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, exclusiveFlags(), 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    writeFileSync(fd, data);
  } catch (e) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw e;
  }
  closeSync(fd);
  return true;
}

/** Run `fn` now; its value or error as a settled promise (the FsPort contract is async). */
function settleSync<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * {@link nodeFs} done synchronously, with the same results, errors and durability (temp file,
 * fsync, rename, directory fsync), for a short-lived CLI that has nothing else to do meanwhile
 * (ariel-spawn): no thread-pool hop per call, which on a loaded machine is wall time at every
 * hop, and node:fs/promises is not loaded. `realpath` is realpath(3) itself
 * (`realpathSync.native`), not node's walk that lstat()s every component in JavaScript. Not for
 * a long-running process that serves others meanwhile (the run monitor, ariel-fleet).
 */
export const blockingFs: FsPort = {
  readDir: syncFs.readDir,
  readText: syncFs.readText,
  readBytes: syncFs.readBytes,
  stat: syncFs.stat,
  lstat: syncFs.lstat,
  realpath: (path) => settleSync(() => realpathSync.native(path)),
  readLink: syncFs.readLink,
  mkdirp: (path) =>
    settleSync(() => {
      mkdirSync(path, { recursive: true });
    }),
  writeAtomic: (path, data, mode) => settleSync(() => writeAtomicSync(path, data, mode)),
  remove: (path) => settleSync(() => rmSync(path, { recursive: true, force: true })),
  rename: (from, to) => settleSync(() => renameSync(from, to)),
  readFileNoFollow: (path, maxBytes) => settleSync(() => readFileNoFollowSync(path, maxBytes)),
  createExclusive: (path, data) => settleSync(() => createExclusiveSync(path, data)),
  unlink: (path) => settleSync(() => ignoreAbsentSync(() => unlinkSync(path))),
  rmdir: (path) => settleSync(() => ignoreAbsentSync(() => rmdirSync(path))),
  syncDir: (path) => settleSync(() => fsyncDirSync(path)),
};
