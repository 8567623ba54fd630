/**
 * Lock files on the in-memory filesystem: how a holder is read (valid, malformed, too large, not
 * a regular file), when it is stale, how a stale one is broken under the `.break` guard (and
 * what a racing breaker or holder changes), the backoff and timeout of a wait (simulated clock),
 * release of one's own lock only, and the exact errors.
 */
import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import type { NoFollowRead } from "../ports.ts";
import { FakeFs } from "../testing/fake_fs.ts";
import { type Fault, faultyFs } from "../testing/faulty_fs.ts";
import { acquireLockFile, breakStaleLock, inspectLock, withLockFile } from "./lock-file.ts";
import { selfIdentity, sleep } from "./proc.ts";

vi.mock("./proc.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("./proc.ts")>();
  return { ...real, sleep: vi.fn(real.sleep) };
});

const LOCK = "/ws/x.lock";
const GUARD = `${LOCK}.break`;
/** The simulated "now" (Date.now) of every test. */
const T0 = 1_000_000;
const HINT = "another ariel process holds the lock; retry shortly";
let now = T0;

/** A FakeFs whose files carry a modification time (default T0, i.e. fresh). */
class TimedFs extends FakeFs {
  readonly mtimes = new Map<string, number>();
  override async readFileNoFollow(path: string, maxBytes: number): Promise<NoFollowRead | null> {
    const r = await super.readFileNoFollow(path, maxBytes);
    if (r) r.info = { ...r.info, mtimeMs: this.mtimes.get(path) ?? T0 };
    return r;
  }
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

const DEAD = deadPid();

/** A holder's file content: this process with another nonce unless overridden. */
const holder = (over: Record<string, unknown> = {}) =>
  `${JSON.stringify({ ...selfIdentity(), nonce: "00000000000000aa", acquiredAt: "2026-01-01T00:00:00.000Z", ...over })}\n`;

const nonceOf = (text: string | null | undefined) => JSON.parse(text ?? "null")?.nonce;

function world(tree: Record<string, string> = {}, faults: Fault[] = []) {
  const mem = new TimedFs({ "/ws": { dir: true }, ...tree });
  return { mem, fs: faultyFs(mem, faults) };
}

/** Every file under /ws with its text. */
function files(mem: FakeFs): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [p, n] of mem.nodes) if (p.startsWith("/ws/") && n.kind === "file") out[p] = mem.text(p);
  return out;
}

/** Make `sleep` advance the simulated clock and return at once; returns the slept lengths. */
function simulateSleep(onSleep?: (n: number) => void): number[] {
  const slept: number[] = [];
  vi.mocked(sleep).mockImplementation(async (ms) => {
    slept.push(ms);
    now += ms;
    onSleep?.(slept.length);
  });
  return slept;
}

beforeEach(() => {
  now = T0;
  vi.spyOn(Date, "now").mockImplementation(() => now);
  vi.spyOn(Math, "random").mockReturnValue(0.25);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.mocked(sleep).mockReset();
});

describe("inspectLock: reading the holder", () => {
  const big = holder({ purpose: "x".repeat(5000) });
  it.each<[string, Record<string, string>, Record<string, number>, string]>([
    ["no file", {}, {}, "absent"],
    ["a live holder (this process, another nonce)", { [LOCK]: holder() }, {}, "live"],
    ["a dead pid", { [LOCK]: holder({ pid: DEAD }) }, {}, "stale"],
    ["a reused pid (other start time)", { [LOCK]: holder({ processStart: "1" }) }, {}, "stale"],
    ["a dead pid on another host", { [LOCK]: holder({ pid: DEAD, host: "elsewhere.invalid" }) }, {}, "live"],
    ["empty, fresh", { [LOCK]: "" }, {}, "live"],
    ["empty, exactly at the 5 s grace", { [LOCK]: "" }, { [LOCK]: T0 - 5000 }, "live"],
    ["empty, past the grace", { [LOCK]: "" }, { [LOCK]: T0 - 5001 }, "stale"],
    ["over 4096 bytes, fresh", { [LOCK]: big }, {}, "live"],
    ["over 4096 bytes, old", { [LOCK]: big }, { [LOCK]: 0 }, "stale"],
  ])("%s → %s", async (_name, tree, mtimes, expected) => {
    const { mem } = world(tree);
    for (const [p, t] of Object.entries(mtimes)) mem.mtimes.set(p, t);
    expect(await inspectLock(LOCK, mem)).toBe(expected);
  });

  it.each([
    ["no pid", '{"nonce":"abc"}'],
    ["no nonce", '{"pid":1}'],
    ["a string pid", '{"pid":"1","nonce":"abc"}'],
    ["a number nonce", '{"pid":1,"nonce":5}'],
    ["null", "null"],
    ["a string", '"text"'],
    ["an array", "[1]"],
    ["not JSON", "{pid:1"],
  ])("malformed content (%s) is unreadable: stale once old, live while fresh", async (_name, text) => {
    const { mem } = world({ [LOCK]: text });
    expect(await inspectLock(LOCK, mem)).toBe("live");
    mem.mtimes.set(LOCK, 0);
    expect(await inspectLock(LOCK, mem)).toBe("stale");
  });
});

