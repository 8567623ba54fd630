/**
 * More lease-store tests, beside lease-store_test.ts: the exact errors for each refusal (a lease
 * file that is not one, a lost lease, a lease lock nobody lets go), the records written by fenced
 * steps, renewals and releases on a pinned clock, the wait loop's backoff, and what a released or
 * lost lease's handle still does.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import type { FsPort } from "../ports.ts";
import { nodeFs } from "./fs.ts";
import { acquireLease, assertLeaseFree, leasePath, readLease, withFreeLeaseLocks } from "./lease-store.ts";
import { acquireLockFile } from "./lock-file.ts";
import { selfIdentity } from "./proc.ts";
import { writeRecordCAS } from "./record-store.ts";

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-lease-more-")));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const me = () => selfIdentity();
const taskPath = (r: string, task: string) => join(r, ".ariel", "tasks", `${task}.json`);
const iso = (ms: number) => new Date(ms).toISOString();
const text = (path: string) => readFileSync(path, "utf8");

/** A clock that stands still until the test moves `t`. */
const pinnedClock = (t = Date.now()) => {
  const c = { t, now: () => c.t };
  return c;
};

/** Write task `task`'s lease file by hand: owner "other" of this process, token 3, a minute left. */
const leaseFile = (task: string, fields: Record<string, unknown> = {}) => {
  mkdirSync(join(root, ".ariel/leases"), { recursive: true });
  const lease = {
    v: 1,
    type: "lease",
    taskId: task,
    owner: "other",
    token: 3,
    pid: process.pid,
    processStart: me().processStart,
    host: me().host,
    acquiredAt: iso(Date.now() - 1_000),
    expiresAt: iso(Date.now() + 60_000),
    ...fields,
  };
  writeFileSync(leasePath(root, task), `${JSON.stringify(lease)}\n`);
  return lease;
};

interface FsCalls {
  reads: string[];
  writes: string[];
  creates: string[];
}

/** The real filesystem, recording the paths read, written and created; `read` may answer instead. */
const recordingFs = (read?: FsPort["readFileNoFollow"]): { fs: FsPort; calls: FsCalls } => {
  const calls: FsCalls = { reads: [], writes: [], creates: [] };
  const fs: FsPort = {
    ...nodeFs,
    readFileNoFollow: (p, max) => {
      calls.reads.push(p);
      return (read ?? nodeFs.readFileNoFollow)(p, max);
    },
    writeAtomic: (p, d, m) => {
      calls.writes.push(p);
      return nodeFs.writeAtomic(p, d, m);
    },
    createExclusive: (p, d) => {
      calls.creates.push(p);
      return nodeFs.createExclusive(p, d);
    },
  };
  return { fs, calls };
};

/** Run `fn` with Date.now leaping 11 s at each call: a lock wait (10 s without progress) gives up at once. */
async function lockWaitsExpire<T>(fn: () => Promise<T>): Promise<T> {
  const real = Date.now.bind(Date);
  let skew = 0;
  const spy = vi.spyOn(Date, "now").mockImplementation(() => {
    skew += 11_000;
    return real() + skew;
  });
  try {
    return await fn();
  } finally {
    spy.mockRestore();
  }
}

/** The lease lock of `task` taken by a holder outside lease-store (this live process, not queued). */
const foreignLock = async (task: string) => {
  mkdirSync(join(root, ".ariel/leases"), { recursive: true });
  return acquireLockFile(`${leasePath(root, task)}.lock`);
};

const lockedMessage = (task: string) =>
  `lease lock ${leasePath(root, task)}.lock is held by pid ${process.pid} on ${me().host}`;

