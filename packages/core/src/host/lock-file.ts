import { ArielError } from "../errors.ts";
import type { FsPort } from "../ports.ts";
import { randomHex } from "./builtins.ts";
import { nodeFs } from "./fs.ts";
import { isProcessAlive, selfIdentity, sleep } from "./proc.ts";
import { notRegular } from "./state-file.ts";

/**
 * An exclusive lock file with stale-holder detection, the one primitive under the repository
 * lock, the lease store and the record store.
 *
 * - Acquire: `open(path, O_CREAT|O_EXCL)` and write the holder `{pid, processStart, host, nonce}`.
 * - A holder whose process is gone (pid dead, or pid alive with another start time) is stale.
 *   Breaking it is guarded by a second exclusive file `<path>.break`: only the process that
 *   holds the guard may unlink the lock, and only after re-reading it and finding the very
 *   holder (same nonce) it judged stale. So two breakers never both win, and a breaker never
 *   removes a lock that a live process took in the meantime.
 * - Within one process, holders of the same path queue in memory first (no file polling).
 * - Waits with jittered exponential backoff; when one holder keeps it for `timeoutMs`, ERR_LOCKED
 *   (exit 75). A queue that moves (the holder changes) is waited out.
 * - A lock path holding a symbolic link or anything but a regular file is never read through,
 *   broken or replaced: ERR_NOT_REGULAR_FILE (exit 77).
 * - All I/O goes through an {@link FsPort} (`options.fs`, default the real one).
 */

export interface LockHolder {
  pid: number;
  processStart: string | null;
  host: string;
  nonce: string;
  acquiredAt: string;
  purpose?: string;
}

export interface LockFileOptions {
  /**
   * Give up after this long without progress (default 10 s): the wait starts again whenever
   * another holder has taken the lock, so a long queue of short holders is waited out, while one
   * holder that keeps the lock for `timeoutMs` makes the waiter fail. 0 tries once.
   */
  timeoutMs?: number;
  /** Named in messages: "repository lock", "record lock". */
  what?: string;
  /** Written into the lock file to help a person reading it. */
  purpose?: string;
  signal?: AbortSignal;
  /** The filesystem (default: the real one). */
  fs?: FsPort;
}

export interface LockHandle {
  readonly path: string;
  readonly holder: LockHolder;
  release(): Promise<void>;
}

/** Unreadable lock content older than this is treated as stale (a crash between open and write). */
const UNPARSABLE_GRACE_MS = 5_000;
/** A `.break` guard older than this is abandoned (its breaker died mid-break). */
const GUARD_STALE_MS = 10_000;

const queues = new Map<string, Promise<unknown>>();

/** A lock file is one short JSON line; a larger one is read as unparsable (stale after the grace). */
const LOCK_MAX_BYTES = 4096;

async function readHolder(
  fs: FsPort,
  path: string,
): Promise<{ holder: LockHolder | null; mtimeMs: number } | null> {
  const file = await fs.readFileNoFollow(path, LOCK_MAX_BYTES);
  if (file === null) return null;
  if (file.info.kind !== "file") throw notRegular(path, file.info.kind, "lock file");
  const mtimeMs = file.info.mtimeMs;
  if (file.bytes === null) return { holder: null, mtimeMs };
  const text = new TextDecoder().decode(file.bytes);
  try {
    const v = JSON.parse(text) as LockHolder;
    if (typeof v === "object" && v !== null && typeof v.pid === "number" && typeof v.nonce === "string") {
      return { holder: v, mtimeMs };
    }
  } catch {}
  return { holder: null, mtimeMs };
}

function createExclusive(fs: FsPort, path: string, holder: LockHolder): Promise<boolean> {
  return fs.createExclusive(path, `${JSON.stringify(holder)}\n`);
}

function isStale(seen: { holder: LockHolder | null; mtimeMs: number }, now: number): boolean {
  if (seen.holder === null) return now - seen.mtimeMs > UNPARSABLE_GRACE_MS;
  return !isProcessAlive(seen.holder);
}

/**
 * Unlink `path` if it still holds what `seen` saw, under the `.break` guard. False when another
 * breaker holds the guard (the caller waits a little and looks again).
 */
