import { rmSync, statSync } from "node:fs";
import type { Monitor } from "./context.ts";

/**
 * How long an idle monitor waits between removing its socket and exiting: a CLI that connected
 * an instant before the removal still waits in the listen backlog, and the runtime may accept it
 * some turns later (Deno does, after a `setImmediate`): in this time it is accepted and served.
 */
export const UNLINK_GRACE_MS = 250;

/** What the idle check reads of a monitor. */
export type IdleState = Pick<Monitor, "active" | "busy" | "connections" | "lastActivity">;

/**
 * Resolve once the monitor has had nothing to do for `idleMs` (no run, hook or client), after
 * `exit` has run. Its socket is unlinked first (only while it is still this monitor's: same
 * inode), and the monitor exits only when it is still idle {@link UNLINK_GRACE_MS} later: a
 * client that came meanwhile keeps it (it exits once idle again, its socket already gone).
 */
export function untilIdle(
  m: IdleState,
  idleMs: number,
  socketPath: string,
  socketIno: number,
  exit: () => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const idle = () =>
      m.active.size === 0 && m.busy === 0 && m.connections === 0 && Date.now() - m.lastActivity >= idleMs;
    let unlinkedAt: number | undefined;
    const tick = setInterval(
      () => {
        if (!idle()) return;
        if (unlinkedAt === undefined) {
          // Unlink first: a CLI that finds no socket starts a new monitor (under the monitor lock).
          unlinkedAt = Date.now();
          try {
            if (statSync(socketPath).ino === socketIno) rmSync(socketPath, { force: true });
          } catch {}
          return;
        }
        if (Date.now() - unlinkedAt < UNLINK_GRACE_MS) return;
        clearInterval(tick);
        exit();
        resolve();
      },
      Math.min(1000, Math.max(50, idleMs / 4)),
    );
  });
}