describe("readLease: a lease file that is not one", () => {
  it.each([
    ["not JSON", "{not json", "not valid JSON"],
    ["JSON but no object", "[]", "not a lease record ((root): Invalid input)"],
    [
      "a field of the wrong type",
      '{"v":1,"type":"lease","token":"two"}',
      "not a lease record (taskId: Invalid input)",
    ],
  ])("%s: ERR_RECORD_CORRUPT (65) naming the file and what is wrong", async (_n, content, says) => {
    leaseFile("t");
    writeFileSync(leasePath(root, "t"), content);
    const e = await arielErrorOf(readLease(root, "t"));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_RECORD_CORRUPT",
      65,
      `${leasePath(root, "t")}: ${says}`,
      { path: leasePath(root, "t") },
    ]);
  });

  it("larger than 16 KiB: ERR_RECORD_CORRUPT with its size, not a too-large record", async () => {
    leaseFile("t");
    writeFileSync(leasePath(root, "t"), "x".repeat(16 * 1024 + 1));
    const e = await arielErrorOf(readLease(root, "t"));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_RECORD_CORRUPT",
      65,
      `${leasePath(root, "t")}: not a lease record (16385 bytes)`,
      { path: leasePath(root, "t") },
    ]);
    // Exactly 16 KiB is still read.
    const json = JSON.stringify(leaseFile("u"));
    writeFileSync(leasePath(root, "t"), " ".repeat(16 * 1024 - json.length) + json);
    expect((await readLease(root, "t"))?.taskId).toBe("u");
  });

  it("a symbolic link to a valid lease: ERR_NOT_REGULAR_FILE (77) calling it a lease", async () => {
    leaseFile("u");
    symlinkSync(leasePath(root, "u"), leasePath(root, "t"));
    const e = await arielErrorOf(readLease(root, "t"));
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_NOT_REGULAR_FILE",
      77,
      `lease ${leasePath(root, "t")} is a symbolic link; refusing to read or replace it`,
    ]);
  });
});

describe("acquireLease: tokens and the task record's floor", () => {
  it("reads the task record through the given fs: its fencingToken is the floor", async () => {
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), "ariel-lease-rec-")));
    try {
      mkdirSync(join(elsewhere, ".ariel/tasks"), { recursive: true });
      await writeRecordCAS(taskPath(elsewhere, "t"), { taskId: "t" }, { expectVersion: 0, token: 7 });
      const { fs } = recordingFs((p, max) =>
        nodeFs.readFileNoFollow(p === taskPath(root, "t") ? taskPath(elsewhere, "t") : p, max),
      );
      const l = await acquireLease(root, "t", { owner: "a", renew: false, fs });
      await l.release();
      expect([l.token, (await readLease(root, "t"))?.token]).toEqual([8, 8]);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("a task record that cannot be read sets no floor: token 1", async () => {
    mkdirSync(join(root, ".ariel/tasks"), { recursive: true });
    writeFileSync(taskPath(root, "t"), "{broken");
    const l = await acquireLease(root, "t", { owner: "a", renew: false });
    await l.release();
    expect([l.token, (await readLease(root, "t"))?.token]).toEqual([1, 1]);
  });

  it("an explicit floorToken wins over the task record", async () => {
    const l = await acquireLease(root, "t", { owner: "a", renew: false, floorToken: 41 });
    await l.release();
    expect(l.token).toBe(42);
  });
});

