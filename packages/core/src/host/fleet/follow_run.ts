import { closesRun, type FleetEvent, outputEvent } from "../../fleet/events.ts";
import { formatRunCursor, type RunCursor } from "../../fleet/run_cursor.ts";
import type { OutputStream, RunBackend } from "../../runs/backend.ts";
import { splitRead, utf8Whole } from "../../runs/chunks.ts";
import { runPaths } from "../../runs/paths.ts";
import { FINAL_STATES } from "../../runs/state.ts";
import { sleep } from "../proc.ts";
import { runsBackend } from "../supervise/backends/dispatch.ts";
import { processAlive } from "./_alive.ts";
import { type FollowedOutput, followOutput } from "./_followed_output.ts";
import { outputTime } from "./_output_time.ts";
import { HISTORY_MAX_READ, type HistoryPosition, readHistory, readHistoryShared } from "./history.ts";
import type { FleetWorkspaceRef, LoadedRun } from "./runs.ts";
import { type CursoredEvent, FLEET_POLL_MS } from "./tail.ts";

/** A final run whose closing history never comes (its monitor died) is ended after this long. */
const SETTLE_MS = 3_000;
/** Bytes of an output stream read per look. */
const OUTPUT_CHUNK = 1 << 20;
/**
 * How often a k8s run's stream looks at its history file without news from the pod log (which
 * wakes it at once). No look asks the Kubernetes API: the log is one `follow=true` connection.
 */
const K8S_POLL_MS = 1_000;

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
  // A stream left early (the reader stopped iterating) stops its k8s log connection too.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) stop.abort(); // an abort before the listener was there never fires it
  try {
    yield* runBatches(ws, loaded, from, stop.signal, once);
  } finally {
    signal.removeEventListener("abort", onAbort);
    stop.abort();
  }
}

async function* runBatches(
  ws: FleetWorkspaceRef,
  loaded: LoadedRun,
  from: RunCursor,
  signal: AbortSignal,
  once: boolean,
): AsyncGenerator<CursoredEvent[]> {
  const runId = loaded.view.runId;
  const detached = loaded.detached !== null;
  const backend = detached ? runsBackend(ws.root, ws.hash) : null;
  const k8s = loaded.detached?.record.backend === "k8s";
  const tty = Boolean(loaded.detached?.record.tty);
  const every = k8s ? K8S_POLL_MS : FLEET_POLL_MS;
  const pid = loaded.ownerPid;
  const path = runPaths(ws.root, runId).history;
  const cur: RunCursor = { ...from };
  // A k8s run's log streams in (one connection); one pass (`once`) reads it whole instead.
  const followed: FollowedOutput | null =
    k8s && !once && backend?.followOutput ? followOutput(backend, runId, cur.stdout, signal) : null;
  let hpos: HistoryPosition = { offset: 0, seq: 0 };
  let held: FleetEvent[] = [];
  let quiet = 0;
  let finalSince: number | null = null;
  let batch: CursoredEvent[] = [];
  const emit = (event: FleetEvent) => batch.push({ event, cursor: formatRunCursor(cur, detached) });

  const output = (final: boolean) =>
    drainOutput({ followed, backend: backend!, hash: ws.hash, root: ws.root, tty, runId, cur, emit }, final);

  while (!signal.aborted) {
    // A followed log ends once the run is final (its end recorded and in the history): no state
    // read per look.
    const finalNow = followed
      ? followed.done
      : backend
        ? FINAL_STATES.has((await backend.get(runId)).state)
        : false;
    // A run just started can read `lost` for a moment (before its monitor is recorded): only a
    // final state that stays, or comes with its closing events, ends the stream.
    finalSince = finalNow ? (finalSince ?? Date.now()) : null;
    const chunk = await readHistoryShared(path, ws.hash, runId, hpos);
    const grew = chunk.position.offset !== hpos.offset;
    // More to read at once: a read that stopped at its cap. Bytes left after the last complete
    // line otherwise are a line still being written: the next look comes a poll later.
    const more = grew && chunk.size - hpos.offset > HISTORY_MAX_READ;
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
      const final = finalSince !== null && (held.length > 0 || Date.now() - finalSince > SETTLE_MS);
      await output(final);
      if (final) {
        for (const e of held) {
          cur.seq = e.seq;
          emit(e);
          if (e.event === "run.state" && e.to !== "running") closed = true;
        }
        held = [];
        ended = closed || Date.now() - finalSince! > SETTLE_MS;
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
    if (!more && !once) await (followed ? followed.wait(every) : sleep(every, signal));
  }
}

/** Where {@link drainOutput} reads a run's output and whom it hands the lines. */
interface OutputDrain {
  /** A k8s run's followed log, or null: the backend's files are read instead. */
  followed: FollowedOutput | null;
  backend: RunBackend;
  hash: string;
  /** The workspace root: an output line's time is its stream file's last write. */
  root: string;
  /** A tty run: its bytes go out as they come (a prompt has no newline), up to a whole character. */
  tty: boolean;
  runId: string;
  /** Advanced past every line handed on. */
  cur: RunCursor;
  emit: (event: FleetEvent) => void;
}

/**
 * Hand on the run's new output as `output` events, line by line, advancing the cursor: from the
 * followed log, or read from both streams in chunks. `final`: the run is over, so a last line
 * without its newline goes too.
 */
async function drainOutput(o: OutputDrain, final: boolean): Promise<void> {
  const { followed, backend, hash, root, tty, runId, cur, emit } = o;
  if (followed) {
    const ts = new Date().toISOString();
    const { lines, next } = followed.lines(final);
    for (let i = 0; i < lines.length; i++) {
      cur.stdout = lines[i + 1]?.seq ?? next;
      emit(outputEvent(hash, runId, "stdout", lines[i]!, ts));
    }
    return;
  }
  for (const stream of ["stdout", "stderr"] as OutputStream[]) {
    for (;;) {
      const r = await backend.readOutput(runId, stream, cur[stream], OUTPUT_CHUNK);
      if (r.start > cur[stream]) cur[stream] = r.start; // dropped by the output cap: on from the oldest kept byte
      if (r.bytes.length === 0) break;
      const atEnd = cur[stream] + r.bytes.length >= r.size;
      const bytes = tty ? r.bytes.subarray(0, utf8Whole(r.bytes)) : r.bytes;
      const { lines, next } = splitRead(bytes, cur[stream], tty || (final && atEnd), OUTPUT_CHUNK);
      const ts = outputTime(root, runId, stream);
      for (let i = 0; i < lines.length; i++) {
        cur[stream] = lines[i + 1]?.seq ?? next;
        emit(outputEvent(hash, runId, stream, lines[i]!, ts));
      }
      if (lines.length === 0 || atEnd) break;
    }
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
