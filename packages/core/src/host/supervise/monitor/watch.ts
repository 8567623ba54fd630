import { loadConfig } from "../../../config.ts";
import { runPaths } from "../../../runs/paths.ts";
import { freeSpace } from "../../free_space.ts";
import { nodeFs } from "../../fs.ts";
import { capStream } from "../../runs/output.ts";
import { testPause } from "../../test-hooks.ts";
import { type Active, emit, log, type Monitor } from "./context.ts";

/** How often the monitor compares each live stream with the output cap (env overrides, for tests). */
const DEFAULT_OUTPUT_POLL_MS = 1000;
/** How often the monitor compares the free space with config minFreeBytes (env overrides, for tests). */
const DEFAULT_DISK_POLL_MS = 5000;

/**
 * Drop what is over the output cap from the head of the run's streams (one pass at a time per
 * run). A stream that cannot be capped is said once (monitor log, `output.uncapped` event) and
 * then kept whole.
 */
export function capRun(m: Monitor, a: Active): Promise<void> {
  a.capping ??= (async () => {
    try {
      for (const stream of ["stdout", "stderr"] as const) {
        if (a.uncapped.has(stream)) continue;
        const r = await capStream(runPaths(m.root, a.runId), stream, m.cap, m.puncher.punch);
        if (r === null || !("error" in r)) continue;
        a.uncapped.add(stream);
        log(`output cap of ${a.runId} ${stream}: ${r.error}; kept whole`);
        await emit(m, a.runId, "output.uncapped", null, { stream, cap: m.cap, reason: r.error });
      }
    } catch (e) {
      log(`output cap of ${a.runId}: ${(e as Error).message}`);
    } finally {
      await testPause("monitor:output-checked"); // a test counts the passes made (one line each)
      a.capping = null;
    }
  })();
  return a.capping;
}

/** Wait for a cap pass that may have looked before the child's last writes, then cap once more. */
export async function settleOutput(m: Monitor, a: Active): Promise<void> {
  await a.capping;
  await capRun(m, a);
}

/** Every poll interval, a cap pass for each active run that has none going. */
export function watchOutput(m: Monitor): ReturnType<typeof setInterval> {
  return setInterval(
    () => {
      for (const a of m.active.values()) if (a.capping === null) void capRun(m, a);
    },
    Number(process.env.ARIEL_RUN_OUTPUT_POLL_MS ?? DEFAULT_OUTPUT_POLL_MS),
  );
}

/**
 * While runs are active, compare the free space of the worktree root's filesystem with the
 * config's `minFreeBytes` (read again each time) and write one `disk.low` event to every active
 * run when it falls under it; once it is back above, the next fall is reported again.
 */
export function watchDisk(m: Monitor): ReturnType<typeof setInterval> {
  const root = m.root;
  let low = false;
  let checking = false;
  const check = async () => {
    const ids = [...m.active.keys()];
    if (ids.length === 0 || checking) return;
    checking = true;
    try {
      const config = await loadConfig(nodeFs, root).catch(() => null);
      const min = config?.minFreeBytes ?? 0;
      const space = min > 0 ? await freeSpace(config?.worktreeRoot ?? root) : null;
      if (space === null || space.free >= min) {
        low = false;
        return;
      }
      if (low) return;
      low = true;
      for (const id of ids) {
        await emit(m, id, "disk.low", null, { free: space.free, minFreeBytes: min, path: space.path });
      }
    } finally {
      await testPause("monitor:disk-checked"); // a test counts the checks made (one line each)
      checking = false;
    }
  };
  const t = setInterval(
    () => void check().catch(() => {}),
    Number(process.env.ARIEL_DISK_POLL_MS ?? DEFAULT_DISK_POLL_MS),
  );
  t.unref?.();
  return t;
}