describe("acquireLease: a held lease", () => {
  it("taken between the first look and the look under the lock: ERR_LEASE_HELD, the file untouched", async () => {
    const held = leaseFile("t");
    const before = text(leasePath(root, "t"));
    let first = true;
    const { fs } = recordingFs((p, max) => {
      if (p === leasePath(root, "t") && first) {
        first = false;
        return Promise.resolve(null);
      }
      return nodeFs.readFileNoFollow(p, max);
    });
    const e = await arielErrorOf(acquireLease(root, "t", { owner: "bob", fs }));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_LEASE_HELD",
      75,
      `task t is leased by other (pid ${process.pid} on ${me().host}) until ${held.expiresAt}`,
      {
        taskId: "t",
        holder: "other",
        holderPid: process.pid,
        holderHost: me().host,
        expiresAt: held.expiresAt,
      },
    ]);
    expect(text(leasePath(root, "t"))).toBe(before);
  });

  it("a live holder is reported at once, without waiting for its lease lock", async () => {
    leaseFile("t");
    const lock = await foreignLock("t");
    try {
      const e = await lockWaitsExpire(() => arielErrorOf(acquireLease(root, "t", { owner: "bob" })));
      expect([e.code, e.context.holder]).toEqual(["ERR_LEASE_HELD", "other"]);
    } finally {
      await lock.release();
    }
  });

  it("waitMs 0 looks once and never waits", async () => {
    leaseFile("t");
    let calls = 0;
    const start = Date.now();
    const clock = { now: () => start + (++calls > 3 ? 1_000 : 0) };
    const { fs, calls: seen } = recordingFs();
    const e = await arielErrorOf(acquireLease(root, "t", { owner: "bob", clock, fs }));
    expect(e.code).toBe("ERR_LEASE_HELD");
    expect(seen.reads.filter((p) => p === leasePath(root, "t"))).toHaveLength(1);
    expect(seen.writes).toEqual([]);
  });

  it("waits with a doubling pause (20 ms .. 500 ms), never past the deadline", async () => {
    leaseFile("t");
    const delays: number[] = [];
    const real = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number) => {
      if (new Error().stack?.includes("proc.ts")) delays.push(ms ?? 0);
      return real(fn, ms);
    }) as typeof setTimeout);
    // The clock stands at 0 for six pauses, then 7 ms short of the deadline, then at it.
    const clock = { now: () => (delays.length < 6 ? 0 : delays.length < 7 ? 993 : 1_000) };
    try {
      const e = await arielErrorOf(acquireLease(root, "t", { owner: "bob", clock, waitMs: 1_000 }));
      expect(e.code).toBe("ERR_LEASE_HELD");
    } finally {
      spy.mockRestore();
    }
    expect(delays).toEqual([20, 40, 80, 160, 320, 500, 7]);
  });

  it("a lease lock nobody lets go: ERR_LOCKED naming the lease lock, no lease written", async () => {
    const lock = await foreignLock("t");
    try {
      const e = await lockWaitsExpire(() =>
        arielErrorOf(acquireLease(root, "t", { owner: "bob", clock: pinnedClock() })),
      );
      expect([e.code, e.exit, e.message]).toEqual(["ERR_LOCKED", 75, lockedMessage("t")]);
      expect(await readLease(root, "t")).toBeNull();
    } finally {
      await lock.release();
    }
  });
});

describe("assertLeaseFree", () => {
  it("a lease this process holds for the owner is free to it whatever the floor", async () => {
    const l = await acquireLease(root, "t", { owner: "alice", renew: false });
    try {
      await expect(assertLeaseFree(root, "t", { owner: "alice", floorToken: 5 })).resolves.toBeUndefined();
      const inner = await acquireLease(root, "t", { owner: "alice", floorToken: 5 });
      expect(inner.token).toBe(1);
    } finally {
      await l.release();
    }
  });

  it("this process's lease on disk, not held by a handle: free to its owner unless the floor is above it", async () => {
    leaseFile("t", { owner: "alice" });
    await expect(assertLeaseFree(root, "t", { owner: "alice" })).resolves.toBeUndefined();
    await expect(assertLeaseFree(root, "t", { owner: "alice", floorToken: 3 })).resolves.toBeUndefined();
    const e = await arielErrorOf(assertLeaseFree(root, "t", { owner: "alice", floorToken: 4 }));
    expect([e.code, e.context.holder]).toEqual(["ERR_LEASE_HELD", "alice"]);
  });

  it("with no lease file it looks at nothing else", async () => {
    const { fs, calls } = recordingFs();
    await assertLeaseFree(root, "t", { owner: "alice", fs });
    expect(calls).toEqual({ reads: [leasePath(root, "t")], writes: [], creates: [] });
  });
});

