import { ArielError } from "../errors.ts";
import {
  type Claimant,
  decideLease,
  isExpired,
  isSameHolder,
  type LeaseDecision,
  releasedLease,
} from "../lease/decide.ts";
import { clampTtl } from "../lease/ttl.ts";
import type { Clock, FsPort } from "../ports.ts";
import { type LeaseRecord, leaseSchema } from "../schema/lease.ts";
import { leasePath, leasesDir, taskRecordPath } from "../state_paths.ts";
import { ensureStateDir } from "../workspace.ts";
import { nodeFs } from "./fs.ts";
import { acquireLockFile, type LockHandle, withLockFile } from "./lock-file.ts";
import { isProcessAlive, selfIdentity, sleep } from "./proc.ts";
import { readRecord } from "./record-store.ts";
import { readStateFile } from "./state-file.ts";

/**
 * Task leases on disk (docs/durability.md): `<root>/.ariel/leases/<task>.json`.
 *
 * Acquire, renew and release each run read → {@link decideLease} → write under the lease's own
 * lock file (`<lease>.lock`), so two processes taking the same expired lease cannot both win.
 * The lease file is never deleted (release only ends it), so its token survives; the task
 * record's `fencingToken` is a floor too, so a deleted lease file never brings a token back.
 *
 * Every step that changes git or the filesystem runs inside {@link Lease.fenced}: under the lease
 * lock, the lease file must still name this holder and token, and nobody can take the lease
 * until the step is done (docs/durability.md, "Fencing"). All I/O goes through an
 * {@link FsPort} (`options.fs`, default the real one); a lease or lock path holding a link or
 * anything but a regular file is refused (ERR_NOT_REGULAR_FILE, exit 77).
 *
 * @example
 * ```ts
 * await withLease(root, "fix-login", { owner: "alice" }, async (lease) => {
 *   await writeRecordCAS(taskPath, next, { expectVersion, token: lease.token, leasePath: lease.path });
 * });
 * ```
 */

export interface LeaseOptions {
  /** Who takes it: a user name, a run id; shown to whoever finds it held. */
  owner: string;
  /** Time to live (default 30 s, clamped to 100 ms..300 s). */
  ttlMs?: number;
  /** Renew at a third of the TTL while `fn` runs (default true). */
  renew?: boolean;
  /** Wait up to this long for a held lease to come free (default 0: ERR_LEASE_HELD at once). */
  waitMs?: number;
  /** The lowest token to hand out minus one (default: the task record's `fencingToken`). */
  floorToken?: number;
  clock?: Clock;
  /** The filesystem (default: the real one). */
  fs?: FsPort;
}

/** A held lease. `signal` aborts (with ERR_FENCED) once a renewal finds it taken over. */
export interface Lease {
  readonly taskId: string;
  readonly owner: string;
  readonly token: number;
  /** The lease file, to pass as `leasePath` to writeRecordCAS. */
  readonly path: string;
  readonly signal: AbortSignal;
  /** The lease as last written by us. */
  record(): LeaseRecord;
  /** Throws ERR_FENCED when the lease is known to be lost. */
  assertHeld(): void;
  /** Extend the lease now (ERR_FENCED when it was taken over). */
  renew(): Promise<void>;
  /**
   * Run one step that changes git or the filesystem while provably holding the lease: under the
   * lease lock, the lease file must still carry this holder and token (else ERR_FENCED, exit 75,
   * and `signal` aborts), and no other process can take the lease until `fn` settles. Once
   * fenced, every later call throws at once. Nested calls run inside the outer step.
   */
  fenced<T>(fn: () => Promise<T>): Promise<T>;
}

export interface HeldLease extends Lease {
  /** Stop renewing and end the lease (keeps the file and its token). Idempotent. */
  release(): Promise<void>;
}

export { leasePath };

