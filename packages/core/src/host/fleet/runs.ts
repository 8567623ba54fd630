import { promises as fsp } from "node:fs";
import { ArielError } from "../../errors.ts";
import type { FleetEvent } from "../../fleet/events.ts";
import { deriveRun, type RunView } from "../../fleet/run_view.ts";
import { quoteValue } from "../../names.ts";
import { RUN_ID_PATTERN } from "../../spawn/run_id.ts";
import { selfIdentity } from "../proc.ts";
import { processAlive } from "./_alive.ts";
import { type HistoryChunk, readAllHistory } from "./history.ts";

/**
 * The fleet's one adapter onto runs: which runs a workspace has, where a run's history lies, and
 * its view. Every read goes to the files under `<root>/.ariel/runs/`; nothing is cached.
 */

/** A workspace as the fleet addresses it. */
export interface FleetWorkspaceRef {
  root: string;
  hash: string;
}

/** `<root>/.ariel/runs` */
export function runsDir(root: string): string {
  return `${root}/.ariel/runs`;
}

/** The history file of a run: `<root>/.ariel/runs/<runId>.ndjson`. */
export function historyPath(root: string, runId: string): string {
  return `${runsDir(root)}/${runId}.ndjson`;
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

/** The run ids of a workspace, oldest first: its history files that are regular files (no link). */
export async function listRunIds(root: string): Promise<string[]> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await fsp.readdir(runsDir(root), { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw e;
  }
  const ids: string[] = [];
  for (const e of entries) {
    if (!e.isFile() || !e.name.endsWith(".ndjson")) continue;
    const id = e.name.slice(0, -".ndjson".length);
    if (RUN_ID_PATTERN.test(id)) ids.push(id);
  }
  return ids.sort();
}

export interface LoadedRun {
  view: RunView;
  events: FleetEvent[];
  skipped: number;
}

/** The pid that owns a foreground run (ariel-spawn's own, from its `run.started`). */
function ownerPid(events: readonly FleetEvent[]): number | null {
  const started = events.find((e) => e.event === "run.started");
  return typeof started?.pid === "number" ? started.pid : null;
}

/** A run's events and view; null when the workspace has no such run. */
export async function loadRun(ws: FleetWorkspaceRef, runId: string): Promise<LoadedRun | null> {
  checkRunId(runId);
  const path = historyPath(ws.root, runId);
  const st = await fsp.lstat(path).catch(() => null);
  if (!st?.isFile()) return null;
  const chunk: HistoryChunk = await readAllHistory(path, ws.hash, runId);
  const pid = ownerPid(chunk.events);
  const alive = pid !== null && (pid === selfIdentity().pid || processAlive(pid));
  return {
    view: deriveRun(ws.hash, runId, chunk.events, { alive }),
    events: chunk.events,
    skipped: chunk.skipped,
  };
}

/** Every run of a workspace with its view (oldest first), and how many history lines were skipped. */
export async function loadRuns(ws: FleetWorkspaceRef): Promise<{ runs: LoadedRun[]; skipped: number }> {
  const runs: LoadedRun[] = [];
  let skipped = 0;
  for (const id of await listRunIds(ws.root)) {
    const r = await loadRun(ws, id);
    if (r === null) continue;
    runs.push(r);
    skipped += r.skipped;
  }
  return { runs, skipped };
}