describe("fenced steps and renewals on a pinned clock (TTL 10 s)", () => {
  const take = async (clock: { now: () => number }) =>
    acquireLease(root, "t", { owner: "alice", renew: false, ttlMs: 10_000, clock });

  it("a fenced step extends the lease only once half of it is gone; renew always does", async () => {
    const clock = pinnedClock();
    const t0 = clock.t;
    const l = await take(clock);
    const first = l.record();
    expect(first).toEqual({
      v: 1,
      type: "lease",
      taskId: "t",
      owner: "alice",
      token: 1,
      pid: process.pid,
      processStart: me().processStart,
      host: me().host,
      acquiredAt: iso(t0),
      expiresAt: iso(t0 + 10_000),
    });
    const seen: string[] = [];
    const step = async (at: number, how: () => Promise<unknown>) => {
      clock.t = t0 + at;
      await how();
      const disk = await readLease(root, "t");
      expect(disk).toEqual(l.record());
      seen.push(`${at}: ${Date.parse(disk?.expiresAt ?? "") - t0}`);
    };
    await step(1_000, () => l.fenced(async () => {}));
    await step(5_000, () => l.fenced(async () => {}));
    await step(6_000, () => l.renew());
    await step(7_000, () => l.fenced(() => l.renew()));
    await step(8_000, () => l.fenced(async () => {}));
    expect(seen).toEqual(["1000: 10000", "5000: 15000", "6000: 16000", "7000: 17000", "8000: 17000"]);
    expect(l.record()).toEqual({ ...first, expiresAt: iso(t0 + 17_000) });
    clock.t = t0 + 9_000;
    await l.release();
    expect(await readLease(root, "t")).toEqual({ ...first, expiresAt: iso(t0 + 9_000) });
  });

  it("a fenced step that fails to prove the lease (a damaged file) leaves the lock free for the next", async () => {
    const l = await take(pinnedClock());
    const good = text(leasePath(root, "t"));
    writeFileSync(leasePath(root, "t"), "{broken");
    let ran = 0;
    const e = await arielErrorOf(l.fenced(async () => ran++));
    expect([e.code, ran, l.signal.aborted]).toEqual(["ERR_RECORD_CORRUPT", 0, false]);
    writeFileSync(leasePath(root, "t"), good);
    expect(await l.fenced(async () => ++ran)).toBe(1);
    await l.release();
  });

  it("a lease lock nobody lets go: the step fails with ERR_LOCKED, and the next one runs", async () => {
    const l = await take(pinnedClock());
    const lock = await foreignLock("t");
    let ran = 0;
    try {
      const e = await lockWaitsExpire(() => arielErrorOf(l.fenced(async () => ran++)));
      const r = await lockWaitsExpire(() => arielErrorOf(l.renew()));
      expect([e.code, e.message, r.message, ran]).toEqual([
        "ERR_LOCKED",
        lockedMessage("t"),
        lockedMessage("t"),
        0,
      ]);
    } finally {
      await lock.release();
    }
    expect(await l.fenced(async () => ++ran)).toBe(1);
    await l.release();
  });
});

