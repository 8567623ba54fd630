import { promises as fsp } from "node:fs";
import {
  advanceCursor,
  compareEvents,
  cursorAdmits,
  type FleetCursor,
  formatCursor,
} from "../../fleet/cursor.ts";
import { FINAL_RUN_STATES, type FleetEvent, type RunState } from "../../fleet/events.ts";
import { sleep } from "../proc.ts";
import { processAlive } from "./_alive.ts";
import { type HistoryPosition, readHistory } from "./history.ts";
import { historyPath, listRunIds } from "./runs.ts";
import type { KnownWorkspace } from "./workspaces.ts";

/** How often the files are looked at again while following. */
export const POLL_MS = 100;

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
 * (time, workspace, run, seq) with the cursor after each event.
 *
 * @example
 * ```ts
 * const tail = new FleetTail(() => known(), startCursor(0));
 * for (const { event, cursor } of (await tail.poll()).events) console.log(cursor, event.event);
 * ```
 */
export class FleetTail {
  #files = new Map<string, FileState>();
  #cursor: FleetCursor;
  #workspaces: () => Promise<readonly KnownWorkspace[]>;
  /** Lines skipped so far (not fleet events). */
  skipped = 0;

  constructor(workspaces: () => Promise<readonly KnownWorkspace[]>, cursor: FleetCursor) {
    this.#workspaces = workspaces;
    this.#cursor = cursor;
  }

  get cursor(): string {
    return formatCursor(this.#cursor);
  }

  async poll(): Promise<CursoredEvent[]> {
    const batch: FleetEvent[] = [];
    for (const ws of await this.#workspaces()) {
      if (!ws.exists) continue;
      for (const runId of await listRunIds(ws.root)) {
        const path = historyPath(ws.root, runId);
        const key = `${ws.hash}/${runId}`;
        const st = await fsp.stat(path).catch(() => null);
        if (!st) continue;
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

/** Poll a {@link FleetTail} until `signal` aborts, yielding each event as it appears. */
export async function* followFleet(tail: FleetTail, signal: AbortSignal): AsyncGenerator<CursoredEvent> {
  while (!signal.aborted) {
    for (const e of await tail.poll()) {
      if (signal.aborted) return;
      yield e;
    }
    await sleep(POLL_MS, signal);
  }
}

/** Whether an event ends its run (nothing follows it). */
export function endsRun(e: FleetEvent): boolean {
  if (e.event === "run.lost") return true;
  return e.event === "run.state" && FINAL_RUN_STATES.has(e.to as RunState);
}

/**
 * One run's events after seq `after`, then, while the run goes on, each new one as it is
 * written; ends after the run's final event, when its owner is gone and nothing more comes, or
 * when `signal` aborts. A finished run's stream is its replay.
 */
export async function* followRun(
  ws: Pick<KnownWorkspace, "root" | "hash">,
  runId: string,
  after: number,
  signal: AbortSignal,
  ownerPid: () => number | null = () => null,
): AsyncGenerator<FleetEvent> {
  const path = historyPath(ws.root, runId);
  let pos: HistoryPosition = { offset: 0, seq: 0 };
  let quiet = 0;
  while (!signal.aborted) {
    const chunk = await readHistory(path, ws.hash, runId, pos);
    const grew = chunk.position.offset !== pos.offset;
    pos = chunk.position;
    for (const e of chunk.events) {
      if (e.seq <= after) continue;
      yield e;
      if (endsRun(e)) return;
    }
    for (const e of chunk.events) if (endsRun(e)) return;
    if (grew) {
      quiet = 0;
      continue;
    }
    // Nothing new: once a second, ask whether anyone still writes this history.
    if (++quiet % 10 === 0) {
      const pid = ownerPid();
      if (pid === null || !processAlive(pid)) {
        const last = await readHistory(path, ws.hash, runId, pos);
        for (const e of last.events) if (e.seq > after) yield e;
        return;
      }
    }
    await sleep(POLL_MS, signal);
  }
}
