import { executionAsyncId } from "node:async_hooks";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import { ArielError } from "../errors.ts";
import { leaseSchema } from "../schema/lease.ts";
import { bundleWorker, removeWorker, runWorker } from "./_fixture.ts";
import {
  acquireLease,
  assertLeaseFree,
  leasePath,
  readLease,
  withFreeLeaseLocks,
  withLease,
} from "./lease-store.ts";
import { acquireLockFile } from "./lock-file.ts";
import { selfIdentity, sleep } from "./proc.ts";
import { readRecord, writeRecordCAS } from "./record-store.ts";

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-lease-")));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const taskPath = (task: string) => join(root, ".ariel", "tasks", `${task}.json`);

describe("acquire and release in one process", () => {
  it("writes a valid lease file, token 1, and releases by ending it (file and token kept)", async () => {
    const before = Date.now();
    const seen = await withLease(root, "t1", { owner: "alice", ttlMs: 5_000 }, async (lease) => {
      const onDisk = JSON.parse(readFileSync(leasePath(root, "t1"), "utf8"));
      expect(leaseSchema().parse(onDisk)).toEqual(onDisk);
      expect(onDisk).toMatchObject({
        v: 1,
        type: "lease",
        taskId: "t1",
        owner: "alice",
        token: 1,
        pid: process.pid,
        processStart: selfIdentity().processStart,
        host: selfIdentity().host,
      });
      expect(Date.parse(onDisk.expiresAt) - Date.parse(onDisk.acquiredAt)).toBe(5_000);
      expect(lease.path).toBe(join(root, ".ariel/leases/t1.json"));
      return lease.token;
    });
    expect(seen).toBe(1);
    const after = await readLease(root, "t1");
    expect(after?.token).toBe(1);
    expect(Date.parse(after?.expiresAt ?? "")).toBeGreaterThanOrEqual(before);
    expect(Date.parse(after?.expiresAt ?? "")).toBeLessThanOrEqual(Date.now());
  });

  it("hands out tokens 1, 2, 3 to successive holders", async () => {
    const tokens: number[] = [];
    for (const owner of ["a", "b", "a"]) {
      await withLease(root, "t1", { owner }, async (l) => {
        tokens.push(l.token);
      });
    }
    expect(tokens).toEqual([1, 2, 3]);
  });

  it("never reuses a token after the lease file is deleted: the task record is the floor", async () => {
    await withLease(root, "t1", { owner: "a" }, async (l) => {
      await writeRecordCAS(
        taskPath("t1"),
        { taskId: "t1" },
        { expectVersion: 0, token: l.token, leasePath: l.path },
      );
    });
    await withLease(root, "t1", { owner: "a" }, async (l) => {
      await writeRecordCAS(
        taskPath("t1"),
        { taskId: "t1" },
        { expectVersion: 1, token: l.token, leasePath: l.path },
      );
    });
    unlinkSync(leasePath(root, "t1"));
    const token = await withLease(root, "t1", { owner: "b" }, async (l) => l.token);
    expect(token).toBe(3);
    expect((await readRecord(taskPath("t1")))?.fencingToken).toBe(2);
  });

  // The assertions below sit outside the callbacks, on what the callbacks returned: a callback
  // that never ran must fail the test, not skip its checks.
  it("another owner in this process finds it held (ERR_LEASE_HELD, 75)", async () => {
    const e = await withLease(root, "t1", { owner: "alice" }, () =>
      arielErrorOf(acquireLease(root, "t1", { owner: "bob" })),
    );
    expect([e.code, e.exit, e.context.holder, e.context.taskId]).toEqual([
      "ERR_LEASE_HELD",
      75,
      "alice",
      "t1",
    ]);
  });

  it("is re-entrant for the same owner in one process; only the outer release ends it", async () => {
    const [outer, inner, held] = await withLease(root, "t1", { owner: "alice" }, async (o) => [
      o.token,
      await withLease(root, "t1", { owner: "alice" }, async (l) => l.token),
      (await arielErrorOf(acquireLease(root, "t1", { owner: "bob" }))).code,
    ]);
    expect([outer, inner, held]).toEqual([1, 1, "ERR_LEASE_HELD"]);
    expect((await acquireLease(root, "t1", { owner: "bob" })).token).toBe(2);
  });

  it("fenced steps, nested or side by side, share one take of the lease lock and install no promise hooks", async () => {
    // Promise hooks (an AsyncLocalStorage's) give every promise its own async id; without them a
    // continuation runs under the id of whatever resumed it.
    const hooked = async () => {
      const first = await Promise.resolve().then(executionAsyncId);
      const second = await Promise.resolve().then(executionAsyncId);
      return first !== second;
    };
    expect(await hooked()).toBe(false);
    const lock = `${leasePath(root, "t1")}.lock`;
    const order: string[] = [];
    await withLease(root, "t1", { owner: "alice", renew: false }, async (lease) => {
      let beside: Promise<void> | undefined;
      await lease.fenced(async () => {
        order.push("outer");
        await lease.fenced(async () => {
          order.push("nested");
        });
        beside = lease.fenced(async () => {
          await sleep(30);
          order.push(`beside, lock held: ${existsSync(lock)}`);
        });
        await lease.renew();
        order.push("outer done");
      });
      await beside;
      order.push(`after, lock held: ${existsSync(lock)}`);
      await lease.fenced(async () => order.push(`again, lock held: ${existsSync(lock)}`));
    });
    expect(order).toEqual([
      "outer",
      "nested",
      "outer done",
      "beside, lock held: true",
      "after, lock held: false",
      "again, lock held: true",
    ]);
    expect(await hooked()).toBe(false);
  });

  it("renews while the holder works past its TTL", async () => {
    const e = await withLease(root, "t1", { owner: "alice", ttlMs: 200 }, async () => {
      await sleep(700);
      return arielErrorOf(acquireLease(root, "t1", { owner: "bob" }));
    });
    expect([e.code, e.context.holder]).toEqual(["ERR_LEASE_HELD", "alice"]);
  });

  it("renews at the boundary floor == token (the record already carries the lease's token)", async () => {
    const [token, renewed] = await withLease(
      root,
      "t1",
      { owner: "a", renew: false, ttlMs: 1_000 },
      async (l) => {
        await writeRecordCAS(
          taskPath("t1"),
          { taskId: "t1" },
          { expectVersion: 0, token: l.token, leasePath: l.path },
        );
        const first = l.record().expiresAt;
        await sleep(20);
        await l.renew();
        return [l.token, Date.parse(l.record().expiresAt) > Date.parse(first)] as const;
      },
    );
    expect([token, renewed, (await readRecord(taskPath("t1")))?.fencingToken]).toEqual([1, true, 1]);
  });

  it("waits for a held lease with waitMs", async () => {
    const first = await acquireLease(root, "t1", { owner: "alice" });
    setTimeout(() => void first.release(), 150);
    const second = await acquireLease(root, "t1", { owner: "bob", waitMs: 5_000 });
    expect(second.token).toBe(2);
    await second.release();
  });

  it("rejects a task id that could escape the leases directory", async () => {
    const e = await arielErrorOf(acquireLease(root, "../x", { owner: "a" }));
    expect([e.code, e.exit]).toEqual(["ERR_INVALID_TASK_ID", 65]);
  });

  it("refuses a corrupt lease file (ERR_RECORD_CORRUPT, 65) and leaves it as it was", async () => {
    await withLease(root, "t1", { owner: "a" }, async () => {});
    writeFileSync(leasePath(root, "t1"), '{"v":1,"type":"lease","token":"two"}');
    const e = await arielErrorOf(acquireLease(root, "t1", { owner: "a" }));
    expect([e.code, e.exit]).toEqual(["ERR_RECORD_CORRUPT", 65]);
    expect(readFileSync(leasePath(root, "t1"), "utf8")).toBe('{"v":1,"type":"lease","token":"two"}');
  });
});

