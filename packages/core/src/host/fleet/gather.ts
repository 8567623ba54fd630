import { promises as fsp } from "node:fs";
import { compareBytewise } from "../../discovery/compare.ts";
import { discoverSources } from "../../discovery/discover.ts";
import type { Source } from "../../discovery/types.ts";
import { type FleetSnapshot, fleetSnapshot, type WorkspaceFacts } from "../../fleet/snapshot.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { taskOfStateFile, tasksDir } from "../../state_paths.ts";
import { nodeFs } from "../fs.ts";
import { selfIdentity } from "../proc.ts";
import { readTask } from "../worktree/store.ts";
import { type LoadedRun, type LoadOptions, loadRuns } from "./runs.ts";
import type { KnownWorkspace } from "./workspaces.ts";

/** A workspace's sources (discovery's defaults: the root and its direct children). */
export async function workspaceSources(root: string): Promise<Source[]> {
  return discoverSources(nodeFs, root);
}

/** A workspace's task records, and how many could not be read (corrupt or foreign). */
export async function workspaceTasks(ws: {
  root: string;
  hash: string;
}): Promise<{ tasks: TaskRecord[]; problems: number }> {
  const names = await fsp.readdir(tasksDir(ws.root)).catch(() => [] as string[]);
  const ids = names.map(taskOfStateFile).filter((t): t is string => t !== null);
  const tasks: TaskRecord[] = [];
  let problems = 0;
  for (const id of ids.sort(compareBytewise)) {
    try {
      const r = await readTask(ws.root, ws.hash, id);
      if (r) tasks.push(r);
    } catch {
      problems++;
    }
  }
  return { tasks, problems };
}

export interface GatheredWorkspace {
  facts: WorkspaceFacts;
  runs: LoadedRun[];
}

/** Everything the fleet shows about one workspace (a gone or unreadable root yields only that). */
export async function gatherWorkspace(
  ws: KnownWorkspace,
  options: LoadOptions = {},
): Promise<GatheredWorkspace> {
  const base = { root: ws.root, hash: ws.hash, origin: ws.origin };
  if (!ws.exists) return { facts: { ...base, exists: false }, runs: [] };
  try {
    await fsp.readdir(ws.root);
  } catch {
    return { facts: { ...base, exists: true, readable: false }, runs: [] };
  }
  const [sources, tasks, runs] = await Promise.all([
    workspaceSources(ws.root).catch(() => null),
    workspaceTasks(ws),
    loadRuns(ws, options),
  ]);
  return {
    facts: {
      ...base,
      exists: true,
      readable: sources !== null,
      sources: sources?.length ?? 0,
      taskStates: tasks.tasks.map((t) => t.state),
      runs: runs.runs.map((r) => r.view),
      problems: tasks.problems,
      skipped: runs.skipped,
    },
    runs: runs.runs,
  };
}

/** The FleetSnapshot of these workspaces, on this host, now. */
export async function gatherFleet(
  workspaces: readonly KnownWorkspace[],
  nowMs: number,
): Promise<FleetSnapshot> {
  // Counts by state: no run's last line is read.
  const facts = await Promise.all(
    workspaces.map(async (w) => (await gatherWorkspace(w, { lastLine: false })).facts),
  );
  return fleetSnapshot(selfIdentity().host, nowMs, facts);
}