describe("a lost lease", () => {
  /** Alice's lease (TTL 100 ms, pinned clock) run out and taken by bob (token 2) in this process. */
  const lostToBob = async () => {
    const clock = pinnedClock();
    const alice = await acquireLease(root, "t", { owner: "alice", renew: false, ttlMs: 100, clock });
    clock.t += 200;
    const bob = await acquireLease(root, "t", { owner: "bob", renew: false, ttlMs: 10_000, clock });
    return { alice, bob, clock };
  };

  it("its steps are fenced (ERR_FENCED, 75), the signal aborts with that error, later calls throw it at once", async () => {
    const { alice, bob } = await lostToBob();
    expect(() => alice.assertHeld()).not.toThrow();
    let ran = 0;
    const e = await arielErrorOf(alice.fenced(async () => ran++));
    const path = leasePath(root, "t");
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_FENCED",
      75,
      `lost the lease ${path} (ours was token 1, now token 2 of bob)`,
      { path, token: 1, leaseToken: 2 },
    ]);
    expect([ran, alice.signal.aborted, alice.signal.reason]).toEqual([0, true, e]);
    expect(alice.signal.reason).toBe(e);
    expect(() => alice.assertHeld()).toThrow(e);
    expect(await alice.fenced(async () => ran++).catch((x: unknown) => x)).toBe(e);
    expect(await alice.renew().catch((x: unknown) => x)).toBe(e);
    expect(ran).toBe(0);
    await bob.release();
    await alice.release();
  });

  it("its release leaves the new holder's lease as it is, and the new holder's re-entrancy", async () => {
    const { alice, bob } = await lostToBob();
    const before = text(leasePath(root, "t"));
    await alice.release();
    expect(text(leasePath(root, "t"))).toBe(before);
    // Bob's handle is still the one this process holds: an inner take shares it and ends nothing.
    const inner = await acquireLease(root, "t", { owner: "bob", renew: false });
    await inner.release();
    expect(text(leasePath(root, "t"))).toBe(before);
    expect((await arielErrorOf(assertLeaseFree(root, "t", { owner: "carol" }))).context.holder).toBe("bob");
    await bob.release();
  });

  it("its release after the new holder's is a quiet no-op", async () => {
    const { alice, bob } = await lostToBob();
    await bob.release();
    const before = text(leasePath(root, "t"));
    await expect(alice.release()).resolves.toBeUndefined();
    expect(text(leasePath(root, "t"))).toBe(before);
  });

  it("a deleted lease file fences without naming a successor", async () => {
    const l = await acquireLease(root, "t", { owner: "alice", renew: false });
    unlinkSync(leasePath(root, "t"));
    const e = await arielErrorOf(l.fenced(async () => {}));
    const path = leasePath(root, "t");
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_FENCED",
      `lost the lease ${path} (ours was token 1)`,
      { path, token: 1 },
    ]);
    await l.release();
  });

  it("the same owner and process under a newer token is not this lease", async () => {
    const l = await acquireLease(root, "t", { owner: "alice", renew: false });
    leaseFile("t", { owner: "alice", token: 2 });
    const e = await arielErrorOf(l.renew());
    expect([e.code, e.message]).toEqual([
      "ERR_FENCED",
      `lost the lease ${leasePath(root, "t")} (ours was token 1, now token 2 of alice)`,
    ]);
    // A fenced handle no longer counts as held: assertLeaseFree looks at the file again.
    leaseFile("t", { owner: "bob", token: 2 });
    expect((await arielErrorOf(assertLeaseFree(root, "t", { owner: "alice" }))).context.holder).toBe("bob");
    await l.release();
  });
});