describe("a lock path that is not a regular file", () => {
  it.each([
    ["a symbolic link", { link: "/ws/target" }, "symlink"],
    ["a directory", { dir: true } as const, "dir"],
  ] as const)("%s → ERR_NOT_REGULAR_FILE (77), left alone", async (is, entry, kind) => {
    const mem = new TimedFs({ "/ws/target": holder({ pid: DEAD }) });
    mem.put(LOCK, entry);
    for (const act of [
      () => acquireLockFile(LOCK, { timeoutMs: 0, fs: mem }),
      () => inspectLock(LOCK, mem),
      () => breakStaleLock(LOCK, mem),
    ]) {
      const e = await arielErrorOf(act());
      expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
        "ERR_NOT_REGULAR_FILE",
        77,
        `lock file ${LOCK} is ${is}; refusing to read or replace it`,
        "ariel's state files are regular files, never links; move it aside (nothing was changed)",
        { path: LOCK, kind },
      ]);
    }
    expect(mem.nodes.get(LOCK)?.kind).toBe(kind);
    expect(mem.text("/ws/target")).toBe(holder({ pid: DEAD }));
  });
});

describe("acquire and release", () => {
  it("writes the holder as one JSON line (purpose only when given) and removes it on release", async () => {
    const { mem, fs } = world();
    const lock = await acquireLockFile(LOCK, { fs, purpose: "add t1" });
    expect(lock.path).toBe(LOCK);
    expect(lock.holder).toMatchObject({ ...selfIdentity(), purpose: "add t1" });
    expect(lock.holder.nonce).toMatch(/^[0-9a-f]{16}$/);
    expect(mem.text(LOCK)).toBe(`${JSON.stringify(lock.holder)}\n`);
    await lock.release();
    expect(files(mem)).toEqual({});
    expect(fs.log).toEqual([`createExclusive ${LOCK}`, `readFileNoFollow ${LOCK}`, `unlink ${LOCK}`]);
    const plain = await acquireLockFile(LOCK, { fs });
    expect("purpose" in JSON.parse(mem.text(LOCK) ?? "")).toBe(false);
    await plain.release();
  });

  it.each<[string, string | null]>([
    ["another holder's lock", holder()],
    ["unreadable content", "garbage"],
    ["no file", null],
  ])("release leaves %s alone (only one's own lock is removed)", async (_name, replaced) => {
    const { mem, fs } = world();
    const lock = await acquireLockFile(LOCK, { fs });
    if (replaced === null) mem.nodes.delete(LOCK);
    else mem.put(LOCK, replaced);
    await lock.release();
    expect(files(mem)).toEqual(replaced === null ? {} : { [LOCK]: replaced });
    expect(fs.log.at(-1)).toBe(`readFileNoFollow ${LOCK}`);
  });

  it("a lock that vanishes between the failed create and the read is simply tried again", async () => {
    const { mem, fs } = world({ [LOCK]: holder() }, [
      { op: "readFileNoFollow", path: LOCK, times: 1, before: () => void mem.nodes.delete(LOCK) },
    ]);
    const lock = await acquireLockFile(LOCK, { fs, timeoutMs: 0 });
    expect(nonceOf(mem.text(LOCK))).toBe(lock.holder.nonce);
    expect(fs.log).toEqual([
      `createExclusive ${LOCK}`,
      `readFileNoFollow ${LOCK}`,
      `createExclusive ${LOCK}`,
    ]);
    expect(sleep).not.toHaveBeenCalled();
  });
});