describe("across processes", () => {
  let worker: string;
  beforeAll(async () => {
    worker = await bundleWorker();
  });
  afterAll(() => removeWorker(worker));

  it("a live holder in another process → ERR_LEASE_HELD naming its pid", async () => {
    const w = runWorker(worker, "hold-lease", { root, task: "t1", holdMs: 3_000 });
    await w.line((o) => "leased" in o);
    const e = await arielErrorOf(acquireLease(root, "t1", { owner: "me" }));
    expect([e.code, e.context.holderPid]).toEqual(["ERR_LEASE_HELD", w.child.pid]);
    w.child.kill("SIGKILL");
    await w.done;
  });

  it("a holder killed with SIGKILL loses its lease at once (dead pid), token + 1", async () => {
    const w = runWorker(worker, "hold-lease", { root, task: "t1", holdMs: 60_000 });
    expect(await w.line((o) => "leased" in o)).toEqual({ leased: 1 });
    w.child.kill("SIGKILL");
    await w.done;
    const l = await acquireLease(root, "t1", { owner: "me" });
    expect(l.token).toBe(2);
    await l.release();
  });

  it("of several processes racing for one expired lease exactly one wins", async () => {
    const expired = await acquireLease(root, "t1", { owner: "old", renew: false, ttlMs: 100 });
    await sleep(150);
    expect(expired.token).toBe(1);
    const racers = Array.from({ length: 4 }, (_, i) =>
      runWorker(worker, "hold-lease", { root, task: "t1", owner: `r${i}`, holdMs: 1_500 }),
    );
    const done = await Promise.all(racers.map((r) => r.done));
    const winners = done.filter((d) => d.lines.some((o) => "leased" in o));
    expect(winners.map((d) => d.lines[0])).toEqual([{ leased: 2 }]);
    expect(done.map((d) => d.code).sort()).toEqual([0, 75, 75, 75]);
    expect(done.flatMap((d) => d.lines.filter((o) => "error" in o).map((o) => o.error))).toEqual([
      "ERR_LEASE_HELD",
      "ERR_LEASE_HELD",
      "ERR_LEASE_HELD",
    ]);
  });

  it.each([
    ["the successor already wrote the record", true],
    ["the successor only took the lease", false],
  ])("a writer frozen past its lease is fenced out (ERR_FENCED, 75): %s", async (_n, successorWrites) => {
    await writeRecordCAS(taskPath("t1"), { writer: "init" }, { expectVersion: 0, token: 0 });
    const w = runWorker(worker, "lease-freeze-write", {
      root,
      task: "t1",
      path: taskPath("t1"),
      ttlMs: 300,
      freezeMs: 2_500,
    });
    expect(await w.line((o) => "leased" in o)).toEqual({ leased: 1, version: 1 });
    await sleep(500);
    const next = await acquireLease(root, "t1", { owner: "successor" });
    expect(next.token).toBe(2);
    if (successorWrites) {
      await writeRecordCAS(
        taskPath("t1"),
        { writer: "successor" },
        { expectVersion: 1, token: next.token, leasePath: next.path },
      );
    }
    const d = await w.done;
    expect(d.code).toBe(75);
    expect(d.lines.at(-1)).toMatchObject({ error: "ERR_FENCED", exit: 75 });
    expect((await readRecord(taskPath("t1")))?.writer).toBe(successorWrites ? "successor" : "init");
    await next.release();
  });
});

