/**
 * What the UI shows, kept current without a polling loop: the workspaces (the fleet's registry,
 * or the one `-C` names), their runs (the fleet's views, host/fleet) and tasks, and the moves
 * their events make (the fleet's event stream, `FleetTail`, read when a watched directory
 * changes). Idle, nothing runs: a change under `.ariel/` wakes it; so does the next change of a
 * duration shown (at most once a minute).
 */
import { EventEmitter } from "node:events";
import { join } from "node:path";
import { type FleetEvent, type FleetRun, runsDir, startCursor, tasksDir, userStateDir } from "@ariel/core";
import {
  FleetTail,
  type KnownWorkspace,
  knownWorkspaces,
  loadRun,
  loadRuns,
  workspaceTasks,
} from "@ariel/core/host";
import { type Attention, type RunItem, runKey, type TaskItem, taskKey } from "../model/items.ts";
import { DirWatch } from "./watch.ts";

/** How long changes are gathered before one refresh (a busy run writes its output many times a second). */
const SETTLE_MS = 40;
/** At most this often while changes keep coming. */
const EVERY_MS = 150;

export interface FleetChange {
  /** Runs that moved into `waiting` in this refresh (the bell rings, the list marks them). */
  waiting: string[];
}

export interface FleetSourceOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** `-C DIR`: this workspace only (resolved by the caller). */
  only: KnownWorkspace | null;
}

interface WsWatch {
  runs: DirWatch;
  tasks: DirWatch;
  /** A live detached run's directory (run.json, exit.json, attention.json, its output). */
  dirs: Map<string, DirWatch>;
}

export class FleetSource extends EventEmitter {
  workspaces: KnownWorkspace[] = [];
  readonly runs = new Map<string, RunItem>();
  readonly tasks = new Map<string, TaskItem>();
  readonly #o: FleetSourceOptions;
  readonly #watches = new Map<string, WsWatch>();
  #registry: DirWatch | null = null;
  #tail: FleetTail | null = null;
  /** Runs to read again (key → its workspace and id); null: every run. */
  #dirty = new Map<string, { ws: KnownWorkspace; runId: string }>();
  #dirtyTasks = new Set<string>();
  #dirtyWorkspaces = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #lastRefresh = 0;
  #refreshing: Promise<void> | null = null;
  #closed = false;

  constructor(o: FleetSourceOptions) {
    super();
    this.#o = o;
  }

  /** Read everything once, then watch. */
  async start(): Promise<void> {
    this.#tail = new FleetTail(async () => this.workspaces, startCursor(Date.now()), { output: false });
    await this.#loadWorkspaces();
  }

