/**
 * Set-up shared by the data layer's tests that drive live runs: ariel-spawn's bundle (the run
 * monitor), a bounded wait, the monitors of a workspace (Linux's /proc), a kill that does not
 * mind a process already gone. Test-only.
 * @internal
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** ariel-spawn's bundle (`npm run build`), which the tests run as this process's `argv[1]`. */
export const SPAWN_BIN = fileURLToPath(new URL("../../../cli-spawn/dist/ariel-spawn.cjs", import.meta.url));

/** Wait until `check` holds, polling; an error naming `what` after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 15_000,
): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The run monitors of `dir` (their command lines name it; Linux's /proc). */
export function monitorsOf(dir: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
      if (argv.includes("--ariel-run-monitor") && argv.includes(dir)) pids.push(Number(p));
    } catch {}
  }
  return pids;
}

/** SIGKILL to `pid` (a negative one: its process group), if it is still there. */
export function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}