/** The task's lease as stored, or null; ERR_RECORD_CORRUPT for a damaged or foreign file. */
export async function readLease(
  root: string,
  taskId: string,
  fs: FsPort = nodeFs,
): Promise<LeaseRecord | null> {
  return readLeaseFile(fs, leasePath(root, taskId));
}

/** A lease is one short JSON line; anything larger is not ours. */
const LEASE_MAX_BYTES = 16 * 1024;

async function readLeaseFile(fs: FsPort, path: string): Promise<LeaseRecord | null> {
  const file = await readStateFile(
    fs,
    path,
    LEASE_MAX_BYTES,
    "lease",
    (size) =>
      new ArielError("ERR_RECORD_CORRUPT", `${path}: not a lease record (${size} bytes)`, {
        context: { path },
      }),
  );
  if (file === null) return null;
  const text = file.text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ArielError("ERR_RECORD_CORRUPT", `${path}: not valid JSON`, { context: { path } });
  }
  const r = leaseSchema().safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "(root)";
    throw new ArielError("ERR_RECORD_CORRUPT", `${path}: not a lease record (${where}: ${issue?.message})`, {
      context: { path },
    });
  }
  return r.data;
}

function writeLease(fs: FsPort, path: string, lease: LeaseRecord): Promise<void> {
  return fs.writeAtomic(path, `${JSON.stringify(lease)}\n`);
}

async function taskFloor(fs: FsPort, root: string, taskId: string): Promise<number> {
  try {
    const rec = await readRecord(taskRecordPath(root, taskId), { fs });
    return rec?.fencingToken ?? 0;
  } catch {
    return 0;
  }
}

function heldError(holder: LeaseRecord): ArielError {
  return new ArielError(
    "ERR_LEASE_HELD",
    `task ${holder.taskId} is leased by ${holder.owner} (pid ${holder.pid} on ${holder.host}) until ${holder.expiresAt}`,
    {
      context: {
        taskId: holder.taskId,
        holder: holder.owner,
        holderPid: holder.pid,
        holderHost: holder.host,
        expiresAt: holder.expiresAt,
      },
    },
  );
}

function fencedError(path: string, token: number, now: LeaseRecord | null): ArielError {
  return new ArielError(
    "ERR_FENCED",
    `lost the lease ${path} (ours was token ${token}${now ? `, now token ${now.token} of ${now.owner}` : ""})`,
    { context: { path, token, ...(now ? { leaseToken: now.token } : {}) } },
  );
}

/** How `claimant` would get the lease `current` now: {@link decideLease} with the holder's liveness. */
function claim(
  taskId: string,
  claimant: Claimant,
  current: LeaseRecord | null,
  floorToken: number,
  clock: Clock,
  ttlMs: number,
): LeaseDecision {
  return decideLease({
    taskId,
    claimant,
    current,
    floorToken,
    now: clock.now(),
    ttlMs,
    holderAlive: current ? isProcessAlive(current) : true,
  });
}

/**
 * Throw what {@link acquireLease} would throw right now (ERR_LEASE_HELD, exit 75, when another
 * live process holds the task's lease; ERR_RECORD_CORRUPT for a lease file that is not one)
 * without taking the lease: for a dry run, which must report the refusal its real run would
 * meet and change nothing. Writes nothing, creates no directory, never waits. A lease this
 * process holds for `owner` (re-entrant) is free to it, as for `acquireLease`.
 *
 * @example
 * ```ts
 * await assertLeaseFree("/w", "fix-login", { owner: "alice" }); // ERR_LEASE_HELD while a spawn runs in it
 * ```
 */
export async function assertLeaseFree(
  root: string,
  taskId: string,
  options: Pick<LeaseOptions, "owner" | "ttlMs" | "floorToken" | "clock" | "fs">,
): Promise<void> {
  const path = leasePath(root, taskId);
  const held = active.get(path);
  if (held && !held.signal.aborted && held.owner === options.owner) return;
  const fs = options.fs ?? nodeFs;
  const current = await readLeaseFile(fs, path);
  if (current === null) return;
  const floor = options.floorToken ?? (await taskFloor(fs, root, taskId));
  const me = { owner: options.owner, ...selfIdentity() };
  const clock = options.clock ?? { now: () => Date.now() };
  const d = claim(taskId, me, current, floor, clock, clampTtl(options.ttlMs));
  if (d.action === "held") throw heldError(d.holder);
}

