/**
 * What the list shows: the fleet's runs and tasks as items, each in one of three groups, and the
 * rows they make (a header per group, then its items, a task's runs under it). Pure: the app
 * hands in the runs and tasks it read and the time; tests pin the rows.
 */
import type { FleetRun } from "@ariel/core";

/** The three groups, in the order shown (docs/decisions/0096-dash-run-groups.md, as the dashboard). */
export const GROUPS = ["needs", "running", "ended"] as const;
export type Group = (typeof GROUPS)[number];

export const GROUP_TITLES: Record<Group, string> = {
  needs: "Needs you",
  running: "Running",
  ended: "Ended",
};

/** The last `run.attention` move a run made (from the fleet's event stream). */
export interface Attention {
  to: string;
  /** Why: `pattern: …`, `quiet`, `output`, or (agent reports) the agent's own words. */
  reason: string;
  /** `agent` or `screen` when the event says (agent-reported attention); absent before that. */
  source?: string;
}

/** A run as the list knows it: the fleet's view, plus what its events said. */
export interface RunItem {
  kind: "run";
  key: string;
  run: FleetRun;
  attention: Attention | null;
  /** The last tool an agent reported using (`agent.tool` events), when it reports any. */
  tool: string | null;
  /** It moved into waiting since it was last selected: marked in the list. */
  fresh: boolean;
}

/** A task (its record's legs), shown when it is active. */
export interface TaskItem {
  kind: "task";
  key: string;
  workspace: { root: string; hash: string };
  taskId: string;
  state: string;
  legs: { source: string; branch: string; state: string }[];
  createdAt: string | null;
}

export type Item = RunItem | TaskItem;

export type Row =
  | { kind: "header"; group: Group; count: number }
  | { kind: "item"; item: Item; depth: 0 | 1 }
  | { kind: "empty"; text: string };

export const runKey = (r: Pick<FleetRun, "workspace" | "runId">) => `run:${r.workspace.hash}/${r.runId}`;
export const taskKey = (hash: string, taskId: string) => `task:${hash}/${taskId}`;

const LIVE = new Set(["starting", "running"]);

/** A run's group: waiting, failed, lost or crashed, or a kept worktree: needs you; live: running. */
export function runGroup(r: FleetRun): Group {
  if (LIVE.has(r.state)) return r.activity === "waiting" ? "needs" : "running";
  if (r.state === "failed" || r.state === "lost" || r.state === "crashed" || r.kept !== null) return "needs";
  return "ended";
}

/**
 * A task's group: needs you while a run of it waits; running while any run of it is live; else
 * it waits for a person all the same (review, land, remove): needs you.
 */
export function taskGroup(runs: readonly FleetRun[]): Group {
  if (runs.some((r) => LIVE.has(r.state) && r.activity === "waiting")) return "needs";
  return runs.some((r) => LIVE.has(r.state)) ? "running" : "needs";
}

function when(item: Item): number {
  if (item.kind === "task") return Date.parse(item.createdAt ?? "") || 0;
  const r = item.run;
  return Date.parse((LIVE.has(r.state) ? r.startedAt : (r.endedAt ?? r.startedAt)) ?? "") || 0;
}

/** What an item is shown with: its task, else the ariel-spawn call that started it, else itself. */
function cluster(item: Item): string {
  if (item.kind === "task") return `t:${item.workspace.hash}/${item.taskId}`;
  const r = item.run;
  if (r.task) return `t:${r.workspace.hash}/${r.task}`;
  return `g:${r.workspace.hash}/${r.group ?? r.runId}`;
}

/** Does `item` match the filter text (name, id, source, task, command, state, activity)? */
export function matches(item: Item, filter: string): boolean {
  if (filter === "") return true;
  const f = filter.toLowerCase();
  const hay =
    item.kind === "task"
      ? [item.taskId, ...item.legs.map((l) => l.source), item.state]
      : [
          item.run.name ?? "",
          item.run.runId,
          ...item.run.sources,
          item.run.task ?? "",
          item.run.argv.join(" "),
          item.run.state,
          item.run.activity ?? "",
        ];
  return hay.some((h) => h.toLowerCase().includes(f));
}

/**
 * The list's rows: each group's header (Needs you always, saying so when empty; the others when
 * they have items), then its items newest first, clustered by task or spawn call (a cluster
 * where its newest item would be), a task's runs under the task.
 */
export function buildRows(runs: readonly RunItem[], tasks: readonly TaskItem[], filter: string): Row[] {
  const byTask = new Map<string, FleetRun[]>();
  for (const r of runs) {
    if (r.run.task) {
      const k = `t:${r.run.workspace.hash}/${r.run.task}`;
      byTask.set(k, [...(byTask.get(k) ?? []), r.run]);
    }
  }
  const items: { item: Item; group: Group }[] = [
    ...tasks.map((t) => ({ item: t as Item, group: taskGroup(byTask.get(cluster(t)) ?? []) })),
    ...runs.map((r) => ({ item: r as Item, group: runGroup(r.run) })),
  ].filter((x) => matches(x.item, filter));
  const rows: Row[] = [];
  for (const group of GROUPS) {
    const mine = items.filter((x) => x.group === group).map((x) => x.item);
    if (mine.length === 0 && group !== "needs") continue;
    rows.push({ kind: "header", group, count: mine.length });
    if (mine.length === 0) rows.push({ kind: "empty", text: "Nothing is waiting for you." });
    const newest = new Map<string, number>();
    for (const i of mine) newest.set(cluster(i), Math.max(newest.get(cluster(i)) ?? 0, when(i)));
    const sorted = [...mine].sort(
      (a, b) =>
        newest.get(cluster(b))! - newest.get(cluster(a))! ||
        (cluster(a) < cluster(b) ? -1 : cluster(a) > cluster(b) ? 1 : 0) ||
        (a.kind === "task" ? -1 : 0) - (b.kind === "task" ? -1 : 0) ||
        when(b) - when(a) ||
        (a.key < b.key ? -1 : 1),
    );
    const taskHere = new Set(sorted.filter((i) => i.kind === "task").map(cluster));
    for (const item of sorted) {
      const depth = item.kind === "run" && taskHere.has(cluster(item)) ? 1 : 0;
      rows.push({ kind: "item", item, depth });
    }
  }
  return rows;
}