async function breakStale(
  fs: FsPort,
  path: string,
  seen: { holder: LockHolder | null; mtimeMs: number },
): Promise<boolean> {
  const guard = `${path}.break`;
  const me = newHolder("break");
  if (!(await createExclusive(fs, guard, me))) {
    const g = await readHolder(fs, guard);
    if (g && (Date.now() - g.mtimeMs > GUARD_STALE_MS || (g.holder !== null && !isProcessAlive(g.holder)))) {
      await fs.unlink(guard);
    }
    return false;
  }
  try {
    const again = await readHolder(fs, path);
    if (again === null) return true;
    const same =
      seen.holder === null
        ? again.holder === null && again.mtimeMs === seen.mtimeMs
        : again.holder?.nonce === seen.holder.nonce;
    if (same) await fs.unlink(path);
    return true;
  } finally {
    const g = await readHolder(fs, guard);
    if (g?.holder?.nonce === me.nonce) await fs.unlink(guard);
  }
}

function newHolder(purpose?: string): LockHolder {
  const id = selfIdentity();
  return {
    pid: id.pid,
    processStart: id.processStart,
    host: id.host,
    nonce: randomHex(8),
    acquiredAt: new Date().toISOString(),
    ...(purpose ? { purpose } : {}),
  };
}

async function acquireFile(path: string, options: LockFileOptions): Promise<LockHandle> {
  const fs = options.fs ?? nodeFs;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let deadline = Date.now() + timeoutMs;
  let lastHolder: string | undefined;
  let delay = 5;
  for (;;) {
    const holder = newHolder(options.purpose);
    if (await createExclusive(fs, path, holder)) {
      return {
        path,
        holder,
        async release() {
          const now = await readHolder(fs, path);
          if (now?.holder?.nonce === holder.nonce) await fs.unlink(path);
        },
      };
    }
    const seen = await readHolder(fs, path);
    if (seen === null) continue;
    if (isStale(seen, Date.now())) {
      if (!(await breakStale(fs, path, seen))) await sleep(2 + Math.random() * 8, options.signal);
      continue;
    }
    const nonce = seen.holder?.nonce ?? `?${seen.mtimeMs}`;
    if (lastHolder !== undefined && nonce !== lastHolder) deadline = Date.now() + timeoutMs; // progress
    lastHolder = nonce;
    if (Date.now() >= deadline || options.signal?.aborted) {
      const h = seen.holder;
      throw new ArielError(
        "ERR_LOCKED",
        `${options.what ?? "lock"} ${path} is held${h ? ` by pid ${h.pid} on ${h.host}` : ""}`,
        { context: { lock: path, ...(h ? { holderPid: h.pid, holderHost: h.host } : {}) } },
      );
    }
    await sleep(Math.min(delay * (0.5 + Math.random()), Math.max(1, deadline - Date.now())), options.signal);
    delay = Math.min(delay * 2, 100);
  }
}

/**
 * Hold the lock file at `path` while `fn` runs (released afterwards, also on a throw).
 *
 * @example
 * ```ts
 * await withLockFile("/repo/.git/ariel-worktree.lock", { what: "repository lock" }, async () => {
 *   // only one process (and one async caller in this process) runs here at a time
 * });
 * ```
 */
export async function withLockFile<T>(
  path: string,
  options: LockFileOptions,
  fn: (lock: LockHandle) => Promise<T>,
): Promise<T> {
  const prev = queues.get(path) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((r) => {
    done = r;
  });
  const tail = prev.then(() => mine);
  queues.set(path, tail);
  try {
    await prev;
    const lock = await acquireFile(path, options);
    try {
      return await fn(lock);
    } finally {
      await lock.release();
    }
  } finally {
    done();
    if (queues.get(path) === tail) queues.delete(path);
  }
}

/**
 * Whether the lock file at `path` is held by a live process, left by a dead one (stale), or
 * absent. Used by reconcile to report and clear stale locks.
 */
export async function inspectLock(path: string, fs: FsPort = nodeFs): Promise<"absent" | "live" | "stale"> {
  const seen = await readHolder(fs, path);
  if (seen === null) return "absent";
  return isStale(seen, Date.now()) ? "stale" : "live";
}

/** Remove the lock at `path` if it is stale, safely against racing breakers; true if it was. */
export async function breakStaleLock(path: string, fs: FsPort = nodeFs): Promise<boolean> {
  const seen = await readHolder(fs, path);
  if (seen === null || !isStale(seen, Date.now())) return false;
  await breakStale(fs, path, seen);
  const now = await readHolder(fs, path);
  if (now === null) return true;
  return seen.holder !== null ? now.holder?.nonce !== seen.holder.nonce : now.mtimeMs !== seen.mtimeMs;
}

/** Acquire without a callback (the caller must `release()`); no in-process queueing. */
export function acquireLockFile(path: string, options: LockFileOptions = {}): Promise<LockHandle> {
  return acquireFile(path, options);
}
