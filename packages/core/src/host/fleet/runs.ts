import { promises as fsp, statSync } from "node:fs";
import { ArielError, isArielError } from "../../errors.ts";
import {
  detachedRun,
  type FleetRun,
  finishRunFold,
  foldRunEvents,
  newRunFold,
  type RunFold,
} from "../../fleet/run_view.ts";
import { quoteValue } from "../../names.ts";
import type { RunView } from "../../runs/backend.ts";
import { supersededKept } from "../../runs/kept.ts";
import { runPaths, runsDir } from "../../runs/paths.ts";
import { isExitState } from "../../runs/state.ts";
import { RUN_ID_PATTERN } from "../../spawn/run_id.ts";
import { selfIdentity } from "../proc.ts";
import { runAttention } from "../runs/activity.ts";
import { keptOnDisk } from "../runs/left.ts";
import { runsBackend } from "../supervise/backends/dispatch.ts";
import { processAlive } from "./_alive.ts";
import { type HistoryPosition, readHistory } from "./history.ts";
import { detachedLastLine } from "./last_output.ts";

/**
 * The fleet's one adapter onto runs: which runs a workspace has (foreground histories
 * `<runId>.ndjson` and detached run directories `<runId>/`), and each one's view, read through
 * the runs backend for a detached run. Every read goes to the files; nothing is cached.
 */

/** A workspace as the fleet addresses it. */
export interface FleetWorkspaceRef {
  root: string;
  hash: string;
}

/** A run id from a request or a flag, checked before it is joined to any path (else 65). */
export function checkRunId(id: string): string {
  if (!RUN_ID_PATTERN.test(id)) {
    throw new ArielError("ERR_INVALID_INPUT", `run id ${quoteValue(id)} is not a run id`, {
      hint: "run ids look like 20261202T110943Z-k3x9a2 (ariel-fleet status --json lists them)",
      context: { runId: id },
    });
  }
  return id;
}

/** What a workspace's runs directory holds for one run id. */
export interface RunEntries {
  /** `<runId>.ndjson` is a regular file. */
  history: boolean;
  /** `<runId>/` is a directory (a detached run). */
  dir: boolean;
}

/**
 * The runs of a workspace by id, oldest first: history files and run directories that are what
 * they say (a symbolic link is neither).
 */