describe("ERR_LOCKED", () => {
  it("a live holder on another host: at once with timeout 0, naming pid and host", async () => {
    const { mem, fs } = world({ [LOCK]: holder({ pid: DEAD, host: "elsewhere.invalid" }) });
    const e = await arielErrorOf(acquireLockFile(LOCK, { fs, timeoutMs: 0 }));
    expect([e.code, e.exit, e.hint, e.message, e.context]).toEqual([
      "ERR_LOCKED",
      75,
      HINT,
      `lock ${LOCK} is held by pid ${DEAD} on elsewhere.invalid`,
      { lock: LOCK, holderPid: DEAD, holderHost: "elsewhere.invalid" },
    ]);
    expect(files(mem)).toEqual({ [LOCK]: holder({ pid: DEAD, host: "elsewhere.invalid" }) });
    expect(sleep).not.toHaveBeenCalled();
  });

  it("an unreadable fresh holder: named by `what`, without a pid", async () => {
    const { fs } = world({ [LOCK]: "" });
    const e = await arielErrorOf(
      withLockFile(LOCK, { fs, timeoutMs: 0, what: "record lock" }, async () => 1),
    );
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_LOCKED",
      `record lock ${LOCK} is held`,
      { lock: LOCK },
    ]);
  });

  it("an aborted signal ends the wait at the first look", async () => {
    const { fs } = world({ [LOCK]: holder() });
    const signal = AbortSignal.abort();
    const e = await arielErrorOf(acquireLockFile(LOCK, { fs, timeoutMs: 60_000, signal }));
    expect(e.code).toBe("ERR_LOCKED");
    expect(fs.log).toEqual([`createExclusive ${LOCK}`, `readFileNoFollow ${LOCK}`]);
  });
});

describe("waiting (simulated clock, Math.random = 0.25)", () => {
  it("backs off 5 ms doubling to 100 ms (×0.75 jitter), the last sleep cut to the deadline", async () => {
    const { fs } = world({ [LOCK]: holder({ nonce: "aaaaaaaaaaaaaaaa" }) });
    const slept = simulateSleep();
    const e = await arielErrorOf(acquireLockFile(LOCK, { fs, timeoutMs: 300 }));
    expect(slept).toEqual([3.75, 7.5, 15, 30, 60, 75, 75, 33.75]);
    expect([e.code, e.context.holderPid, now]).toEqual(["ERR_LOCKED", process.pid, T0 + 300]);
  });

  it("a short timeout: the first sleep is cut to it, then the next look fails", async () => {
    const { fs } = world({ [LOCK]: holder() });
    const slept = simulateSleep();
    await arielErrorOf(acquireLockFile(LOCK, { fs, timeoutMs: 2 }));
    expect(slept).toEqual([2]);
  });

  it("a holder that changes restarts the wait (progress); the error names the last one", async () => {
    const { mem, fs } = world({ [LOCK]: holder({ nonce: "aaaaaaaaaaaaaaaa" }) });
    const abort = new AbortController();
    const slept = simulateSleep((n) => {
      if (n === 1) mem.put(LOCK, holder({ nonce: "bbbbbbbbbbbbbbbb", pid: 1, host: "elsewhere.invalid" }));
      if (n > 20) abort.abort();
    });
    const e = await arielErrorOf(acquireLockFile(LOCK, { fs, timeoutMs: 20, signal: abort.signal }));
    expect(slept).toEqual([3.75, 7.5, 12.5]);
    expect(e.message).toBe(`lock ${LOCK} is held by pid 1 on elsewhere.invalid`);
  });

  it("an unreadable holder that is rewritten (new mtime) counts as progress too", async () => {
    const { mem, fs } = world({ [LOCK]: "" });
    const slept = simulateSleep((n) => {
      if (n === 1) mem.mtimes.set(LOCK, T0 + 1);
    });
    await arielErrorOf(acquireLockFile(LOCK, { fs, timeoutMs: 20 }));
    expect(slept).toEqual([3.75, 7.5, 12.5]);
  });

  it("the same holder throughout is no progress", async () => {
    const { fs } = world({ [LOCK]: "" });
    const slept = simulateSleep();
    await arielErrorOf(acquireLockFile(LOCK, { fs, timeoutMs: 20 }));
    expect(slept).toEqual([3.75, 7.5, 8.75]);
  });
});

