import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Process identity for stale-holder detection: a pid plus the process's start time, so a
 * recycled pid is not mistaken for the holder that died.
 */
export interface ProcessIdentity {
  pid: number;
  /** Linux: field 22 of /proc/<pid>/stat (clock ticks since boot); null elsewhere. */
  processStart: string | null;
  host: string;
}

/**
 * Start time of `pid` from /proc/<pid>/stat field 22, or null when /proc is unavailable or the
 * process does not exist. The comm field (2) may hold spaces and parentheses, so fields are
 * counted after its last `)`.
 *
 * @example
 * ```ts
 * processStartTime(process.pid); // "123456" on Linux, null on macOS
 * ```
 */
export function processStartTime(pid: number): string | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const close = text.lastIndexOf(")");
  if (close === -1) return null;
  // After ") " come fields 3.. ; field 22 is index 19 of that list. A zombie (state Z, killed
  // but not yet reaped) or dead (X) process counts as gone.
  const fields = text.slice(close + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return null;
  return fields[19] ?? null;
}

let self: ProcessIdentity | undefined;

/** This process's identity (computed once). */
export function selfIdentity(): ProcessIdentity {
  self ??= { pid: process.pid, processStart: processStartTime(process.pid), host: hostname() };
  return self;
}

function procAvailable(): boolean {
  return processStartTime(process.pid) !== null;
}

/**
 * Whether the process `id` names still runs. On another host we cannot tell and answer true
 * (the caller then waits for expiry or a timeout). On Linux the start time must match too;
 * elsewhere `kill(pid, 0)` decides (EPERM means alive).
 *
 * @example
 * ```ts
 * isProcessAlive(selfIdentity()); // true
 * ```
 */
export function isProcessAlive(id: { pid: number; processStart: string | null; host: string }): boolean {
  if (id.host !== selfIdentity().host) return true;
  if (!Number.isInteger(id.pid) || id.pid <= 0) return false;
  if (procAvailable()) {
    const start = processStartTime(id.pid);
    if (start === null) return false;
    return id.processStart === null || id.processStart === start;
  }
  try {
    process.kill(id.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Sleep `ms` milliseconds, or until `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", done);
      clearTimeout(t);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
