/**
 * More of proc.ts: how /proc/<pid>/stat is read (odd names, zombies, short or broken lines, given
 * here through a stand-in for the file), the kill(pid, 0) answer where there is no /proc, and
 * sleep's timer and abort.
 */
import { spawn } from "node:child_process";
import { getEventListeners } from "node:events";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { processGone } from "./_fixture.ts";
import { isProcessAlive, processStartTime, selfIdentity, sleep } from "./proc.ts";

/** What a read of /proc/<pid>/stat gives, by pid; `noProc` makes every /proc read fail. */
const proc = vi.hoisted(() => ({ stat: new Map<number, string>(), noProc: false }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const readFileSync = (path: unknown, ...rest: unknown[]) => {
    const m = typeof path === "string" ? /^\/proc\/(.+)\/stat$/.exec(path) : null;
    if (m && proc.noProc) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    const fake = m ? proc.stat.get(Number(m[1])) : undefined;
    if (fake !== undefined) return fake;
    return (fs.readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
  };
  return { ...fs, default: { ...fs, readFileSync }, readFileSync };
});

const linux = process.platform === "linux";
const FAKE = 999_999_001;
const me = selfIdentity();

/** A stat line: pid, (comm), state, fields 4..21 as 0, field 22 `start`, then `tail` more. */
function statLine(comm: string, state: string, start: string, tail = 30): string {
  return [`${FAKE} (${comm}) ${state}`, ...Array(18).fill("0"), start, ...Array(tail).fill("7")].join(" ");
}

afterEach(() => {
  proc.stat.clear();
  proc.noProc = false;
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("processStartTime: reading /proc/<pid>/stat", () => {
  it.each([
    ["a plain name", statLine("node", "S", "4242"), "4242"],
    ["a name with spaces and parentheses", statLine("a) (b c) x", "R", "77"), "77"],
    ["field 22 as the last field", statLine("n", "D", "5", 0), "5"],
    ["a zombie (Z)", statLine("n", "Z", "5"), null],
    ["a dead process (X)", statLine("n", "X", "5"), null],
    ["stopped (T)", statLine("n", "T", "9"), "9"],
    ["too few fields", `${FAKE} (n) S 1 2 3`, null],
    ["no closing parenthesis", `${FAKE} n S ${Array(40).fill("3").join(" ")}`, null],
  ])("%s -> %s", (_name, text, expected) => {
    proc.stat.set(FAKE, text);
    expect(processStartTime(FAKE)).toBe(expected);
  });

  it("a zombie pid is not alive, whatever start time is asked for", () => {
    proc.stat.set(FAKE, statLine("n", "Z", "5"));
    expect(isProcessAlive({ pid: FAKE, processStart: "5", host: me.host })).toBe(false);
    expect(isProcessAlive({ pid: FAKE, processStart: null, host: me.host })).toBe(false);
  });

  it("a live pid: alive when the start time matches or is unknown, not when it differs", () => {
    proc.stat.set(FAKE, statLine("n", "S", "5"));
    expect(isProcessAlive({ pid: FAKE, processStart: "5", host: me.host })).toBe(true);
    expect(isProcessAlive({ pid: FAKE, processStart: null, host: me.host })).toBe(true);
    expect(isProcessAlive({ pid: FAKE, processStart: "6", host: me.host })).toBe(false);
  });

  it.each([0, -1, 1.5, Number.NaN])("pid %s is never alive", (pid) => {
    expect(isProcessAlive({ ...me, pid })).toBe(false);
  });
});

describe("processStartTime on a real zombie", () => {
  it.runIf(linux)("a child that was killed but not reaped counts as gone", async () => {
    // sh starts a child, then becomes sleep, which never reaps it: once killed, it stays a zombie.
    const parent = spawn("sh", ["-c", 'sleep 30 & echo "$!"; exec sleep 30'], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const child = Number(await new Promise<string>((r) => parent.stdout.once("data", (b) => r(String(b)))));
    try {
      expect(await until(() => procText(`${parent.pid}/comm`) === "sleep\n")).toBe(true);
      expect(processStartTime(child)).toMatch(/^\d+$/);
      process.kill(child, "SIGKILL");
      expect(await until(() => procText(`${child}/stat`).split(") ")[1]?.startsWith("Z") === true)).toBe(
        true,
      );
      expect(processStartTime(child)).toBeNull();
      expect(isProcessAlive({ pid: child, processStart: null, host: me.host })).toBe(false);
    } finally {
      parent.kill("SIGKILL");
      expect(await processGone(parent.pid as number)).toBe(true);
    }
  });
});

/** The text of /proc/<rel>, or "" when it cannot be read. */
function procText(rel: string): string {
  try {
    return readFileSync(`/proc/${rel}`, "utf8");
  } catch {
    return "";
  }
}

/** Whether `cond` holds within about five seconds (polled). */
async function until(cond: () => boolean): Promise<boolean> {
  for (let i = 0; i < 250 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  return cond();
}

describe("isProcessAlive where there is no /proc: kill(pid, 0) decides", () => {
  it("this process is alive, a finished one is not", () => {
    proc.noProc = true;
    expect(processStartTime(process.pid)).toBeNull();
    expect(isProcessAlive({ ...me, processStart: "1" })).toBe(true);
    expect(isProcessAlive({ ...me, pid: 999_999_002 })).toBe(false);
  });

  it.each([0, -1, 2.5])("pid %s is not alive (never signalled)", (pid) => {
    proc.noProc = true;
    const kill = vi.spyOn(process, "kill");
    expect(isProcessAlive({ ...me, pid })).toBe(false);
    expect(kill).not.toHaveBeenCalled();
  });

  it.each([
    ["EPERM (someone else's process)", "EPERM", true],
    ["ESRCH (no such process)", "ESRCH", false],
    ["any other error", "EINVAL", false],
  ])("%s -> %s", (_name, code, expected) => {
    proc.noProc = true;
    const kill = vi.spyOn(process, "kill").mockImplementation(() => {
      throw Object.assign(new Error(code), { code });
    });
    expect(isProcessAlive({ ...me, pid: 4242 })).toBe(expected);
    expect(kill).toHaveBeenCalledWith(4242, 0);
  });

  it("another host is alive without asking", () => {
    proc.noProc = true;
    const kill = vi.spyOn(process, "kill");
    expect(isProcessAlive({ pid: 999_999_002, processStart: null, host: `${me.host}-other` })).toBe(true);
    expect(kill).not.toHaveBeenCalled();
  });
});

describe("sleep", () => {
  it("resolves when the time is up, not before, and leaves no listener on the signal", async () => {
    vi.useFakeTimers();
    const signal = new AbortController().signal;
    let done = false;
    const p = sleep(1000, signal).then(() => {
      done = true;
    });
    expect(getEventListeners(signal, "abort")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("an abort ends it at once and clears its timer", async () => {
    vi.useFakeTimers();
    const ac = new AbortController();
    let done = false;
    const p = sleep(60_000, ac.signal).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    ac.abort();
    await p;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