  async #loadWorkspaces(): Promise<void> {
    const known = this.#o.only
      ? [this.#o.only]
      : (await knownWorkspaces(this.#o.env, this.#o.cwd)).workspaces;
    this.workspaces = known.filter((w) => w.exists);
    if (this.#o.only === null && this.#registry === null) {
      const home = userStateDir(this.#o.env, this.#o.cwd);
      if (home)
        this.#registry = new DirWatch(join(home, "workspaces"), () => this.#mark({ workspaces: true }));
    }
    for (const ws of this.workspaces) {
      if (this.#watches.has(ws.hash)) continue;
      this.#watches.set(ws.hash, {
        runs: new DirWatch(runsDir(ws.root), (file) => this.#runsChanged(ws, file)),
        tasks: new DirWatch(tasksDir(ws.root), () => this.#mark({ tasks: ws.hash })),
        dirs: new Map(),
      });
      await this.#loadAll(ws);
    }
  }

  async #loadAll(ws: KnownWorkspace): Promise<void> {
    const { runs } = await loadRuns(ws);
    for (const r of runs) this.#put(ws, r.view);
    await this.#loadTasks(ws);
  }

  async #loadTasks(ws: KnownWorkspace): Promise<void> {
    const { tasks } = await workspaceTasks(ws);
    for (const [k, t] of this.tasks) if (t.workspace.hash === ws.hash) this.tasks.delete(k);
    for (const t of tasks) {
      if (t.state !== "active") continue;
      const item: TaskItem = {
        kind: "task",
        key: taskKey(ws.hash, t.taskId),
        workspace: { root: ws.root, hash: ws.hash },
        taskId: t.taskId,
        state: t.state,
        legs: t.legs.map((l) => ({ source: l.source, branch: l.branch, state: l.state })),
        createdAt: (t as { createdAt?: string }).createdAt ?? null,
      };
      this.tasks.set(item.key, item);
    }
  }

  /** Keep a run's view; watch a live detached run's directory, stop watching an ended one's. */
  #put(ws: KnownWorkspace, view: FleetRun): void {
    const key = runKey(view);
    // A run first listed now keeps what this refresh's events said of it before it was listed.
    const had = this.runs.get(key) ?? this.#early.get(key);
    this.runs.set(key, {
      kind: "run",
      key,
      run: view,
      attention: viewAttention(view) ?? had?.attention ?? null,
      tool: view.reported?.lastTool?.name ?? had?.tool ?? null,
      fresh: had?.fresh ?? false,
    });
    const w = this.#watches.get(ws.hash);
    if (!w || view.kind !== "detached") return;
    const live = view.state === "starting" || view.state === "running";
    const dir = w.dirs.get(view.runId);
    if (live && !dir) {
      w.dirs.set(
        view.runId,
        new DirWatch(join(runsDir(ws.root), view.runId), () => this.#mark({ ws, runId: view.runId })),
      );
    } else if (!live && dir) {
      dir.close();
      w.dirs.delete(view.runId);
    }
  }

  #runsChanged(ws: KnownWorkspace, file: string | null): void {
    if (file === null) {
      this.#mark({ all: ws });
      return;
    }
    const runId = file.endsWith(".ndjson") ? file.slice(0, -".ndjson".length) : file;
    this.#mark({ ws, runId });
  }

  #mark(what: {
    ws?: KnownWorkspace;
    runId?: string;
    tasks?: string;
    workspaces?: boolean;
    all?: KnownWorkspace;
  }): void {
    if (what.ws && what.runId)
      this.#dirty.set(`${what.ws.hash}/${what.runId}`, { ws: what.ws, runId: what.runId });
    if (what.tasks) this.#dirtyTasks.add(what.tasks);
    if (what.workspaces) this.#dirtyWorkspaces = true;
    if (what.all) {
      this.#dirtyTasks.add(what.all.hash);
      for (const r of this.runs.values()) {
        if (r.run.workspace.hash === what.all.hash)
          this.#dirty.set(`${what.all.hash}/${r.run.runId}`, { ws: what.all, runId: r.run.runId });
      }
      this.#dirtyAll.add(what.all.hash);
    }
    this.#schedule();
  }

  #dirtyAll = new Set<string>();

  #schedule(): void {
    if (this.#timer !== null || this.#closed) return;
    const wait = Math.max(SETTLE_MS, EVERY_MS - (Date.now() - this.#lastRefresh));
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.refresh();
    }, wait);
  }

  /** Read what changed: the events since the last look, then the runs and tasks marked. */
  async refresh(): Promise<void> {
    if (this.#refreshing) {
      await this.#refreshing;
      return this.#schedule();
    }
    this.#refreshing = this.#refresh().finally(() => {
      this.#refreshing = null;
      this.#lastRefresh = Date.now();
    });
    return this.#refreshing;
  }

  async #refresh(): Promise<void> {
    if (this.#dirtyWorkspaces) {
      this.#dirtyWorkspaces = false;
      await this.#loadWorkspaces();
    }
    const events = this.#tail ? (await this.#tail.poll()).map((c) => c.event) : [];
    const waiting = this.#apply(events);
    for (const hash of this.#dirtyAll) {
      const ws = this.workspaces.find((w) => w.hash === hash);
      if (ws) {
        const { runs } = await loadRuns(ws);
        const ids = new Set(runs.map((r) => r.view.runId));
        for (const [k, r] of this.runs)
          if (r.run.workspace.hash === hash && !ids.has(r.run.runId)) this.#drop(k);
        for (const r of runs) this.#put(ws, r.view);
      }
    }
    this.#dirtyAll.clear();
    const dirty = [...this.#dirty.values()];
    this.#dirty.clear();
    for (const { ws, runId } of dirty) {
      const loaded = await loadRun(ws, runId).catch(() => null);
      if (loaded) this.#put(ws, loaded.view);
      else this.#drop(`run:${ws.hash}/${runId}`);
    }
    const tasks = [...this.#dirtyTasks];
    this.#dirtyTasks.clear();
    for (const hash of tasks) {
      const ws = this.workspaces.find((w) => w.hash === hash);
      if (ws) await this.#loadTasks(ws);
    }
    this.#early.clear();
    this.emit("change", { waiting } satisfies FleetChange);
  }

  #drop(key: string): void {
    const r = this.runs.get(key);
    this.runs.delete(key);
    if (!r) return;
    const w = this.#watches.get(r.run.workspace.hash);
    w?.dirs.get(r.run.runId)?.close();
    w?.dirs.delete(r.run.runId);
  }

  /** What events said of runs not listed yet, kept until the same refresh lists them (#put). */
  readonly #early = new Map<string, Pick<RunItem, "attention" | "tool" | "fresh">>();

  /** The events' moves: attention (why a run waits; the runs that began to wait), agent tools. */
  #apply(events: readonly FleetEvent[]): string[] {
    const waiting: string[] = [];
    for (const e of events) {
      const key = `run:${e.workspace}/${e.runId}`;
      const ws = this.workspaces.find((w) => w.hash === e.workspace);
      if (!ws) continue;
      this.#dirty.set(`${e.workspace}/${e.runId}`, { ws, runId: e.runId });
      const item =
        this.runs.get(key) ??
        this.#early.get(key) ??
        this.#early.set(key, { attention: null, tool: null, fresh: false }).get(key)!;
      if (e.event === "run.attention" && typeof e.to === "string") {
        const a: Attention = {
          to: e.to,
          reason: typeof e.reason === "string" ? e.reason : "",
          ...(e.by === "agent" || e.by === "screen" ? { source: e.by } : {}),
        };
        item.attention = a;
        item.fresh = a.to === "waiting";
        if (a.to === "waiting") waiting.push(key);
      } else if ((e.event as string) === "agent.tool" && typeof e.name === "string") {
        item.tool = e.name;
      }
    }
    return waiting;
  }

  /** Every live run read again (its activity by output timing, a monitor gone): the minute tick. */
  touchLive(): void {
    for (const r of this.runs.values()) {
      if (r.run.state !== "running" && r.run.state !== "starting") continue;
      const ws = this.workspaces.find((w) => w.hash === r.run.workspace.hash);
      if (ws) this.#dirty.set(`${ws.hash}/${r.run.runId}`, { ws, runId: r.run.runId });
    }
    this.#schedule();
  }

  /** Read a run again now (after an action on it): resolves once the list has it. */
  async touch(run: Pick<FleetRun, "workspace" | "runId">): Promise<void> {
    const ws = this.workspaces.find((w) => w.hash === run.workspace.hash);
    if (!ws) return;
    this.#dirty.set(`${ws.hash}/${run.runId}`, { ws, runId: run.runId });
    await this.refresh();
  }

  /** Read a workspace's tasks again, and the runs of `taskId` (a land or a removal changes what they kept). */
  touchTasks(hash: string, taskId?: string): void {
    const ws = this.workspaces.find((w) => w.hash === hash);
    for (const r of this.runs.values()) {
      if (ws && taskId !== undefined && r.run.workspace.hash === hash && r.run.task === taskId) {
        this.#dirty.set(`${hash}/${r.run.runId}`, { ws, runId: r.run.runId });
      }
    }
    this.#mark({ tasks: hash });
  }

  /**
   * Stop watching while a run is attached: the run's every echo is a write to its output file,
   * and a wakeup here for each would compete with the monitor for the echo (bench/tty.mjs).
   */
  pause(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#unwatch();
  }

  /** Watch again after an attach, and read every workspace again (what changed meanwhile). */
  resume(): void {
    void this.#loadWorkspaces().then(() => {
      for (const ws of this.workspaces) this.#mark({ all: ws });
    });
  }

  #unwatch(): void {
    this.#registry?.close();
    this.#registry = null;
    for (const w of this.#watches.values()) {
      w.runs.close();
      w.tasks.close();
      for (const d of w.dirs.values()) d.close();
    }
    this.#watches.clear();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#unwatch();
  }
}

/** A re-read live run's attention as its view says (who said so, why), when it says. */
function viewAttention(view: FleetRun): Attention | null {
  if (!view.activity || !view.attention) return null;
  const by = view.attention.by;
  return {
    to: view.activity,
    reason: view.attention.reason ?? "",
    ...(by === "agent" || by === "screen" ? { source: by } : {}),
  };
}
