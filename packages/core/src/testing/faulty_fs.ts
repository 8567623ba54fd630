/**
 * A fault-injecting {@link FsPort} for tests: wraps any FsPort (the in-memory FakeFs, or the real
 * one on a temp directory) and makes chosen calls fail with a Node-style error code (ENOSPC,
 * EACCES, EXDEV, ...), or runs a hook first (another process stealing a lease between two steps).
 * Pure: no `node:` imports.
 *
 * @example
 * ```ts
 * const fs = faultyFs(new FakeFs(), [{ op: "writeAtomic", path: /tasks\/t1\.json$/, code: "ENOSPC" }]);
 * await fs.writeAtomic("/ws/.ariel/tasks/t1.json", "{}"); // throws, code "ENOSPC"
 * ```
 */
import type { FsPort } from "../ports.ts";
import { fsError } from "./fake_fs.ts";

/** One planted fault: the first `times` (default every) matching calls of `op` on `path`. */
export interface Fault {
  op: keyof FsPort;
  /** An exact path, a pattern, or every path when absent. */
  path?: string | RegExp;
  /** The error code to throw; absent: the call goes through (after `before`). */
  code?: string;
  /** Let this many matching calls through first (default 0). */
  skip?: number;
  /** How many matching calls it affects (default: all). */
  times?: number;
  /** Runs before the matching call (and before the error, if any). */
  before?: (path: string) => Promise<void> | void;
}

/** Every call that went through `faultyFs`, in order, as `"op path"` (for exact assertions). */
export type FaultyFs = FsPort & { log: string[]; faults: Fault[] };

export function faultyFs(inner: FsPort, faults: Fault[] = []): FaultyFs {
  const log: string[] = [];
  const hit = async (op: keyof FsPort, path: string): Promise<void> => {
    log.push(`${op} ${path}`);
    for (const f of faults) {
      if (f.op !== op) continue;
      if (f.path !== undefined && (typeof f.path === "string" ? f.path !== path : !f.path.test(path)))
        continue;
      if (f.skip !== undefined && f.skip > 0) {
        f.skip--;
        continue;
      }
      if (f.times !== undefined) {
        if (f.times <= 0) continue;
        f.times--;
      }
      await f.before?.(path);
      if (f.code) throw fsError(f.code, op, path);
    }
  };
  const wrap =
    <A extends [string, ...unknown[]], R>(op: keyof FsPort, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await hit(op, args[0]);
      return fn(...args);
    };
  return {
    log,
    faults,
    readDir: wrap("readDir", (p) => inner.readDir(p)),
    readText: wrap("readText", (p) => inner.readText(p)),
    readBytes: wrap("readBytes", (p) => inner.readBytes(p)),
    stat: wrap("stat", (p) => inner.stat(p)),
    lstat: wrap("lstat", (p) => inner.lstat(p)),
    realpath: wrap("realpath", (p) => inner.realpath(p)),
    readLink: wrap("readLink", (p) => inner.readLink(p)),
    mkdirp: wrap("mkdirp", (p) => inner.mkdirp(p)),
    writeAtomic: wrap("writeAtomic", (p, d: string | Uint8Array, mode?: number) =>
      inner.writeAtomic(p, d, mode),
    ),
    remove: wrap("remove", (p) => inner.remove(p)),
    rename: wrap("rename", (p, to: string) => inner.rename(p, to)),
    readFileNoFollow: wrap("readFileNoFollow", (p, max: number) => inner.readFileNoFollow(p, max)),
    createExclusive: wrap("createExclusive", (p, d: string) => inner.createExclusive(p, d)),
    unlink: wrap("unlink", (p) => inner.unlink(p)),
    rmdir: wrap("rmdir", (p) => inner.rmdir(p)),
    syncDir: wrap("syncDir", (p) => inner.syncDir(p)),
  };
}
