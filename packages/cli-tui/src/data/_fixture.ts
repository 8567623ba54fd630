/**
 * Set-up shared by the data layer's tests that drive live runs: ariel-spawn's bundle (the run
 * monitor), a bounded wait, the monitors of a workspace (Linux's /proc), a kill that does not
 * mind a process already gone. Test-only.
 * @internal
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { processGone } from "../../../core/src/host/_fixture.ts";

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

/** The exit.json of run `runId` that exited 0 at `endedAt`. */
export function exited(runId: string, endedAt = "2026-12-02T11:10:00.000Z") {
  return {
    v: 1 as const,
    type: "exit" as const,
    runId,
    code: 0,
    signal: null,
    status: 0,
    endedAt,
    state: "exited" as const,
    reason: null,
  };
}

/**
 * Live runs for each test of the describe that calls this: ariel-spawn's bundle is the monitor
 * (run by this process as `process.argv[1]`). After each test, before the describe's own
 * afterEach hooks registered earlier, the process groups of every run recorded in the
 * workspaces `roots()` gives and those `groups()` gives are killed, then every monitor of those
 * workspaces (each must be gone).
 */
export function useLiveRuns(roots: () => readonly string[], groups: () => number[] = () => []): void {
  const argv1 = process.argv[1];
  beforeAll(() => {
    process.argv[1] = SPAWN_BIN;
  });
  afterAll(() => {
    process.argv[1] = argv1 as string;
  });
  afterEach(async () => {
    const pgids = [...groups()];
    for (const root of roots()) {
      const runs = join(root, ".ariel/runs");
      for (const id of existsSync(runs) ? readdirSync(runs) : []) {
        const file = join(runs, id, "run.json");
        const child = existsSync(file)
          ? (JSON.parse(readFileSync(file, "utf8")).child as { pgid: number } | null)
          : null;
        if (child) pgids.push(child.pgid);
      }
    }
    for (const pgid of pgids) signal(-pgid);
    for (const root of roots()) {
      for (const pid of monitorsOf(root)) {
        signal(pid);
        expect(await processGone(pid)).toBe(true);
      }
    }
  });
}
