import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChildRef } from "../../runs/record.ts";

// The identity checks on a fake /proc (node:fs's readFileSync answers /proc/sys/kernel/random/
// boot_id and /proc/<pid>/stat from a table) and a fake process.kill (a table of live pids and
// groups): a reused pid, another boot, a zombie, no /proc at all, each without a real process.

const fake = vi.hoisted(() => ({
  boot: "boot-A\n" as string | null,
  /** /proc/<pid>/stat by pid; an absent pid has no entry. */
  stat: new Map<number, string>(),
  /** What kill(target, …) does: undefined is success, else the errno code thrown. */
  kill: new Map<number, string>(),
  signals: [] as [target: number, signal: string | number][],
}));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  // Text only when asked for as "utf8", as the real readFileSync: else bytes.
  const asRead = (text: string, encoding: unknown) => (encoding === "utf8" ? text : Buffer.from(text));
  const enoent = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
  return {
    ...real,
    readFileSync: (path: unknown, ...rest: unknown[]) => {
      if (path === "/proc/sys/kernel/random/boot_id") {
        if (fake.boot === null) throw enoent(path);
        return asRead(fake.boot, rest[0]);
      }
      const pid = /^\/proc\/(\d+)\/stat$/.exec(String(path))?.[1];
      if (pid !== undefined) {
        const text = fake.stat.get(Number(pid));
        if (text === undefined) throw enoent(String(path));
        return asRead(text, rest[0]);
      }
      return (real.readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
    },
  };
});

/** A /proc/<pid>/stat line: state is field 3, the start time field 22. */
function stat(pid: number, state: string, start: string): string {
  return `${pid} (a (b) c) ${state} ${Array.from({ length: 18 }, (_, i) => i + 1).join(" ")} ${start} 99 98\n`;
}

const SELF = process.pid;
const PID = 4242;
let identity: typeof import("./identity.ts");

beforeEach(async () => {
  Object.assign(fake, {
    boot: "boot-A\n",
    stat: new Map([[SELF, stat(SELF, "S", "1000")]]),
    kill: new Map(),
  });
  fake.signals = [];
  vi.spyOn(process, "kill").mockImplementation((target: number, signal?: string | number) => {
    fake.signals.push([target, signal ?? "SIGTERM"]);
    const code = fake.kill.get(target);
    if (code !== undefined) throw Object.assign(new Error(code), { code });
    return true;
  });
  vi.resetModules(); // bootId() reads once per module instance
  identity = await import("./identity.ts");
});
afterEach(() => vi.restoreAllMocks());

describe("bootId", () => {
  it("this boot's id, trimmed, read once", () => {
    expect(identity.bootId()).toBe("boot-A");
    fake.boot = "boot-B\n";
    expect(identity.bootId()).toBe("boot-A");
  });

  it.each([
    ["no boot id file", null],
    ["an empty one", "\n"],
  ])("%s: null", (_n, text) => {
    fake.boot = text;
    expect(identity.bootId()).toBeNull();
  });
});

describe("isSameProcess", () => {
  const alive = () => fake.stat.set(PID, stat(PID, "S", "5000"));

  it.each<[string, string | null, string | null | undefined, boolean]>([
    ["same boot, same start", "5000", "boot-A", true],
    ["a reused pid: another start time", "4999", "boot-A", false],
    ["another boot", "5000", "boot-B", false],
    ["no start time recorded: the pid alive is enough", null, "boot-A", true],
    ["no boot recorded", "5000", null, true],
    ["no boot field at all", "5000", undefined, true],
  ])("%s → %s", (_n, startTime, boot, want) => {
    alive();
    expect(
      identity.isSameProcess({ pid: PID, startTime, ...(boot === undefined ? {} : { bootId: boot }) }),
    ).toBe(want);
    expect(fake.signals).toEqual([]);
  });

  it("a host without a boot id does not compare boots", () => {
    fake.boot = null;
    alive();
    expect(identity.isSameProcess({ pid: PID, startTime: "5000", bootId: "boot-B" })).toBe(true);
  });

  it.each([
    ["gone", undefined],
    ["a zombie", "Z"],
    ["dead", "X"],
  ])("a pid %s while /proc works: not ours, and no signal asked", (_n, state) => {
    if (state !== undefined) fake.stat.set(PID, stat(PID, state, "5000"));
    expect(identity.isSameProcess({ pid: PID, startTime: "5000", bootId: "boot-A" })).toBe(false);
    expect(fake.signals).toEqual([]);
  });

  it.each([
    ["kill(pid, 0) succeeds", undefined, true],
    ["EPERM: alive, another user's", "EPERM", true],
    ["ESRCH: gone", "ESRCH", false],
  ])("without /proc, %s → %s", (_n, code, want) => {
    fake.stat.clear();
    if (code !== undefined) fake.kill.set(PID, code);
    expect(identity.isSameProcess({ pid: PID, startTime: "5000", bootId: "boot-A" })).toBe(want);
    expect(fake.signals).toEqual([[PID, 0]]);
  });
});

