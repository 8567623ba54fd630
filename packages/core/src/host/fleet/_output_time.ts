import { lstatSync } from "node:fs";
import type { OutputStream } from "../../runs/backend.ts";
import { runPaths } from "../../runs/paths.ts";

/**
 * When a detached run's output just read was written, as well as the files can say: the time its
 * stream file last grew (looked at after the read, so never before the lines were written, and
 * never later than now); now when there is no such file (a k8s run's streamed log). Raw output
 * files hold no times, so a line is dated by the last write of its chunk: within a poll of the
 * write while following, and never at the time a replay reads it.
 *
 * @example
 * ```ts
 * outputTime("/ws", "20261202T110943Z-abc123", "stdout"); // "2026-12-02T11:09:44.120Z"
 * ```
 */
export function outputTime(root: string, runId: string, stream: OutputStream): string {
  const now = Date.now();
  const st = lstatSync(runPaths(root, runId)[stream], { throwIfNoEntry: false });
  return new Date(st?.isFile() ? Math.min(st.mtimeMs, now) : now).toISOString();
}
