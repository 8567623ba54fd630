import { readFileSync } from "node:fs";
import type { ChildRef, MonitorRef } from "../../runs/record.ts";
import { processStartTime } from "../proc.ts";

let boot: string | null | undefined;

/** This boot's id (/proc/sys/kernel/random/boot_id), or null where there is none. Read once. */
export function bootId(): string | null {
  if (boot === undefined) {
    try {
      boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      boot = null;
    }
  }
  return boot;
}

/**
 * Whether the process a record names is still that very process: same boot, the pid alive and
 * not a zombie, and (where /proc tells) the same start time. A reused pid is never ours.
 *
 * @example
 * ```ts
 * isSameProcess({ pid: process.pid, startTime: processStartTime(process.pid), bootId: bootId() }); // true
 * ```
 */
export function isSameProcess(ref: {
  pid: number;
  startTime: string | null;
  bootId?: string | null;
}): boolean {
  if (ref.bootId != null && bootId() !== null && ref.bootId !== bootId()) return false;
  const now = processStartTime(ref.pid);
  if (now !== null) return ref.startTime === null || ref.startTime === now;
  if (processStartTime(process.pid) !== null) return false; // /proc works: the pid is gone or a zombie
  try {
    process.kill(ref.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The monitor identity of this process. */
export function selfMonitorRef(): MonitorRef {
  return { pid: process.pid, startTime: processStartTime(process.pid), bootId: bootId() };
}

/** Whether the process group `pgid` still has a member (kill(-pgid, 0)). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether a run's process group is still ours and alive: the child leader is the recorded
 * process, or (the leader exited, members remain) the group still exists in the same boot and
 * the leader's pid is not taken by a process of another identity (a live group id is never
 * handed out as a new pid, so the group is still the one we started).
 */
export function groupIsOurs(child: ChildRef, runBoot: string | null): boolean {
  if (runBoot !== null && bootId() !== null && runBoot !== bootId()) return false;
  const leaderStart = processStartTime(child.pid);
  if (leaderStart !== null && child.startTime !== null && child.startTime !== leaderStart) return false;
  return groupExists(child.pgid);
}

/** Signal a run's process group, only when {@link groupIsOurs}. Returns whether a signal was sent. */
export function signalGroup(
  child: ChildRef,
  runBoot: string | null,
  signal: NodeJS.Signals | number,
): boolean {
  if (!groupIsOurs(child, runBoot)) return false;
  try {
    process.kill(-child.pgid, signal);
    return true;
  } catch {
    return false;
  }
}
