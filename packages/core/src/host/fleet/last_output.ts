import { statSync } from "node:fs";
import { LAST_LINE_TAIL_BYTES, lastLine } from "../../fleet/last_line.ts";
import type { OutputStream, RunView } from "../../runs/backend.ts";
import { type RunPaths, runPaths } from "../../runs/paths.ts";
import { DEFAULT_TTY_SIZE } from "../../runs/tty.ts";
import { readOutputAt } from "../runs/output.ts";
import { ttyLastLine } from "./_tty_line.ts";

/** The last line of one stream, from its last {@link LAST_LINE_TAIL_BYTES} bytes (never the whole file). */
function streamLastLine(paths: RunPaths, stream: OutputStream, tty: boolean): string | null {
  const size = readOutputAt(paths, stream, 0, 0).size;
  const r = readOutputAt(paths, stream, Math.max(0, size - LAST_LINE_TAIL_BYTES), LAST_LINE_TAIL_BYTES);
  // A tail may begin inside a character: from its first whole one.
  let from = 0;
  while (r.start > 0 && from < r.bytes.length && (r.bytes[from]! & 0xc0) === 0x80) from++;
  return lastLine(new TextDecoder().decode(r.bytes.subarray(from)), { tty });
}

const mtime = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;

/**
 * A detached run's last line of output (the fleet's run view): a tty run's, the last non-blank
 * row of its screen ({@link ttyLastLine}; the tail read as text when the terminal emulator does
 * not load); a piped run's, of the stream written last, the other's when that one has none. Null
 * for a run whose output is not in its run directory (a k8s run's is in its pod).
 */
export async function detachedLastLine(root: string, view: RunView): Promise<string | null> {
  if (view.record.backend !== "local") return null;
  const paths = runPaths(root, view.record.runId);
  if (view.record.tty) {
    const live = view.state === "starting" || view.state === "running";
    return ttyLastLine(paths, view.record.tty ?? DEFAULT_TTY_SIZE, live).catch(() =>
      streamLastLine(paths, "stdout", true),
    );
  }
  const order: OutputStream[] =
    mtime(paths.stderr) > mtime(paths.stdout) ? ["stderr", "stdout"] : ["stdout", "stderr"];
  for (const stream of order) {
    const line = streamLastLine(paths, stream, false);
    if (line !== null) return line;
  }
  return null;
}