describe("withLockFile: the in-process queue", () => {
  it("a caller arriving while the second holds it still queues behind it (never ERR_LOCKED)", async () => {
    const { fs } = world();
    const order: string[] = [];
    let late: Promise<string> | undefined;
    const a = withLockFile(LOCK, { fs }, async () => void order.push("a"));
    const b = withLockFile(LOCK, { fs }, async () => {
      order.push("b");
      late = withLockFile(LOCK, { fs, timeoutMs: 0 }, async () => {
        order.push("c");
        return "c ran";
      });
    });
    await Promise.all([a, b]);
    expect(await late).toBe("c ran");
    expect(order).toEqual(["a", "b", "c"]);
  });
});

describe("taking over a stale lock", () => {
  it("a dead holder's lock is broken under a `.break` guard (purpose break), then taken", async () => {
    let guard: string | undefined;
    const { mem, fs } = world({ [LOCK]: holder({ pid: DEAD }) }, [
      {
        op: "unlink",
        path: LOCK,
        times: 1,
        before: () => {
          guard = mem.text(GUARD);
        },
      },
    ]);
    const lock = await acquireLockFile(LOCK, { fs, timeoutMs: 0 });
    expect(JSON.parse(guard ?? "")).toMatchObject({ ...selfIdentity(), purpose: "break" });
    expect(files(mem)).toEqual({ [LOCK]: `${JSON.stringify(lock.holder)}\n` });
    expect(fs.log).toEqual([
      `createExclusive ${LOCK}`,
      `readFileNoFollow ${LOCK}`,
      `createExclusive ${GUARD}`,
      `readFileNoFollow ${LOCK}`,
      `unlink ${LOCK}`,
      `readFileNoFollow ${GUARD}`,
      `unlink ${GUARD}`,
      `createExclusive ${LOCK}`,
    ]);
    expect(sleep).not.toHaveBeenCalled();
  });

  it("while a live breaker holds the guard: waits 2–10 ms (here 4), looks again", async () => {
    const { mem, fs } = world({ [LOCK]: holder({ pid: DEAD }), [GUARD]: holder() });
    const slept = simulateSleep(() => void mem.nodes.delete(GUARD));
    const lock = await acquireLockFile(LOCK, { fs, timeoutMs: 0 });
    expect(slept).toEqual([4]);
    expect(files(mem)).toEqual({ [LOCK]: `${JSON.stringify(lock.holder)}\n` });
  });
});

describe("taking over a stale lock that vanishes meanwhile", () => {
  it("gone when re-read under the guard: taken at once, no wait", async () => {
    const { mem, fs } = world({ [LOCK]: holder({ pid: DEAD }) }, [
      { op: "readFileNoFollow", path: LOCK, skip: 1, times: 1, before: () => void mem.nodes.delete(LOCK) },
    ]);
    const lock = await acquireLockFile(LOCK, { fs, timeoutMs: 0 });
    expect(files(mem)).toEqual({ [LOCK]: `${JSON.stringify(lock.holder)}\n` });
    expect(sleep).not.toHaveBeenCalled();
  });
});