/**
 * Take the task's lease (acquire a free one, steal an expired one or a dead holder's, renew our
 * own), or throw ERR_LEASE_HELD (exit 75) when another live process holds it.
 */
export async function acquireLease(root: string, taskId: string, options: LeaseOptions): Promise<HeldLease> {
  const path = leasePath(root, taskId);
  const held = active.get(path);
  if (held && !held.signal.aborted && held.owner === options.owner) {
    // Re-entrant within one process: share the outer lease; only the outer release ends it.
    return { ...held, release: async () => {} };
  }
  const clock = options.clock ?? { now: () => Date.now() };
  const fs = options.fs ?? nodeFs;
  const ttlMs = clampTtl(options.ttlMs);
  const me = { owner: options.owner, ...selfIdentity() };
  const floor = options.floorToken ?? (await taskFloor(fs, root, taskId));
  await ensureStateDir({ fs }, root); // .ariel/ exists and is excluded from the root checkout
  await fs.mkdirp(leasesDir(root));
  const deadline = clock.now() + (options.waitMs ?? 0);
  const decide = (current: LeaseRecord | null) => claim(taskId, me, current, floor, clock, ttlMs);
  let delay = 20;
  let record: LeaseRecord;
  for (;;) {
    // Look without the lock first: a live holder is reported at once, also while it keeps the
    // lease lock for a fenced step (a long checkout). Only the decision under the lock counts.
    let decision = decide(await readLeaseFile(fs, path));
    if (decision.action !== "held") {
      decision = await withLockFile(`${path}.lock`, { what: "lease lock", fs }, async () => {
        const d = decide(await readLeaseFile(fs, path));
        if (d.action !== "held") await writeLease(fs, path, d.lease);
        return d;
      });
    }
    if (decision.action !== "held") {
      record = decision.lease;
      break;
    }
    if (clock.now() >= deadline) throw heldError(decision.holder);
    await sleep(Math.min(delay, Math.max(1, deadline - clock.now())));
    delay = Math.min(delay * 2, 500);
  }
  const handle = makeHandle(path, record, ttlMs, options, clock, fs);
  active.set(path, handle);
  return handle;
}

/** The lease lock as held by one process for its fenced steps (see `fenced`). */
interface Hold {
  /** Settles once the lock is taken and the lease proven (rejects when either fails). */
  ready: Promise<void>;
  steps: Set<Promise<unknown>>;
}

/** Leases this process holds, by lease path. */
const active = new Map<string, HeldLease>();

/** The lease's record as this process last wrote it, and the checks that it is still ours. */
interface LeaseProof {
  record: () => LeaseRecord;
  /** The lease file is still this holder's lease (same token, same process). */
  mine: (cur: LeaseRecord | null) => cur is LeaseRecord;
  /** Under the lease lock: still ours (else fenced); extend it when `always` or half of it is gone. */
  prove: (always: boolean) => Promise<void>;
}

function leaseProof(
  path: string,
  first: LeaseRecord,
  ttlMs: number,
  clock: Clock,
  fs: FsPort,
  controller: AbortController,
): LeaseProof {
  let record = first;
  const lose = (now: LeaseRecord | null): ArielError => {
    const err = fencedError(path, first.token, now);
    if (!controller.signal.aborted) controller.abort(err);
    return err;
  };
  const mine = (cur: LeaseRecord | null): cur is LeaseRecord =>
    cur !== null && cur.token === first.token && isSameHolder(cur, { owner: first.owner, ...selfIdentity() });
  const prove = async (always: boolean): Promise<void> => {
    const cur = await readLeaseFile(fs, path);
    if (!mine(cur)) throw lose(cur);
    if (!always && Date.parse(cur.expiresAt) - clock.now() > ttlMs / 2) return;
    record = { ...cur, expiresAt: new Date(clock.now() + ttlMs).toISOString() };
    await writeLease(fs, path, record);
  };
  return { record: () => record, mine, prove };
}