describe("selfMonitorRef", () => {
  it("this process's pid, start time and boot", () => {
    expect(identity.selfMonitorRef()).toEqual({ pid: SELF, startTime: "1000", bootId: "boot-A" });
  });
});

describe("process groups", () => {
  const child: ChildRef = { pid: PID, pgid: PID, startTime: "5000" };

  it.each([
    ["exists", undefined, true],
    ["EPERM: exists, another user's", "EPERM", true],
    ["ESRCH: gone", "ESRCH", false],
  ])("groupExists: a group that %s → %s", (_n, code, want) => {
    if (code !== undefined) fake.kill.set(-77, code);
    expect(identity.groupExists(77)).toBe(want);
    expect(fake.signals).toEqual([[-77, 0]]);
  });

  it.each<[string, string | null, string | undefined, string | null, boolean]>([
    ["the leader alive with its start time", "5000", "S", "boot-A", true],
    ["the leader gone, members left", "5000", undefined, "boot-A", true],
    ["the leader's pid reused by another process", "5000", "S:4999", "boot-A", false],
    ["no start time recorded", null, "S:4999", "boot-A", true],
    ["another boot", "5000", "S", "boot-B", false],
    ["no boot recorded", "5000", "S", null, true],
  ])("groupIsOurs: %s → %s", (_n, startTime, leader, runBoot, want) => {
    if (leader !== undefined) {
      const [state, start] = leader.split(":");
      fake.stat.set(PID, stat(PID, state ?? "S", start ?? "5000"));
    }
    expect(identity.groupIsOurs({ ...child, startTime }, runBoot)).toBe(want);
    expect(fake.signals).toEqual(want ? [[-PID, 0]] : []);
  });

  it("groupIsOurs on a host without a boot id does not compare boots", () => {
    fake.boot = null;
    expect(identity.groupIsOurs(child, "boot-B")).toBe(true);
  });

  it("groupIsOurs: a group that no longer exists is not ours", () => {
    fake.kill.set(-PID, "ESRCH");
    expect(identity.groupIsOurs(child, "boot-A")).toBe(false);
  });

  it("signalGroup signals the whole group (a negative pid) when it is ours", () => {
    fake.stat.set(PID, stat(PID, "S", "5000"));
    expect(identity.signalGroup(child, "boot-A", "SIGTERM")).toBe(true);
    expect(fake.signals).toEqual([
      [-PID, 0],
      [-PID, "SIGTERM"],
    ]);
  });

  it("signalGroup sends nothing to a group that is not ours", () => {
    fake.stat.set(PID, stat(PID, "S", "4999"));
    expect(identity.signalGroup(child, "boot-A", 9)).toBe(false);
    expect(fake.signals).toEqual([]);
  });

  it("signalGroup: a group that ends between the check and the signal → false", () => {
    let calls = 0;
    vi.mocked(process.kill).mockImplementation((target: number, signal?: string | number) => {
      fake.signals.push([target, signal ?? "SIGTERM"]);
      if (calls++ > 0) throw Object.assign(new Error("ESRCH"), { code: "ESRCH" });
      return true;
    });
    expect(identity.signalGroup(child, null, "SIGKILL")).toBe(false);
    expect(fake.signals).toEqual([
      [-PID, 0],
      [-PID, "SIGKILL"],
    ]);
  });
});
