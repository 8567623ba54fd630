import { lstatSync } from "node:fs";
import {
  advanceCursor,
  compareEvents,
  cursorAdmits,
  type FleetCursor,
  formatCursor,
} from "../../fleet/cursor.ts";
import type { FleetEvent } from "../../fleet/events.ts";
import { runPaths } from "../../runs/paths.ts";
import { sleep } from "../proc.ts";
import { type HistoryPosition, readHistory } from "./history.ts";
import { listFleetRunIds } from "./runs.ts";
import type { KnownWorkspace } from "./workspaces.ts";

/** How often the fleet looks at the files again while following. */
export const FLEET_POLL_MS = 100;

/** How often a tail reads the workspace registry again (a new workspace shows up within this). */
const WORKSPACES_EVERY_MS = 2_000;

/** An event with the cursor that resumes right after it. */
export interface CursoredEvent {
  event: FleetEvent;
  cursor: string;
}

interface FileState {
  position: HistoryPosition;
  mtimeMs: number;
}

/**
 * The fleet-wide event stream over every workspace's history files. Each {@link poll} reads what
 * was appended since the last one, keeps what the cursor admits, and returns it in fleet order
 * (time, workspace, run, seq) with the cursor after each event. A detached run's output lives
 * in its own files, not in the history: its run stream ({@link followRun}) carries it.
 *
 * @example
 * ```ts
 * const tail = new FleetTail(() => known(), startCursor(0));
 * for (const { event, cursor } of await tail.poll()) console.log(cursor, event.event);
 * ```
 */
export class FleetTail {
  #files = new Map<string, FileState>();
  #cursor: FleetCursor;
  #workspaces: () => Promise<readonly KnownWorkspace[]>;
  #list: readonly KnownWorkspace[] | null = null;
  #listedAt = 0;
  /** Lines skipped so far (not fleet events). */
  skipped = 0;

  constructor(workspaces: () => Promise<readonly KnownWorkspace[]>, cursor: FleetCursor) {
    this.#workspaces = workspaces;
    this.#cursor = cursor;
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

  async poll(): Promise<CursoredEvent[]> {
    const batch: FleetEvent[] = [];
    for (const ws of await this.#known()) {
      if (!ws.exists) continue;
      for (const runId of await listFleetRunIds(ws.root)) {
        const path = runPaths(ws.root, runId).history;
        const key = `${ws.hash}/${runId}`;
        // Synchronous: one stat per history and poll, and a promise each would cost more than the stat.
        const st = lstatSync(path, { throwIfNoEntry: false });
        if (!st?.isFile()) continue;
        const known = this.#files.get(key);
        if (known && known.mtimeMs === st.mtimeMs && known.position.offset === st.size) continue;
        // A file untouched since before the cursor's start, of a run not delivered yet, holds
        // nothing new: skip reading it until it changes.
        if (!known && !this.#cursor.seen.has(key) && st.mtimeMs < this.#cursor.since) continue;
        const chunk = await readHistory(path, ws.hash, runId, known?.position);
        this.skipped += chunk.skipped;
        this.#files.set(key, { position: chunk.position, mtimeMs: st.mtimeMs });
        for (const e of chunk.events) if (cursorAdmits(this.#cursor, e)) batch.push(e);
      }
    }
    batch.sort(compareEvents);
    return batch.map((event) => {
      this.#cursor = advanceCursor(this.#cursor, event);
      return { event, cursor: formatCursor(this.#cursor) };
    });
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
