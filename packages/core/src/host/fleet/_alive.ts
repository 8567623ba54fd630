import { isProcessAlive, selfIdentity } from "../proc.ts";

/**
 * Whether a local pid names a live process (a zombie is gone). A foreground run records only
 * the pid of its ariel-spawn, not its start time, so a reused pid reads as alive: this only
 * decides what a view shows, never whom to signal.
 */
export function processAlive(pid: number): boolean {
  return isProcessAlive({ pid, processStart: null, host: selfIdentity().host });
}