describe("release", () => {
  it("ends the lease once, under the lease lock through the given fs; a second release does nothing", async () => {
    const clock = pinnedClock();
    const { fs, calls } = recordingFs();
    const l = await acquireLease(root, "t", { owner: "alice", renew: false, clock, fs });
    const taken = l.record();
    calls.writes.length = 0;
    calls.creates.length = 0;
    clock.t += 2_000;
    await l.release();
    expect([calls.creates, calls.writes]).toEqual([[`${leasePath(root, "t")}.lock`], [leasePath(root, "t")]]);
    expect(await readLease(root, "t")).toEqual({ ...taken, expiresAt: iso(clock.t) });
    clock.t -= 1_000;
    await l.release();
    expect([calls.creates, calls.writes]).toEqual([[`${leasePath(root, "t")}.lock`], [leasePath(root, "t")]]);
    expect(await readLease(root, "t")).toEqual({ ...taken, expiresAt: iso(clock.t + 1_000) });
  });

  it("a released handle refuses steps and renewals (RangeError) and never brings the lease back", async () => {
    const l = await acquireLease(root, "t", { owner: "alice", renew: false });
    await l.release();
    const after = text(leasePath(root, "t"));
    let ran = 0;
    await expect(l.fenced(async () => ran++)).rejects.toThrow(new RangeError("lease already released"));
    await expect(l.renew()).rejects.toThrow(new RangeError("lease already released"));
    expect(ran).toBe(0);
    expect(text(leasePath(root, "t"))).toBe(after);
  });

  it("a lease lock nobody lets go: ERR_LOCKED naming the lease lock, the lease left live", async () => {
    const l = await acquireLease(root, "t", { owner: "alice", renew: false, clock: pinnedClock() });
    const before = text(leasePath(root, "t"));
    const lock = await foreignLock("t");
    try {
      const e = await lockWaitsExpire(() => arielErrorOf(l.release()));
      expect([e.code, e.message]).toEqual(["ERR_LOCKED", lockedMessage("t")]);
    } finally {
      await lock.release();
    }
    expect(text(leasePath(root, "t"))).toBe(before);
  });

  it("the renewal timer ticks every third of the TTL, at least every 50 ms, and stops at release", async () => {
    const set = vi.spyOn(globalThis, "setInterval");
    const clear = vi.spyOn(globalThis, "clearInterval");
    try {
      const a = await acquireLease(root, "a", { owner: "x", ttlMs: 3_000 });
      const b = await acquireLease(root, "b", { owner: "x", ttlMs: 100 });
      const c = await acquireLease(root, "c", { owner: "x", ttlMs: 3_000, renew: false });
      expect(set.mock.calls.map((call) => call[1])).toEqual([1_000, 50]);
      const timers = set.mock.results.map((r) => r.value);
      await a.release();
      await b.release();
      await c.release();
      expect(clear.mock.calls.map((call) => call[0])).toEqual(timers);
    } finally {
      set.mockRestore();
      clear.mockRestore();
    }
  });
});

describe("withFreeLeaseLocks: refusals", () => {
  it("a lease lock held: busy with ERR_LOCKED naming the lease lock and its holder, at once", async () => {
    const lock = await foreignLock("t");
    try {
      const busy = await lockWaitsExpire(() => withFreeLeaseLocks(root, ["t"], {}, async (_f, b) => b));
      expect(busy.map((b) => [b.taskId, b.error.code, b.error.message, b.error.context])).toEqual([
        [
          "t",
          "ERR_LOCKED",
          lockedMessage("t"),
          { lock: `${leasePath(root, "t")}.lock`, holderPid: process.pid, holderHost: me().host },
        ],
      ]);
    } finally {
      await lock.release();
    }
  });

  it("a lease lock path that is a directory: ERR_NOT_REGULAR_FILE thrown, fn not run, other locks let go", async () => {
    mkdirSync(`${leasePath(root, "t2")}.lock`, { recursive: true });
    let ran = false;
    const e = await arielErrorOf(
      withFreeLeaseLocks(root, ["t1", "t2"], {}, async () => {
        ran = true;
      }),
    );
    expect([e.code, e.exit, ran]).toEqual(["ERR_NOT_REGULAR_FILE", 77, false]);
    expect(readLockLeft("t1")).toBe(false);
  });

  it("a lease file that cannot be read for another reason: that error thrown, fn not run, its lock let go", async () => {
    const denied = Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
    const { fs } = recordingFs((p, max) =>
      p === leasePath(root, "t") ? Promise.reject(denied) : nodeFs.readFileNoFollow(p, max),
    );
    let ran = false;
    const seen = await withFreeLeaseLocks(root, ["t"], { fs }, async () => {
      ran = true;
    }).catch((x: unknown) => x);
    expect([seen, ran, readLockLeft("t")]).toEqual([denied, false, false]);
  });
});

const readLockLeft = (task: string): boolean => {
  try {
    readFileSync(`${leasePath(root, task)}.lock`);
    return true;
  } catch {
    return false;
  }
};