export async function listFleetRuns(root: string): Promise<Map<string, RunEntries>> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await fsp.readdir(runsDir(root), { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return new Map();
    throw e;
  }
  const runs = new Map<string, RunEntries>();
  for (const e of entries) {
    const history = e.isFile() && e.name.endsWith(".ndjson");
    const id = history ? e.name.slice(0, -".ndjson".length) : e.isDirectory() ? e.name : "";
    if (!RUN_ID_PATTERN.test(id)) continue;
    const cur = runs.get(id) ?? { history: false, dir: false };
    runs.set(id, history ? { ...cur, history: true } : { ...cur, dir: true });
  }
  return new Map([...runs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The run ids of a workspace, oldest first. */
export async function listFleetRunIds(root: string): Promise<string[]> {
  return [...(await listFleetRuns(root)).keys()];
}

async function entriesOf(root: string, runId: string): Promise<RunEntries> {
  const p = runPaths(root, runId);
  const [h, d] = await Promise.all([
    fsp.lstat(p.history).catch(() => null),
    fsp.lstat(p.dir).catch(() => null),
  ]);
  return { history: h?.isFile() === true, dir: d?.isDirectory() === true };
}

export interface LoadedRun {
  view: FleetRun;
  /** History lines that were not fleet events. */
  skipped: number;
  /** The pid of the ariel-spawn that writes a foreground run's history (from its run.started). */
  ownerPid: number | null;
  /** The runs backend's view of a detached run; null for a foreground one. */
  detached: RunView | null;
}

interface CachedFold {
  size: number;
  mtimeMs: number;
  position: HistoryPosition;
  fold: RunFold;
  skipped: number;
}

/**
 * Folds of the histories read so far, by path. A history only grows, so a fold is valid while
 * the file's size and mtime are what they were, and otherwise goes on from where it stopped: a
 * snapshot reads only what was appended since the last one. It holds no state of its own: every
 * value comes from the file, and a file that shrank (replaced) is folded again from its start.
 */
const folds = new Map<string, CachedFold>();
const MAX_FOLDS = 20_000;

/** A history's fold, from the cache when the file has not changed. */
async function historyFold(path: string, ws: FleetWorkspaceRef, runId: string): Promise<CachedFold> {
  const st = statSync(path, { throwIfNoEntry: false });
  const size = st?.size ?? 0;
  const mtimeMs = st?.mtimeMs ?? 0;
  const cached = folds.get(path);
  if (cached && cached.size === size && cached.mtimeMs === mtimeMs) return cached;
  let cur: CachedFold =
    cached && size >= cached.size
      ? cached
      : { size: 0, mtimeMs: 0, position: { offset: 0, seq: 0 }, fold: newRunFold(ws, runId), skipped: 0 };
  for (;;) {
    const chunk = await readHistory(path, ws.hash, runId, cur.position);
    const moved = chunk.position.offset !== cur.position.offset;
    cur = {
      size: chunk.size,
      mtimeMs,
      position: chunk.position,
      fold: foldRunEvents(cur.fold, chunk.events),
      skipped: cur.skipped + chunk.skipped,
    };
    if (!moved || chunk.position.offset >= chunk.size) break;
  }
  if (folds.size >= MAX_FOLDS) folds.clear();
  // The fold covers the file up to its last whole line; a torn tail is read again next time.
  folds.set(path, { ...cur, size, mtimeMs: cur.position.offset === size ? mtimeMs : -1 });
  return cur;
}

/** The runs backend's view of a detached run, or null when it has no readable run.json. */
async function backendView(ws: FleetWorkspaceRef, runId: string): Promise<RunView | null> {
  try {
    return await runsBackend(ws.root, ws.hash).get(runId);
  } catch (e) {
    if (isArielError(e)) return null;
    throw e;
  }
}

/** What a read of runs skips: `lastLine: false` leaves a detached run's `lastLine` null, unread (a count of runs by state needs none). */
export interface LoadOptions {
  lastLine?: boolean;
}

/**
 * How long a detached run's directory may hold its first event without its run.json: the monitor
 * writes run.json once the child exists, so until then the run is `starting`; after this, `lost`.
 */
const DETACHED_START_MS = 30_000;

function startingDetached(startedAt: string | null): boolean {
  return startedAt !== null && Date.now() - Date.parse(startedAt) < DETACHED_START_MS;
}

/**
 * A run's events and view; null when the workspace has no such run. `entries` (from
 * {@link listFleetRuns}) saves looking at the directory again.
 */
export async function loadRun(
  ws: FleetWorkspaceRef,
  runId: string,
  entries?: RunEntries,
  options: LoadOptions = {},
): Promise<LoadedRun | null> {
  checkRunId(runId);
  const has = entries ?? (await entriesOf(ws.root, runId));
  const detached = has.dir ? await backendView(ws, runId) : null;
  if (!detached && !has.history) return null;
  const path = runPaths(ws.root, runId).history;
  const h = has.history ? await historyFold(path, ws, runId) : null;
  const fold = h?.fold ?? newRunFold(ws, runId);
  const skipped = h?.skipped ?? 0;
  if (detached) {
    // The fleet looks from anywhere: the next command names the workspace.
    const kept = keptOnDisk(detached, ws.root);
    const at = runAttention(ws.root, detached, Date.now());
    const last = options.lastLine === false ? null : await detachedLastLine(ws.root, detached);
    const view = {
      ...detachedRun(ws, detached, fold.run.lastSeq, kept, last),
      ...(at
        ? {
            activity: at.activity,
            attention: at.attention,
            ...(at.reported ? { reported: at.reported } : {}),
          }
        : {}),
    };
    return { view, skipped, ownerPid: null, detached };
  }
  const pid = fold.ownerPid;
  const alive = has.dir
    ? () => startingDetached(fold.run.startedAt)
    : () => pid !== null && (pid === selfIdentity().pid || processAlive(pid));
  return { view: finishRunFold(fold, { alive }), skipped, ownerPid: pid, detached: null };
}

/** Every run of a workspace with its view (oldest first), and how many history lines were skipped. */
export async function loadRuns(
  ws: FleetWorkspaceRef,
  options: LoadOptions = {},
): Promise<{ runs: LoadedRun[]; skipped: number }> {
  const runs: LoadedRun[] = [];
  let skipped = 0;
  for (const [id, entries] of await listFleetRuns(ws.root)) {
    const r = await loadRun(ws, id, entries, options);
    if (r === null) continue;
    runs.push(r);
    skipped += r.skipped;
  }
  // A kept worktree is the newest run's to name, and no one's while a run works in it.
  const detached = runs.flatMap((r) =>
    r.detached ? [{ ...r.detached.record, live: !isExitState(r.detached.state) }] : [],
  );
  const superseded = supersededKept(detached);
  for (const r of runs)
    if (r.detached && superseded.has(r.detached.record.runId)) r.view = { ...r.view, kept: null };
  return { runs, skipped };
}
