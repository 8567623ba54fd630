import { lstatSync } from "node:fs";
import { isArielError } from "../../errors.ts";
import {
  advanceCursor,
  advanceOutput,
  compareEvents,
  cursorAdmits,
  type FleetCursor,
  formatCursor,
  keyOf,
  pinRun,
} from "../../fleet/cursor.ts";
import { closesRun, type FleetEvent, outputEvent } from "../../fleet/events.ts";
import type { OutputStream, RunBackend, RunView } from "../../runs/backend.ts";
import { splitRead } from "../../runs/chunks.ts";
import { runPaths } from "../../runs/paths.ts";
import { FINAL_STATES } from "../../runs/state.ts";
import { sleep } from "../proc.ts";
import { runsBackend } from "../supervise/backends/dispatch.ts";
import { outputTime } from "./_output_time.ts";
import { type HistoryPosition, readHistory } from "./history.ts";
import { listFleetRuns } from "./runs.ts";
import type { KnownWorkspace } from "./workspaces.ts";

/** How often the fleet looks at the files again while following. */
export const FLEET_POLL_MS = 100;

/** How often a tail reads the workspace registry again (a new workspace shows up within this). */
const WORKSPACES_EVERY_MS = 2_000;

/** A live detached run's state is asked for again every this many polls (a lost monitor shows). */
const STATE_EVERY_POLLS = 10;

/** A run final without its closing history events (its monitor died) is drained after this long. */
const SETTLE_MS = 3_000;

/** Bytes of an output stream read per look. */
const OUTPUT_CHUNK = 1 << 20;

const STREAMS: readonly OutputStream[] = ["stdout", "stderr"];

/** An event with the cursor that resumes right after it. */
export interface CursoredEvent {
  event: FleetEvent;
  cursor: string;
}

interface FileState {
  position: HistoryPosition;
  mtimeMs: number;
}

/** Where the tail is in a detached run's output files. */
interface OutputState {
  /** The next byte to read of each stream. */
  at: Record<OutputStream, number>;
  /** History events from the first closing one on, held until the output is drained. */
  held: FleetEvent[];
  /** Final and drained: only its history is read from now on. */
  done: boolean;
  polls: number;
  /** Since when the runs backend has said the run is final (null: not final). */
  finalSince: number | null;
}

/** One event of a poll, and what it moves in the cursor: a history seq, or an output offset. */
export interface TailItem {
  event: FleetEvent;
  /** For a detached run's output line: its stream… */
  stream?: OutputStream;
  /** …and the stream's offset after the line. */
  next?: number;
}
type Item = TailItem;

export interface FleetTailOptions {
  /** Read detached runs' stdout/stderr files (default true); off when the reader drops output. */
  output?: boolean;
}

/** Merge per-run queues by each queue's head in fleet order; each run keeps its own order. */
function merge(queues: Item[][]): Item[] {
  const out: Item[] = [];
  const at = queues.map(() => 0);
  for (;;) {
    let best = -1;
    for (let i = 0; i < queues.length; i++) {
      const head = queues[i]![at[i]!];
      if (head === undefined) continue;
      if (best < 0 || compareEvents(head.event, queues[best]![at[best]!]!.event) < 0) best = i;
    }
    if (best < 0) return out;
    out.push(queues[best]![at[best]!++]!);
  }
}

/** The runs backend's view of a detached run, or null when its run.json cannot be read. */
async function viewOf(backend: RunBackend, runId: string): Promise<RunView | null> {
  try {
    return await backend.get(runId);
  } catch (e) {
    if (isArielError(e)) return null;
    throw e;
  }
}

/**
 * The fleet-wide event stream over every workspace's runs. Each {@link poll} reads what was
 * appended since the last one to the history files and to detached runs' stdout/stderr files,
 * keeps what the cursor admits, and returns it in fleet order (time, workspace, run, seq; each
 * run's own events in their order, a detached run's output before the events that close it)
 * with the cursor after each event.
 *
 * A detached run's output lines carry no time: they are `output` events dated by their stream
 * file's last write ({@link outputTime}), and the cursor holds the byte offset reached in each
 * stream. A run without an entry in the cursor
 * has all its output taken when it began at or after the cursor's start, else only what is
 * written after the first look (then its place is pinned in the cursor at once, so a resume is
 * exact).
 *
 * @example
 * ```ts
 * const tail = new FleetTail(() => known(), startCursor(0));
 * for (const { event, cursor } of await tail.poll()) console.log(cursor, event.event);
 * ```
 */