describe("breakStaleLock", () => {
  it.each<[string, Record<string, string>, boolean, string[]]>([
    ["no lock", {}, false, []],
    ["a live lock", { [LOCK]: holder() }, false, [LOCK]],
    ["a dead holder's lock", { [LOCK]: holder({ pid: DEAD }) }, true, []],
  ])("%s", async (_name, tree, broken, left) => {
    const { mem } = world(tree);
    expect(await breakStaleLock(LOCK, mem)).toBe(broken);
    expect(Object.keys(files(mem))).toEqual(left);
  });

  it("an old unreadable lock is broken; a fresh one is not", async () => {
    const { mem } = world({ [LOCK]: "" });
    expect(await breakStaleLock(LOCK, mem)).toBe(false);
    mem.mtimes.set(LOCK, T0 - 6000);
    expect(await breakStaleLock(LOCK, mem)).toBe(true);
    expect(files(mem)).toEqual({});
  });

  it.each<[string, string, number, boolean]>([
    ["a live breaker's guard", holder(), T0, true],
    ["an unreadable fresh guard", "", T0, true],
    ["a live breaker's guard exactly 10 s old", holder(), T0 - 10_000, true],
    ["a live breaker's guard over 10 s old (abandoned)", holder(), T0 - 10_001, false],
    ["a dead breaker's guard", holder({ pid: DEAD }), T0, false],
  ])("%s: the lock is left this time (false)", async (_name, guard, mtime, kept) => {
    for (const lock of [holder({ pid: DEAD }), ""]) {
      const { mem } = world({ [LOCK]: lock, [GUARD]: guard });
      mem.mtimes.set(LOCK, 0);
      mem.mtimes.set(GUARD, mtime);
      expect(await breakStaleLock(LOCK, mem)).toBe(false);
      expect(files(mem)).toEqual(kept ? { [LOCK]: lock, [GUARD]: guard } : { [LOCK]: lock });
    }
  });

  it("a guard that vanishes before it is read: false, the lock left for the next look", async () => {
    const { mem, fs } = world({ [LOCK]: holder({ pid: DEAD }), [GUARD]: holder() }, [
      { op: "readFileNoFollow", path: GUARD, times: 1, before: () => void mem.nodes.delete(GUARD) },
    ]);
    expect(await breakStaleLock(LOCK, fs)).toBe(false);
    expect(files(mem)).toEqual({ [LOCK]: holder({ pid: DEAD }) });
  });
});

describe("breakStaleLock: what a racing process changes under the guard", () => {
  /** The second read of the lock (under the guard) first runs `change`. */
  const atRecheck = (change: (mem: TimedFs) => void, tree: Record<string, string>) => {
    const mem = new TimedFs({ "/ws": { dir: true }, ...tree });
    mem.mtimes.set(LOCK, 0);
    const fault = {
      op: "readFileNoFollow",
      path: LOCK,
      skip: 1,
      times: 1,
      before: () => change(mem),
    } as const;
    return { mem, fs: faultyFs(mem, [fault]) };
  };
  const dead = { [LOCK]: holder({ pid: DEAD }) };
  const old = { [LOCK]: "" };
  const live = holder({ nonce: "00000000000000bb" });
  const put = (text: string, mtime: number) => (mem: TimedFs) => {
    mem.put(LOCK, text);
    mem.mtimes.set(LOCK, mtime);
  };

  it.each<[string, Record<string, string>, (mem: TimedFs) => void, boolean, string | null]>([
    ["dead holder, then gone", dead, (mem) => void mem.nodes.delete(LOCK), true, null],
    ["dead holder, then a live one", dead, put(live, T0), true, live],
    ["dead holder, then a live one (same mtime)", dead, put(live, 0), true, live],
    ["dead holder, then unreadable", dead, put("x", T0), true, "x"],
    ["old unreadable, then a live holder (same mtime)", old, put(live, 0), false, live],
    ["old unreadable, then a live holder", old, put(live, T0), true, live],
    ["old unreadable, then rewritten", old, put("y", T0), true, "y"],
  ])("%s: what is there now is kept", async (_name, tree, change, result, left) => {
    const { mem, fs } = atRecheck(change, tree);
    expect(await breakStaleLock(LOCK, fs)).toBe(result);
    expect(files(mem)).toEqual(left === null ? {} : { [LOCK]: left });
  });

  it.each<[string, (mem: TimedFs) => void, Record<string, string>]>([
    ["another breaker's guard", (mem) => mem.put(GUARD, holder()), { [GUARD]: holder() }],
    ["an unreadable guard", (mem) => mem.put(GUARD, "z"), { [GUARD]: "z" }],
    ["no guard", (mem) => void mem.nodes.delete(GUARD), {}],
  ])("the guard replaced meanwhile by %s is not removed", async (_name, change, left) => {
    const { mem, fs } = atRecheck(change, dead);
    expect(await breakStaleLock(LOCK, fs)).toBe(true);
    expect(files(mem)).toEqual(left);
  });
});
