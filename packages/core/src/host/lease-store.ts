import { promises as fsp } from "node:fs";
import { ArielError } from "../errors.ts";
import { decideLease, isSameHolder, releasedLease } from "../lease/decide.ts";
import { clampTtl } from "../lease/ttl.ts";
import type { Clock } from "../ports.ts";
import { type LeaseRecord, leaseSchema } from "../schema/lease.ts";
import { leasePath, leasesDir, taskRecordPath } from "../state_paths.ts";
import { ensureStateDir } from "../workspace.ts";
import { nodeFs, writeAtomic } from "./fs.ts";
import { withLockFile } from "./lock-file.ts";
import { isProcessAlive, selfIdentity, sleep } from "./proc.ts";
import { readRecord } from "./record-store.ts";

/**
 * Task leases on disk (docs/durability.md): `<root>/.ariel/leases/<task>.json`.
 *
 * Acquire, renew and release each run read → {@link decideLease} → write under the lease's own
 * lock file (`<lease>.lock`), so two processes taking the same expired lease cannot both win.
 * The lease file is never deleted (release only ends it), so its token survives; the task
 * record's `fencingToken` is a floor too, so a deleted lease file never brings a token back.
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
}

export interface HeldLease extends Lease {
  /** Stop renewing and end the lease (keeps the file and its token). Idempotent. */
  release(): Promise<void>;
}

export { leasePath };

/** The task's lease as stored, or null; ERR_RECORD_CORRUPT for a damaged or foreign file. */
export async function readLease(root: string, taskId: string): Promise<LeaseRecord | null> {
  return readLeaseFile(leasePath(root, taskId));
}

async function readLeaseFile(path: string): Promise<LeaseRecord | null> {
  let text: string;
  try {
    text = await fsp.readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
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

async function taskFloor(root: string, taskId: string): Promise<number> {
  try {
    const rec = await readRecord(taskRecordPath(root, taskId));
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
  const ttlMs = clampTtl(options.ttlMs);
  const me = { owner: options.owner, ...selfIdentity() };
  const floor = options.floorToken ?? (await taskFloor(root, taskId));
  await ensureStateDir({ fs: nodeFs }, root); // .ariel/ exists and is excluded from the root checkout
  await fsp.mkdir(leasesDir(root), { recursive: true });
  const deadline = clock.now() + (options.waitMs ?? 0);
  let delay = 20;
  let record: LeaseRecord;
  for (;;) {
    const decision = await withLockFile(`${path}.lock`, { what: "lease lock" }, async () => {
      const current = await readLeaseFile(path);
      const d = decideLease({
        taskId,
        claimant: me,
        current,
        floorToken: floor,
        now: clock.now(),
        ttlMs,
        holderAlive: current ? isProcessAlive(current) : true,
      });
      if (d.action !== "held") await writeAtomic(path, `${JSON.stringify(d.lease)}\n`);
      return d;
    });
    if (decision.action !== "held") {
      record = decision.lease;
      break;
    }
    if (clock.now() >= deadline) throw heldError(decision.holder);
    await sleep(Math.min(delay, Math.max(1, deadline - clock.now())));
    delay = Math.min(delay * 2, 500);
  }
  const handle = makeHandle(path, record, ttlMs, options, clock);
  active.set(path, handle);
  return handle;
}

/** Leases this process holds, by lease path. */
const active = new Map<string, HeldLease>();

function makeHandle(
  path: string,
  first: LeaseRecord,
  ttlMs: number,
  options: LeaseOptions,
  clock: Clock,
): HeldLease {
  let record = first;
  let released = false;
  const controller = new AbortController();
  const lose = (now: LeaseRecord | null): ArielError => {
    const err = fencedError(path, first.token, now);
    if (!controller.signal.aborted) controller.abort(err);
    return err;
  };
  const mine = (cur: LeaseRecord | null): cur is LeaseRecord =>
    cur !== null && cur.token === first.token && isSameHolder(cur, { owner: first.owner, ...selfIdentity() });

  const renew = async (): Promise<void> => {
    if (controller.signal.aborted) throw controller.signal.reason;
    if (released) throw new RangeError("lease already released");
    await withLockFile(`${path}.lock`, { what: "lease lock" }, async () => {
      const cur = await readLeaseFile(path);
      if (!mine(cur)) throw lose(cur);
      record = { ...cur, expiresAt: new Date(clock.now() + ttlMs).toISOString() };
      await writeAtomic(path, `${JSON.stringify(record)}\n`);
    });
  };

  let timer: ReturnType<typeof setInterval> | undefined;
  if (options.renew !== false) {
    timer = setInterval(
      () => {
        renew().catch(() => {
          // A lost lease aborts the signal; an I/O hiccup is retried at the next tick.
        });
      },
      Math.max(50, Math.floor(ttlMs / 3)),
    );
    timer.unref?.();
  }

  return {
    taskId: first.taskId,
    owner: first.owner,
    token: first.token,
    path,
    signal: controller.signal,
    record: () => record,
    assertHeld() {
      if (controller.signal.aborted) throw controller.signal.reason;
    },
    renew,
    async release() {
      if (released) return;
      released = true;
      if (timer) clearInterval(timer);
      if (active.get(path)?.token === first.token) active.delete(path);
      await withLockFile(`${path}.lock`, { what: "lease lock" }, async () => {
        const cur = await readLeaseFile(path);
        if (!mine(cur)) return;
        await writeAtomic(path, `${JSON.stringify(releasedLease(cur, clock.now()))}\n`);
      });
    },
  };
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