const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid as number;
const me = () => selfIdentity();
/** A lease file of task `task` held by owner "other" in this process until a minute from now, with `fields` changed. */
const leaseFile = (task: string, fields: Record<string, unknown>) => {
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
    acquiredAt: new Date(Date.now() - 1_000).toISOString(),
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    ...fields,
  };
  writeFileSync(leasePath(root, task), `${JSON.stringify(lease)}\n`);
};

const deadLock = (task: string) => {
  mkdirSync(join(root, ".ariel/leases"), { recursive: true });
  const holder = { pid: deadPid(), processStart: null, host: me().host, nonce: "dead", acquiredAt: "" };
  writeFileSync(`${leasePath(root, task)}.lock`, JSON.stringify(holder));
};
/** Rows: how task "t"'s lease stands, and the code whoever takes it meets (null: it is free). */
const leaseStates = (): [string, () => Promise<unknown>, string | null][] => [
  ["no lease file", async () => {}, null],
  ["a released lease", () => withLease(root, "t", { owner: "alice" }, async () => {}), null],
  [
    "an expired lease of a live process",
    async () => leaseFile("t", { expiresAt: "2020-01-01T00:00:00.000Z" }),
    null,
  ],
  [
    "an unexpired lease of a dead process",
    async () => leaseFile("t", { pid: deadPid(), processStart: null }),
    null,
  ],
  ["an unexpired lease of a live process", async () => leaseFile("t", {}), "ERR_LEASE_HELD"],
  ["a lease file that is not a lease", async () => leaseFile("t", { token: "x" }), "ERR_RECORD_CORRUPT"],
];

