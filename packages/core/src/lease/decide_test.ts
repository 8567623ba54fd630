import { describe, expect, it } from "vitest";
import type { LeaseRecord } from "../schema/lease.ts";
import { type Claimant, decideLease, isExpired, isSameHolder, releasedLease } from "./decide.ts";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

const me: Claimant = { owner: "alice", pid: 100, processStart: "555", host: "box" };
const other: Claimant = { owner: "bob", pid: 200, processStart: "777", host: "box" };

function lease(c: Claimant, token: number, acquiredAt: number, expiresAt: number): LeaseRecord {
  return {
    v: 1,
    type: "lease",
    taskId: "t1",
    owner: c.owner,
    token,
    pid: c.pid,
    processStart: c.processStart,
    host: c.host,
    acquiredAt: iso(acquiredAt),
    expiresAt: iso(expiresAt),
  };
}

describe("decideLease", () => {
  it.each([
    // name, current, floor, holderAlive, now, expected action, expected token
    ["free: no lease", null, 0, undefined, T0, "acquire", 1],
    ["free: floor from the task record", null, 7, undefined, T0, "acquire", 8],
    ["expired other", lease(other, 4, T0 - 60_000, T0 - 1), 0, true, T0, "steal", 5],
    ["expires exactly now", lease(other, 4, T0 - 30_000, T0), 0, true, T0, "steal", 5],
    ["expired, floor higher", lease(other, 4, T0 - 60_000, T0 - 1), 9, true, T0, "steal", 10],
    ["live other", lease(other, 4, T0, T0 + 30_000), 0, true, T0 + 1, "held", 4],
    ["live other, dead holder", lease(other, 4, T0, T0 + 30_000), 0, false, T0 + 1, "steal", 5],
    ["live self", lease(me, 3, T0, T0 + 30_000), 0, true, T0 + 10_000, "renew", 3],
    ["expired self", lease(me, 3, T0 - 60_000, T0 - 1), 0, true, T0, "steal", 4],
    // The normal state once a record is written: the record's fencingToken (the floor) is ours.
    ["live self, floor equals its token", lease(me, 3, T0, T0 + 30_000), 3, true, T0 + 1, "renew", 3],
    ["live self but floor moved past it", lease(me, 3, T0, T0 + 30_000), 5, true, T0 + 1, "held", 3],
    // Once a record is written its fencingToken equals the lease's token: the normal renewal.
    ["live self, floor equal to its token", lease(me, 3, T0, T0 + 30_000), 3, true, T0 + 1, "renew", 3],
    ["live self, floor one past its token", lease(me, 3, T0, T0 + 30_000), 4, true, T0 + 1, "held", 3],
    ["live self, dead holder (pid reused)", lease(me, 3, T0, T0 + 30_000), 0, false, T0 + 1, "steal", 4],
    ["live self, one ms before expiry", lease(me, 3, T0, T0 + 30_000), 0, true, T0 + 29_999, "renew", 3],
    ["live other, one ms before expiry", lease(other, 4, T0, T0 + 30_000), 0, true, T0 + 29_999, "held", 4],
    ["expired, lease token above the floor", lease(other, 9, T0 - 60_000, T0 - 1), 2, true, T0, "steal", 10],
    [
      "same pid, other owner",
      lease({ ...me, owner: "carol" }, 3, T0, T0 + 30_000),
      0,
      true,
      T0 + 1,
      "held",
      3,
    ],
    [
      "same pid, other host",
      lease({ ...me, host: "other-box" }, 3, T0, T0 + 30_000),
      0,
      true,
      T0 + 1,
      "held",
      3,
    ],
    ["same owner, other process", lease({ ...me, pid: 101 }, 3, T0, T0 + 30_000), 0, true, T0 + 1, "held", 3],
    [
      "same pid, other start time (reused pid)",
      lease({ ...me, processStart: "1" }, 3, T0, T0 + 30_000),
      0,
      true,
      T0 + 1,
      "held",
      3,
    ],
  ] as const)("%s", (_name, current, floor, holderAlive, now, action, token) => {
    const d = decideLease({
      taskId: "t1",
      claimant: me,
      current: current as LeaseRecord | null,
      floorToken: floor,
      now,
      ...(holderAlive === undefined ? {} : { holderAlive }),
    });
    expect(d.action).toBe(action);
    if (d.action === "held") expect(d.holder.token).toBe(token);
    else {
      expect(d.lease.token).toBe(token);
      expect(d.lease).toMatchObject({ v: 1, type: "lease", taskId: "t1", owner: "alice", pid: 100 });
    }
  });

  it("writes the claimant's identity and expiry now + 30 s by default", () => {
    const d = decideLease({ taskId: "t1", claimant: me, current: null, floorToken: 0, now: T0 });
    expect(d).toEqual({
      action: "acquire",
      lease: {
        v: 1,
        type: "lease",
        taskId: "t1",
        owner: "alice",
        token: 1,
        pid: 100,
        processStart: "555",
        host: "box",
        acquiredAt: "2026-01-01T00:00:00.000Z",
        expiresAt: "2026-01-01T00:00:30.000Z",
      },
    });
  });

  it("renew keeps the token and acquiredAt and moves the expiry", () => {
    const d = decideLease({
      taskId: "t1",
      claimant: me,
      current: lease(me, 3, T0, T0 + 30_000),
      floorToken: 0,
      now: T0 + 20_000,
      ttlMs: 10_000,
    });
    expect(d.action === "renew" && [d.lease.token, d.lease.acquiredAt, d.lease.expiresAt]).toEqual([
      3,
      iso(T0),
      iso(T0 + 30_000),
    ]);
  });

  it.each([
    ["over the hard max", 900_000, T0 + 300_000],
    ["under the minimum", 1, T0 + 100],
    ["in range", 5_000, T0 + 5_000],
  ])("clamps the TTL: %s", (_n, ttlMs, expires) => {
    const d = decideLease({ taskId: "t1", claimant: me, current: null, floorToken: 0, now: T0, ttlMs });
    expect(d.action !== "held" && d.lease.expiresAt).toBe(iso(expires));
  });

  it("tokens grow by one through a chain of steals and releases, never reused", () => {
    let current: LeaseRecord | null = null;
    const seen: number[] = [];
    let now = T0;
    for (let i = 0; i < 6; i++) {
      const claimant = i % 2 === 0 ? me : other;
      const d = decideLease({ taskId: "t1", claimant, current, floorToken: 0, now });
      if (d.action === "held") throw new Error("unexpected held");
      seen.push(d.lease.token);
      current = i % 3 === 0 ? releasedLease(d.lease, now + 1) : d.lease;
      now += 31_000;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe("releasedLease", () => {
  it("ends the lease now and keeps the token", () => {
    const l = releasedLease(lease(me, 3, T0, T0 + 30_000), T0 + 5);
    expect([l.token, l.expiresAt, isExpired(l, T0 + 5), isExpired(l, T0 + 4)]).toEqual([
      3,
      iso(T0 + 5),
      true,
      false,
    ]);
  });
});

describe("isSameHolder / isExpired", () => {
  it.each<[string, Partial<Claimant>, boolean]>([
    ["the same process", {}, true],
    ["another owner", { owner: "x" }, false],
    ["another host", { host: "x" }, false],
    ["another pid", { pid: 1 }, false],
    ["another start time", { processStart: "1" }, false],
    ["an unknown start time", { processStart: null }, false],
  ])("isSameHolder: %s → %s", (_n, over, expected) => {
    expect(isSameHolder(lease(me, 1, T0, T0 + 1), { ...me, ...over })).toBe(expected);
  });

  it.each([
    [T0 - 1, false],
    [T0, true],
    [T0 + 1, true],
  ])("isExpired at %s → %s (a lease ends at its expiresAt)", (now, expected) => {
    expect(isExpired(lease(me, 1, T0 - 10, T0), now)).toBe(expected);
  });
});

describe("releasedLease: never extends a lease", () => {
  it("a lease already expired keeps its earlier expiry", () => {
    const l = releasedLease(lease(me, 3, T0, T0 + 10), T0 + 50);
    expect(l).toEqual(lease(me, 3, T0, T0 + 10));
  });
});