/** How much older than its newest event a file's mtime can read (see {@link FleetTail}). */
const MTIME_SLACK_MS = 2_000;

export class FleetTail {
  #files = new Map<string, FileState>();
  #outputs = new Map<string, OutputState>();
  #backends = new Map<string, RunBackend>();
  #cursor: FleetCursor;
  #workspaces: () => Promise<readonly KnownWorkspace[]>;
  #list: readonly KnownWorkspace[] | null = null;
  #listedAt = 0;
  #output: boolean;
  /** Lines skipped so far (not fleet events). */
  skipped = 0;

  constructor(
    workspaces: () => Promise<readonly KnownWorkspace[]>,
    cursor: FleetCursor,
    options: FleetTailOptions = {},
  ) {
    this.#workspaces = workspaces;
    this.#cursor = cursor;
    this.#output = options.output ?? true;
  }

  get cursor(): string {
    return formatCursor(this.#cursor);
  }

  /** The workspaces, asked for again at most every {@link WORKSPACES_EVERY_MS}. */
  async #known(): Promise<readonly KnownWorkspace[]> {
    const now = Date.now();
    if (this.#list === null || now - this.#listedAt >= WORKSPACES_EVERY_MS) {
      this.#list = await this.#workspaces();
      this.#listedAt = now;
    }
    return this.#list;
  }

