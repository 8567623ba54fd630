import { promises as fsp } from "node:fs";
import {
  advanceCursor,
  compareEvents,
  cursorAdmits,
  type FleetCursor,
  formatCursor,
} from "../../fleet/cursor.ts";
import { closesRun, type FleetEvent, outputEvent } from "../../fleet/events.ts";
import { formatRunCursor, type RunCursor } from "../../fleet/run_cursor.ts";
import type { OutputStream } from "../../runs/backend.ts";
import { splitOutput } from "../../runs/chunks.ts";
import { runPaths } from "../../runs/paths.ts";
import { FINAL_STATES } from "../../runs/state.ts";
import { sleep } from "../proc.ts";
import { localBackend } from "../runs/local.ts";
import { processAlive } from "./_alive.ts";
import { type HistoryPosition, readHistory, readHistoryShared } from "./history.ts";
import { type FleetWorkspaceRef, type LoadedRun, listFleetRunIds } from "./runs.ts";
import type { KnownWorkspace } from "./workspaces.ts";

/** How often the fleet looks at the files again while following. */
export const FLEET_POLL_MS = 100;

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
      for (const runId of await listFleetRunIds(ws.root)) {
        const path = runPaths(ws.root, runId).history;
        const key = `${ws.hash}/${runId}`;
        const st = await fsp.lstat(path).catch(() => null);
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

/** A final run whose closing history never comes (its monitor died) is ended after this long. */
const SETTLE_MS = 3_000;
/** Bytes of an output stream read per look. */
const OUTPUT_CHUNK = 1 << 20;

/**
 * One run's events after `from`, then, while the run goes on, what is new at each look, as one
 * batch per look, each event with the cursor after it. History events come in seq order; a
 * detached run's output lines (from its stdout/stderr files) come before the events that close
 * its history. Ends after the run's closing `run.state`, when a run is final and nothing more
 * comes, or when `signal` aborts. A finished run's stream is its replay. With `once`, one pass
 * over what is there now, without waiting (the events endpoint).
 */
export async function* followRunBatches(
  ws: FleetWorkspaceRef,
  loaded: LoadedRun,
  from: RunCursor,
  signal: AbortSignal,
  once = false,
): AsyncGenerator<CursoredEvent[]> {
  const runId = loaded.view.runId;
  const detached = loaded.detached !== null;
  const backend = detached ? localBackend(ws.root, ws.hash) : null;
  const pid = loaded.ownerPid;
  const path = runPaths(ws.root, runId).history;
  const cur: RunCursor = { ...from };
  let hpos: HistoryPosition = { offset: 0, seq: 0 };
  let held: FleetEvent[] = [];
  let quiet = 0;
  let finalSince: number | null = null;
  let batch: CursoredEvent[] = [];
  const emit = (event: FleetEvent) => batch.push({ event, cursor: formatRunCursor(cur, detached) });

  async function output(final: boolean): Promise<void> {
    for (const stream of ["stdout", "stderr"] as OutputStream[]) {
      for (;;) {
        const r = await backend!.readOutput(runId, stream, cur[stream], OUTPUT_CHUNK);
        if (r.bytes.length === 0) break;
        const atEnd = cur[stream] + r.bytes.length >= r.size;
        const { lines, next } = splitOutput(r.bytes, cur[stream], final && atEnd);
        const ts = new Date().toISOString();
        for (let i = 0; i < lines.length; i++) {
          cur[stream] = lines[i + 1]?.seq ?? next;
          emit(outputEvent(ws.hash, runId, stream, lines[i]!, ts));
        }
        if (lines.length === 0 || atEnd) break;
      }
    }
  }

  while (!signal.aborted) {
    const final = backend ? FINAL_STATES.has((await backend.get(runId)).state) : false;
    const chunk = await readHistoryShared(path, ws.hash, runId, hpos);
    const grew = chunk.position.offset !== hpos.offset;
    const more = chunk.position.offset < chunk.size;
    hpos = chunk.position;
    let closed = false;
    for (const e of chunk.events) {
      if (e.seq <= cur.seq) continue;
      // Once the history starts closing, the output must be drained first: hold the rest.
      if (backend && (held.length > 0 || closesRun(e))) {
        held.push(e);
        continue;
      }
      cur.seq = e.seq;
      emit(e);
      if (closesRun(e) && e.event !== "run.exited") closed = true;
    }
    let ended = false;
    if (backend) {
      await output(final);
      if (final) {
        for (const e of held) {
          cur.seq = e.seq;
          emit(e);
          if (e.event === "run.state" && e.to !== "running") closed = true;
        }
        held = [];
        finalSince ??= Date.now();
        ended = closed || Date.now() - finalSince > SETTLE_MS;
      }
    } else if (closed) ended = true;
    quiet = grew ? 0 : quiet + 1;
    // A foreground run: once a second without news, ask whether its ariel-spawn still writes.
    if (!backend && !ended && quiet > 0 && quiet % 10 === 0 && (pid === null || !processAlive(pid))) {
      for (const e of (await readHistory(path, ws.hash, runId, hpos)).events) {
        if (e.seq <= cur.seq) continue;
        cur.seq = e.seq;
        emit(e);
      }
      ended = true;
    }
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
    if (ended) return;
    // One pass (the events endpoint) still reads the history to its end: a shared chunk may
    // have been read before the file grew.
    if (once && !grew && !more) return;
    if (!more && !once) await sleep(FLEET_POLL_MS, signal);
  }
}

/** {@link followRunBatches}, one event at a time. */
export async function* followRun(
  ws: FleetWorkspaceRef,
  loaded: LoadedRun,
  from: RunCursor,
  signal: AbortSignal,
  once = false,
): AsyncGenerator<CursoredEvent> {
  for await (const b of followRunBatches(ws, loaded, from, signal, once)) yield* b;
}
