/**
 * More of an idle monitor's way out, beyond idle_test.ts: each of a run, a hook and a client
 * alone keeps it, and when it looks (every quarter of its idle time, between 50 ms and 1 s), so
 * when its socket goes and when it exits (the first look a full grace after the removal).
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { removeDir, tempDir } from "../../_fixture.ts";
import { type IdleState, untilIdle } from "./idle.ts";

let dir: string;
let sock: string;
let m: IdleState;
let exited: number;
beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  dir = tempDir("ariel-idle-more-");
  sock = join(dir, "monitor.sock");
  writeFileSync(sock, "");
  m = { active: new Map(), busy: 0, connections: 0, lastActivity: Date.now() };
  exited = 0;
});
afterEach(() => {
  vi.useRealTimers();
  removeDir(dir);
});

function watch(idleMs: number): void {
  void untilIdle(m, idleMs, sock, statSync(sock).ino, () => exited++);
}

describe("untilIdle: what keeps it", () => {
  it.each([
    ["a run", () => m.active.set("r1", {} as never)],
    ["a hook", () => (m.busy = 1)],
    ["a client", () => (m.connections = 1)],
  ])("%s alone keeps it, however long", async (_name, keep) => {
    keep();
    watch(1000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect([existsSync(sock), exited]).toEqual([true, 0]);
  });
});

describe("untilIdle: when it looks, so when its socket goes and when it exits", () => {
  it.each([
    ["idle 200 ms: a look every 50 ms, the exit a grace after the removal", 200, 200, 450],
    ["idle 120 ms: a look every 50 ms at least apart", 120, 150, 400],
    ["idle 4 s: a look every second", 4000, 4000, 5000],
    ["idle 8 s: a look every second at most apart", 8000, 8000, 9000],
  ])("%s", async (_name, idleMs, removedAt, exitAt) => {
    watch(idleMs);
    await vi.advanceTimersByTimeAsync(removedAt - 1);
    expect([existsSync(sock), exited]).toEqual([true, 0]);
    await vi.advanceTimersByTimeAsync(1);
    expect([existsSync(sock), exited]).toEqual([false, 0]);
    await vi.advanceTimersByTimeAsync(exitAt - removedAt - 1);
    expect(exited).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(exited).toBe(1);
  });
});