/**
 * The lease lock as one process's steps share it. While this process holds the lease lock for a
 * step: the steps running under it. A step started meanwhile, nested in one or beside it, joins
 * them instead of waiting for a lock its own process holds, and the lock is let go when the last
 * of them settles: it was proven when taken, and nobody can take the lease while it is held.
 * (This replaced an AsyncLocalStorage whose promise hooks every command that took a lease paid
 * for; decisions/0045.)
 */
function sharedLeaseLock(
  path: string,
  fs: FsPort,
  prove: (always: boolean) => Promise<void>,
): { renew: () => Promise<void>; fenced: <T>(fn: () => Promise<T>) => Promise<T> } {
  let hold: Hold | null = null;
  const join = async <T>(h: Hold, fn: () => Promise<T>): Promise<T> => {
    const step = h.ready.then(fn);
    h.steps.add(step);
    try {
      return await step;
    } finally {
      h.steps.delete(step);
    }
  };
  // The call that takes the lock returns once it is let go (after every step that joined it).
  const underLock = async <T>(fn: () => Promise<T>, always: boolean): Promise<T> => {
    let taken!: () => void;
    let failed!: (e: unknown) => void;
    const ready = new Promise<void>((resolve, reject) => {
      taken = resolve;
      failed = reject;
    });
    const h: Hold = { ready, steps: new Set() };
    hold = h;
    const first = join(h, fn);
    first.catch(() => {}); // awaited below, once the lock is let go
    await withLockFile(`${path}.lock`, { what: "lease lock", fs }, async () => {
      await prove(always);
      taken();
      while (h.steps.size > 0) await Promise.allSettled([...h.steps]);
      hold = null; // in the same tick as the last check: nothing joins a hold being let go
    }).catch((e: unknown) => {
      if (hold === h) hold = null;
      failed(e);
    });
    return first;
  };
  return {
    renew: () => (hold ? join(hold, () => prove(true)) : underLock(async () => {}, true)),
    fenced: (fn) => (hold ? join(hold, fn) : underLock(fn, false)),
  };
}

/** Renew every third of the TTL (at least every 50 ms); the timer does not keep the process alive. */
function renewTimer(renew: () => Promise<void>, ttlMs: number): ReturnType<typeof setInterval> {
  const timer = setInterval(
    () => {
      renew().catch(() => {
        // A lost lease aborts the signal; an I/O hiccup is retried at the next tick.
      });
    },
    Math.max(50, Math.floor(ttlMs / 3)),
  );
  timer.unref?.();
  return timer;
}

function makeHandle(
  path: string,
  first: LeaseRecord,
  ttlMs: number,
  options: LeaseOptions,
  clock: Clock,
  fs: FsPort,
): HeldLease {
  let released = false;
  const controller = new AbortController();
  const proof = leaseProof(path, first, ttlMs, clock, fs, controller);
  const usable = (): void => {
    if (controller.signal.aborted) throw controller.signal.reason;
    if (released) throw new RangeError("lease already released");
  };
  const lock = sharedLeaseLock(path, fs, proof.prove);
  const renew = async (): Promise<void> => {
    usable();
    await lock.renew();
  };
  const fenced = async <T>(fn: () => Promise<T>): Promise<T> => {
    usable();
    return lock.fenced(fn);
  };
  const timer = options.renew !== false ? renewTimer(renew, ttlMs) : undefined;

  return {
    taskId: first.taskId,
    owner: first.owner,
    token: first.token,
    path,
    signal: controller.signal,
    record: proof.record,
    assertHeld() {
      if (controller.signal.aborted) throw controller.signal.reason;
    },
    renew,
    fenced,
    async release() {
      if (released) return;
      released = true;
      if (timer) clearInterval(timer);
      if (active.get(path)?.token === first.token) active.delete(path);
      await withLockFile(`${path}.lock`, { what: "lease lock", fs }, async () => {
        const cur = await readLeaseFile(fs, path);
        if (!proof.mine(cur)) return;
        await writeLease(fs, path, releasedLease(cur, clock.now()));
      });
    },
  };
}