describe("assertLeaseFree: what acquireLease would refuse, looked at only", () => {
  // Each row: how the task's lease is set up, and the code assertLeaseFree throws (null: none).
  it.each(leaseStates())("%s", async (_name, setUp, code) => {
    await setUp();
    const seen = await assertLeaseFree(root, "t", { owner: "alice" }).then(
      () => null,
      (e: ArielError) => e.code,
    );
    expect(seen).toBe(code);
    // The same answer acquireLease gives (which does take a free lease).
    const taken = await acquireLease(root, "t", { owner: "alice" }).then(
      async (l) => {
        await l.release();
        return null;
      },
      (e: ArielError) => e.code,
    );
    expect(taken).toBe(code);
  });

  it("writes nothing: no .ariel/ for a task never leased, a held lease file byte for byte as it was", async () => {
    await assertLeaseFree(root, "t", { owner: "alice" });
    expect(existsSync(join(root, ".ariel"))).toBe(false);
    leaseFile("t", {});
    const before = readFileSync(leasePath(root, "t"), "utf8");
    const e = await arielErrorOf(assertLeaseFree(root, "t", { owner: "alice" }));
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_LEASE_HELD",
      75,
      `task t is leased by other (pid ${process.pid} on ${me().host}) until ${JSON.parse(before).expiresAt}`,
    ]);
    expect(readFileSync(leasePath(root, "t"), "utf8")).toBe(before);
    expect(existsSync(`${leasePath(root, "t")}.lock`)).toBe(false);
  });

  it("a lease this process holds is free to the same owner (re-entrant), held for another", async () => {
    const seen = await withLease(root, "t", { owner: "alice" }, async () => [
      await assertLeaseFree(root, "t", { owner: "alice" }).then(() => null),
      (await arielErrorOf(assertLeaseFree(root, "t", { owner: "bob" }))).code,
    ]);
    expect(seen).toEqual([null, "ERR_LEASE_HELD"]);
  });
});

describe("withFreeLeaseLocks", () => {
  // Each row: how the task's lease is set up, and whether it comes out free or busy (with code).
  it.each([
    ...leaseStates(),
    ["a lease lock left by a dead process (broken)", async () => deadLock("t"), null],
  ])("%s", async (_name, setUp, busyCode) => {
    await setUp();
    const before = existsSync(leasePath(root, "t")) ? readFileSync(leasePath(root, "t"), "utf8") : null;
    const seen = await withFreeLeaseLocks(root, ["t"], {}, async (free, busy) => {
      expect(existsSync(`${leasePath(root, "t")}.lock`)).toBe(true);
      return { free: free.map((f) => f.taskId), busy: busy.map((b) => b.error.code) };
    });
    expect(seen).toEqual(busyCode === null ? { free: ["t"], busy: [] } : { free: [], busy: [busyCode] });
    expect(existsSync(`${leasePath(root, "t")}.lock`)).toBe(false);
    // Nothing written: the lease file is as it was.
    expect(existsSync(leasePath(root, "t")) ? readFileSync(leasePath(root, "t"), "utf8") : null).toBe(before);
  });

  it("a lease lock a live process holds: busy (ERR_LOCKED) at once, its lock left alone", async () => {
    mkdirSync(join(root, ".ariel/leases"), { recursive: true });
    const held = await acquireLockFile(`${leasePath(root, "t2")}.lock`);
    try {
      const seen = await withFreeLeaseLocks(root, ["t1", "t2"], {}, async (free, busy) => ({
        free: free.map((f) => f.taskId),
        busy: busy.map((b) => [b.taskId, b.error.code]),
      }));
      expect(seen).toEqual({ free: ["t1"], busy: [["t2", "ERR_LOCKED"]] });
      expect(existsSync(`${leasePath(root, "t2")}.lock`)).toBe(true);
    } finally {
      await held.release();
    }
  });

  it("nobody acquires a held free lease until fn settles; the locks go also when fn throws", async () => {
    let acquired = false;
    let racing: Promise<unknown> | undefined;
    const err = await arielErrorOf(
      withFreeLeaseLocks(root, ["t1"], {}, async () => {
        racing = acquireLease(root, "t1", { owner: "bob" }).then((l) => {
          acquired = true;
          return l.release();
        });
        await sleep(300);
        expect(acquired).toBe(false);
        throw new ArielError("ERR_CONFLICT", "boom");
      }),
    );
    expect(err.code).toBe("ERR_CONFLICT");
    await racing;
    expect(acquired).toBe(true);
    expect(existsSync(`${leasePath(root, "t1")}.lock`)).toBe(false);
  });
});