  #backend(ws: KnownWorkspace): RunBackend {
    let b = this.#backends.get(ws.hash);
    if (!b) {
      b = runsBackend(ws.root, ws.hash);
      this.#backends.set(ws.hash, b);
    }
    return b;
  }

  /** What the cursor admits of a run's history appended since the last poll, and where it got to. */
  async #history(
    ws: KnownWorkspace,
    runId: string,
    always: boolean,
  ): Promise<{ events: FleetEvent[]; seq: number }> {
    const path = runPaths(ws.root, runId).history;
    const key = keyOf({ workspace: ws.hash, runId });
    // Synchronous: one stat per history and poll, and a promise each would cost more than the stat.
    const st = lstatSync(path, { throwIfNoEntry: false });
    const known = this.#files.get(key);
    if (!st?.isFile()) return { events: [], seq: known?.position.seq ?? 0 };
    if (known && known.mtimeMs === st.mtimeMs && known.position.offset === st.size) {
      return { events: [], seq: known.position.seq };
    }
    // A file untouched since well before the cursor's start, of a run not delivered yet, holds
    // nothing new: skip reading it until it changes. "Well before": a file's mtime comes from a
    // coarser clock than Date.now() (a kernel tick late, or whole seconds on some filesystems), so
    // an event written at the start itself can sit in a file stamped a little earlier.
    if (
      !always &&
      !known &&
      !this.#cursor.seen.has(key) &&
      st.mtimeMs < this.#cursor.since - MTIME_SLACK_MS
    ) {
      return { events: [], seq: 0 };
    }
    const chunk = await readHistory(path, ws.hash, runId, known?.position);
    this.skipped += chunk.skipped;
    this.#files.set(key, { position: chunk.position, mtimeMs: st.mtimeMs });
    return { events: chunk.events.filter((e) => cursorAdmits(this.#cursor, e)), seq: chunk.position.seq };
  }

  /**
   * A detached run's queue: its history events, its output lines read since the last poll, and
   * the events that close its history once the run is final and its output drained.
   */
  async #detached(ws: KnownWorkspace, runId: string, history: FleetEvent[], seq: number): Promise<Item[]> {
    const key = keyOf({ workspace: ws.hash, runId });
    let o = this.#outputs.get(key);
    if (o?.done) return history.map((event) => ({ event }));
    const backend = this.#backend(ws);
    let view: RunView | null = null;
    if (o === undefined) {
      view = await viewOf(backend, runId);
      if (view === null) return history.map((event) => ({ event }));
      const entry = this.#cursor.seen.get(key);
      const began = Date.parse(view.record.startedAt ?? view.record.createdAt);
      // Over for good: a final state and its closing events written (a run just started can
      // read `lost` for a moment, before its monitor is recorded).
      const over = FINAL_STATES.has(view.state) && history.some(closesRun);
      let at = { stdout: 0, stderr: 0 };
      if (entry) at = { stdout: entry.stdout, stderr: entry.stderr };
      else if (!(began >= this.#cursor.since)) {
        // Begun before the start: its lines so far cannot be dated, so take only what comes next,
        // and pin that place (and the history seq reached) in the cursor for an exact resume.
        for (const s of STREAMS) at[s] = (await backend.readOutput(runId, s, 0, 0)).size;
        // An ended run is pinned only when it has events to give: a cursor names no run it never showed.
        if (!over || history.length > 0) {
          const pinSeq = history.length > 0 ? history[0]!.seq - 1 : seq;
          this.#cursor = pinRun(this.#cursor, { workspace: ws.hash, runId }, { seq: pinSeq, ...at });
        }
      }
      o = { at, held: [], done: false, polls: 0, finalSince: null };
      this.#outputs.set(key, o);
    }
    const items: Item[] = [];
    for (const event of history) {
      if (o.held.length > 0 || closesRun(event)) o.held.push(event);
      else items.push({ event });
    }
    if (
      view === null &&
      (o.held.length > 0 || o.finalSince !== null || ++o.polls % STATE_EVERY_POLLS === 0)
    ) {
      view = await viewOf(backend, runId);
    }
    if (view !== null) o.finalSince = FINAL_STATES.has(view.state) ? (o.finalSince ?? Date.now()) : null;
    // Final once its closing events are written, or when it stayed final that long without them
    // (a monitor that died): then the output is drained, a torn last line included.
    const final = o.finalSince !== null && (o.held.length > 0 || Date.now() - o.finalSince > SETTLE_MS);
    for (const stream of STREAMS) {
      for (;;) {
        const r = await backend.readOutput(runId, stream, o.at[stream], OUTPUT_CHUNK);
        if (r.bytes.length === 0) break;
        const ts = outputTime(ws.root, runId, stream);
        const atEnd = r.start + r.bytes.length >= r.size;
        const { lines, next } = splitRead(r.bytes, r.start, final && atEnd, OUTPUT_CHUNK);
        for (let i = 0; i < lines.length; i++) {
          const event = outputEvent(ws.hash, runId, stream, lines[i]!, ts);
          items.push({ event, stream, next: lines[i + 1]?.seq ?? next });
        }
        o.at[stream] = next;
        if (lines.length === 0 || atEnd) break;
      }
    }
    if (final) {
      for (const event of o.held) items.push({ event });
      o.held = [];
      o.done = true;
    }
    return items;
  }

  /** What is new since the last poll, in fleet order, each with the cursor after it. */
  async poll(): Promise<CursoredEvent[]> {
    return (await this.#gather()).map((item) => {
      this.#advance(item);
      return { event: item.event, cursor: formatCursor(this.#cursor) };
    });
  }

  /**
   * {@link poll} without a cursor text per event: what each event moves in the cursor instead
   * (the fleet server's shared reader keeps a cursor per client).
   */
  async pollItems(): Promise<TailItem[]> {
    const items = await this.#gather();
    for (const item of items) this.#advance(item);
    return items;
  }

  #advance({ event, stream, next }: Item): void {
    this.#cursor =
      stream === undefined
        ? advanceCursor(this.#cursor, event)
        : advanceOutput(this.#cursor, event, stream, next!);
  }

  async #gather(): Promise<Item[]> {
    const queues: Item[][] = [];
    for (const ws of await this.#known()) {
      if (!ws.exists) continue;
      for (const [runId, entries] of await listFleetRuns(ws.root)) {
        const detached = this.#output && entries.dir;
        const { events, seq } = await this.#history(ws, runId, detached);
        const items = detached
          ? await this.#detached(ws, runId, events, seq)
          : events.map((event) => ({ event }));
        if (items.length > 0) queues.push(items);
      }
    }
    return merge(queues);
  }
}

/** Poll a {@link FleetTail} until `signal` aborts, yielding what each poll found (if anything). */
export async function* followFleetBatches(
  tail: FleetTail,
  signal: AbortSignal,
): AsyncGenerator<CursoredEvent[]> {
  while (!signal.aborted) {
    const batch = await tail.poll();
    if (signal.aborted) return;
    if (batch.length > 0) yield batch;
    await sleep(FLEET_POLL_MS, signal);
  }
}

/** {@link followFleetBatches}, one event at a time. */
export async function* followFleet(tail: FleetTail, signal: AbortSignal): AsyncGenerator<CursoredEvent> {
  for await (const b of followFleetBatches(tail, signal)) yield* b;
}
