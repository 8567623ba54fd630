import { processStartTime } from "../proc.ts";

/** Whether a local pid names a live process (not a zombie). Never signals it. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (processStartTime(process.pid) !== null) return processStartTime(pid) !== null;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