/** A task whose lease {@link withFreeLeaseLocks} holds by its lock: the lease is free. */
export interface FreeLease {
  taskId: string;
  /** The lease file (it may not exist). */
  path: string;
}

/**
 * Run `fn` holding the lease locks (`<lease>.lock`) of those of `taskIds` whose lease is free: no
 * lease file, or an expired or released lease, or one whose holder process is dead. While a lease
 * lock is held nobody can acquire, steal, renew or release that lease, nor prove it for a fenced
 * step, so no task record write (always fenced) can happen meanwhile: for a task nobody holds,
 * this is what holding its lease gives, with no lease file written (no fsync). `fn` may delete the
 * lease file: a holder whose lease had expired then finds its lease gone at its next step
 * (ERR_FENCED). Each lock is tried once and never waited for (a stale one is broken), so holding
 * several at once never deadlocks; a task whose lock is held, or whose lease is live, is passed to
 * `fn` in `busy` with the reason (ERR_LOCKED, ERR_LEASE_HELD). The locks are released when `fn`
 * settles.
 *
 * @example
 * ```ts
 * await withFreeLeaseLocks(root, ["t1", "t2"], {}, async (free, busy) => {
 *   for (const { taskId } of free) console.log(`${taskId}: nobody holds it`);
 * });
 * ```
 */
export async function withFreeLeaseLocks<T>(
  root: string,
  taskIds: readonly string[],
  options: { clock?: Clock; fs?: FsPort },
  fn: (free: FreeLease[], busy: { taskId: string; error: ArielError }[]) => Promise<T>,
): Promise<T> {
  const clock = options.clock ?? { now: () => Date.now() };
  const fs = options.fs ?? nodeFs;
  await ensureStateDir({ fs }, root);
  await fs.mkdirp(leasesDir(root));
  const locks: LockHandle[] = [];
  const free: FreeLease[] = [];
  const busy: { taskId: string; error: ArielError }[] = [];
  try {
    for (const taskId of taskIds) {
      const path = leasePath(root, taskId);
      let lock: LockHandle;
      try {
        lock = await acquireLockFile(`${path}.lock`, { what: "lease lock", timeoutMs: 0, fs });
      } catch (e) {
        if (!(e instanceof ArielError) || e.code !== "ERR_LOCKED") throw e;
        busy.push({ taskId, error: e });
        continue;
      }
      locks.push(lock);
      let current: LeaseRecord | null;
      try {
        current = await readLeaseFile(fs, path);
      } catch (e) {
        // A lease file that is not one (ERR_RECORD_CORRUPT, ERR_NOT_REGULAR_FILE) is never vouched for.
        if (!(e instanceof ArielError)) throw e;
        busy.push({ taskId, error: e });
        continue;
      }
      if (current !== null && !isExpired(current, clock.now()) && isProcessAlive(current)) {
        busy.push({ taskId, error: heldError(current) });
      } else free.push({ taskId, path });
    }
    return await fn(free, busy);
  } finally {
    for (const lock of locks) await lock.release().catch(() => {});
  }
}

/**
 * Run `fn` holding the task's lease: acquire (or ERR_LEASE_HELD, exit 75), renew while `fn`
 * runs, release afterwards, also when `fn` throws.
 */
export async function withLease<T>(
  root: string,
  taskId: string,
  options: LeaseOptions,
  fn: (lease: Lease) => Promise<T>,
): Promise<T> {
  const lease = await acquireLease(root, taskId, options);
  try {
    return await fn(lease);
  } finally {
    await lease.release().catch(() => {});
  }
}
