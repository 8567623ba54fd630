import { lastLine } from "../../fleet/last_line.ts";
import type { RunPaths } from "../../runs/paths.ts";
import type { TtySize } from "../../runs/tty.ts";
import { readOutputAt } from "../runs/output.ts";
import { Screen } from "../supervise/screen.ts";

/**
 * A tty run's last line as its terminal shows it: the last non-blank row of its screen, the
 * stream rendered into a terminal of the run's size (as `ariel-runs screen` does). The screen is
 * kept per run and fed only what was appended since the last look, so a refresh reads the new
 * bytes alone; a first look renders the last {@link FIRST_LOOK_BYTES}. An ended run keeps only its
 * line.
 */

/** What a first look renders (what was written before has scrolled away, but for modes it set). */
const FIRST_LOOK_BYTES = 256 * 1024;
/** Runs whose screen or line is kept; past it every one is dropped (they are read again). */
const MAX_KEPT = 200;

interface Kept {
  size: number;
  cols: number;
  rows: number;
  screen: Screen | null;
  line: string | null;
}

const kept = new Map<string, Promise<Kept>>();

/** Feed `screen` the stream's bytes from `from` to `to`. */
async function feed(paths: RunPaths, screen: Screen, from: number, to: number): Promise<void> {
  for (let at = from; at < to; ) {
    const r = readOutputAt(paths, "stdout", at, Math.min(1 << 20, to - at));
    if (r.bytes.length === 0) break;
    screen.write(r.bytes);
    at = r.start + r.bytes.length;
  }
  await screen.flush();
}

async function look(paths: RunPaths, size: TtySize, live: boolean, had: Kept | null): Promise<Kept> {
  const end = readOutputAt(paths, "stdout", 0, 0).size;
  const same = had !== null && had.cols === size.cols && had.rows === size.rows;
  if (same && had.size === end && had.screen === null && !live) return had;
  if (same && had.size === end && had.screen !== null) {
    if (live) return had;
    had.screen.dispose();
    return { ...had, screen: null };
  }
  const goOn = same && had.screen !== null && end >= had.size && end - had.size <= FIRST_LOOK_BYTES;
  if (!goOn) had?.screen?.dispose();
  const screen = goOn ? had.screen! : await Screen.open(size);
  const from = goOn ? had.size : Math.max(0, end - FIRST_LOOK_BYTES);
  await feed(paths, screen, from, end);
  const line = lastLine(screen.lines().join("\n"));
  if (live) return { size: end, ...size, screen, line };
  screen.dispose();
  return { size: end, ...size, screen: null, line };
}

/** The run's last screen line (`live`: it may still write, keep its screen for the next look). */
export function ttyLastLine(paths: RunPaths, size: TtySize, live: boolean): Promise<string | null> {
  const before = kept.get(paths.stdout);
  if (!before && kept.size >= MAX_KEPT) {
    for (const p of kept.values())
      void p.then(
        (k) => k.screen?.dispose(),
        () => {},
      );
    kept.clear();
  }
  // One look at a time per run: a second request waits for the first and goes on from it.
  const next = (before ?? Promise.resolve(null))
    .catch(() => null)
    .then((had) => look(paths, size, live, had));
  kept.set(paths.stdout, next);
  return next.then((k) => k.line);
}
