/**
 * An idle monitor's way out: it removes its socket (only its own), then exits only if it is
 * still idle a grace later, so a CLI that connected just before the removal is served.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { removeDir, tempDir } from "../../_fixture.ts";
import { type IdleState, UNLINK_GRACE_MS, untilIdle } from "./idle.ts";

let dir: string;
let sock: string;
let m: IdleState;
let exited: number;
let done: boolean;
beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  dir = tempDir("ariel-idle-");
  sock = join(dir, "monitor.sock");
  writeFileSync(sock, "");
  m = { active: new Map(), busy: 0, connections: 0, lastActivity: Date.now() };
  exited = 0;
  done = false;
});
afterEach(() => {
  vi.useRealTimers();
  removeDir(dir);
});

/** Watch with an idle time of 1 s (a tick every 250 ms). */
function watch(ino = statSync(sock).ino): void {
  void untilIdle(m, 1000, sock, ino, () => exited++).then(() => {
    done = true;
  });
}

describe("untilIdle", () => {
  it("busy or with a client it stays; idle for the idle time it removes its socket, then exits after the grace", async () => {
    watch();
    await vi.advanceTimersByTimeAsync(750);
    expect(existsSync(sock)).toBe(true); // 750 ms of nothing: not yet idle
    await vi.advanceTimersByTimeAsync(250);
    expect([existsSync(sock), exited, done]).toEqual([false, 0, false]); // removed, not yet gone
    await vi.advanceTimersByTimeAsync(10);
    expect(exited).toBe(0);
    await vi.advanceTimersByTimeAsync(UNLINK_GRACE_MS - 10);
    expect([exited, done]).toEqual([1, true]);
  });

  it("a client accepted after the socket was removed keeps it; it exits once idle again", async () => {
    watch();
    await vi.advanceTimersByTimeAsync(1000);
    expect(existsSync(sock)).toBe(false);
    await vi.advanceTimersByTimeAsync(10);
    expect(exited).toBe(0);
    // accepted some turns after the removal (a runtime that accepts late): it is served
    m.connections = 1;
    m.lastActivity = Date.now();
    await vi.advanceTimersByTimeAsync(5000);
    expect(exited).toBe(0);
    m.connections = 0;
    m.lastActivity = Date.now();
    await vi.advanceTimersByTimeAsync(750);
    expect(exited).toBe(0);
    // the first tick a full idle time later (its socket already gone: no grace again)
    await vi.advanceTimersByTimeAsync(500);
    expect([exited, done]).toEqual([1, true]);
  });

  it("a run or a hook keeps it; the idle time counts from its last activity", async () => {
    m.active.set("r1", {} as never);
    m.busy = 1;
    watch();
    await vi.advanceTimersByTimeAsync(3000);
    m.active.clear();
    await vi.advanceTimersByTimeAsync(3000);
    expect([existsSync(sock), exited]).toEqual([true, 0]); // the hook still works
    m.busy = 0;
    m.lastActivity = Date.now();
    await vi.advanceTimersByTimeAsync(750);
    expect(existsSync(sock)).toBe(true);
    await vi.advanceTimersByTimeAsync(250 + UNLINK_GRACE_MS);
    expect([existsSync(sock), exited]).toEqual([false, 1]);
  });

  it("a socket path that is another monitor's by now (another inode) is left alone; it still exits", async () => {
    watch(statSync(sock).ino + 1);
    await vi.advanceTimersByTimeAsync(1000 + UNLINK_GRACE_MS);
    expect([existsSync(sock), exited]).toEqual([true, 1]);
  });
});
