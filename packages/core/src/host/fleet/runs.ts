import { promises as fsp } from "node:fs";
import { ArielError, isArielError } from "../../errors.ts";
import type { FleetEvent } from "../../fleet/events.ts";
import { detachedRun, type FleetRun, foregroundRun } from "../../fleet/run_view.ts";
import { quoteValue } from "../../names.ts";
import type { RunView } from "../../runs/backend.ts";
import { runPaths, runsDir } from "../../runs/paths.ts";
import { RUN_ID_PATTERN } from "../../spawn/run_id.ts";
import { selfIdentity } from "../proc.ts";
import { localBackend } from "../runs/local.ts";
import { processAlive } from "./_alive.ts";
import { readAllHistory } from "./history.ts";

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

/**
 * The run ids of a workspace, oldest first: history files and run directories that are what
 * they say (a symbolic link is neither).
 */
export async function listFleetRunIds(root: string): Promise<string[]> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await fsp.readdir(runsDir(root), { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw e;
  }
  const ids = new Set<string>();
  for (const e of entries) {
    const id =
      e.isFile() && e.name.endsWith(".ndjson")
        ? e.name.slice(0, -".ndjson".length)
        : e.isDirectory()
          ? e.name
          : "";
    if (RUN_ID_PATTERN.test(id)) ids.add(id);
  }
  return [...ids].sort();
}

export interface LoadedRun {
  view: FleetRun;
  /** Its history's events (a detached run's output is not in them: see followRun). */
  events: FleetEvent[];
  skipped: number;
  /** The runs backend's view of a detached run; null for a foreground one. */
  detached: RunView | null;
}

/** The pid that owns a foreground run (ariel-spawn's own, from its `run.started`). */
export function ownerPid(events: readonly FleetEvent[]): number | null {
  const started = events.find((e) => e.event === "run.started");
  return typeof started?.pid === "number" ? started.pid : null;
}

/** The runs backend's view of a detached run, or null when it has no readable run.json. */
async function backendView(ws: FleetWorkspaceRef, runId: string): Promise<RunView | null> {
  const dir = await fsp.lstat(runPaths(ws.root, runId).dir).catch(() => null);
  if (!dir?.isDirectory()) return null;
  try {
    return await localBackend(ws.root, ws.hash).get(runId);
  } catch (e) {
    if (isArielError(e)) return null;
    throw e;
  }
}

/** A run's events and view; null when the workspace has no such run. */
export async function loadRun(ws: FleetWorkspaceRef, runId: string): Promise<LoadedRun | null> {
  checkRunId(runId);
  const path = runPaths(ws.root, runId).history;
  const detached = await backendView(ws, runId);
  const file = await fsp.lstat(path).catch(() => null);
  if (!detached && !file?.isFile()) return null;
  const chunk = file?.isFile() ? await readAllHistory(path, ws.hash, runId) : { events: [], skipped: 0 };
  if (detached) {
    const lastSeq = chunk.events.at(-1)?.seq ?? 0;
    return {
      view: detachedRun(ws.hash, detached, lastSeq),
      events: chunk.events,
      skipped: chunk.skipped,
      detached,
    };
  }
  const pid = ownerPid(chunk.events);
  const alive = pid !== null && (pid === selfIdentity().pid || processAlive(pid));
  return {
    view: foregroundRun(ws.hash, runId, chunk.events, { alive }),
    events: chunk.events,
    skipped: chunk.skipped,
    detached: null,
  };
}

/** Every run of a workspace with its view (oldest first), and how many history lines were skipped. */
export async function loadRuns(ws: FleetWorkspaceRef): Promise<{ runs: LoadedRun[]; skipped: number }> {
  const runs: LoadedRun[] = [];
  let skipped = 0;
  for (const id of await listFleetRunIds(ws.root)) {
    const r = await loadRun(ws, id);
    if (r === null) continue;
    runs.push(r);
    skipped += r.skipped;
  }
  return { runs, skipped };
}
