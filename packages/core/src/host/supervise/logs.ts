import type { OutputStream, RunBackend } from "../../runs/backend.ts";
import { splitOutput, splitRead, tailStart } from "../../runs/chunks.ts";
import { FINAL_STATES } from "../../runs/state.ts";
import type { Output, TextSink } from "../output.ts";
import { sleep } from "../proc.ts";
import { POLL_MS } from "./control.ts";

/** Bytes read per look at a stream. */
const CHUNK = 1 << 20;
/** How far back `--tail` looks for line ends. */
const TAIL_WINDOW = 1 << 20;

export interface LogsOptions {
  streams: readonly OutputStream[];
  /** Start at this byte offset of each stream (the sequence number of `output` records). */
  from: number | null;
  /** Start at the last N lines of each stream. */
  tail: number | null;
  follow: boolean;
  json: boolean;
  /** Human mode: where each stream goes (stdout's file to stdout, stderr's to stderr). */
  sinks: Record<OutputStream, TextSink | Output>;
  out: Output;
  signal?: AbortSignal;
  /** Called each time the reader caught up with the live run (attach forwards input from then on). */
  onLive?: () => void;
  /**
   * Called when sequences `from` up to `to` of a stream were dropped by the output cap: the
   * reader goes on at `to`, once what it returns resolved (the warning is out, in order with the data).
   */
  onDropped?: (stream: OutputStream, from: number, to: number) => void | Promise<void>;
}

/**
 * `logs` / `attach`: print a run's output from a sequence number (or its last N lines), and
 * with `follow` keep printing as it grows until the run is final. Byte offsets are the sequence:
 * every byte is printed once, none skipped. With `json` each whole line is an `output` record
 * `{v,type:"output",runId,seq,stream,data}`; a torn last line is held back until it is complete
 * or the run has ended. A run whose backend streams its output (`followOutput`: a k8s run's pod
 * log) is followed through it instead of being read again every {@link POLL_MS}. Returns the
 * next sequence of each stream.
 */
export async function streamLogs(
  backend: RunBackend,
  runId: string,
  options: LogsOptions,
): Promise<Record<OutputStream, number>> {
  const pos = {} as Record<OutputStream, number>;
  for (const s of options.streams) {
    if (options.from !== null) pos[s] = options.from;
    else if (options.tail !== null) {
      const size = (await backend.readOutput(runId, s, 0, 0)).size;
      // The window may span the previous segment and the current file: read both parts.
      const parts: Uint8Array[] = [];
      let start = -1;
      for (let at = Math.max(0, size - TAIL_WINDOW); at < size; ) {
        const r = await backend.readOutput(runId, s, at, size - at);
        if (start < 0) start = r.start;
        if (r.bytes.length === 0) break;
        parts.push(r.bytes);
        at = r.start + r.bytes.length;
      }
      const window = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let off = 0;
      for (const p of parts) {
        window.set(p, off);
        off += p.length;
      }
      pos[s] = tailStart(window, Math.max(0, start), options.tail);
    } else pos[s] = 0;
  }
  let announced = false;
  const decoders = new Map(options.streams.map((s) => [s, new TextDecoder()] as const));
  const decode = (s: OutputStream, bytes: Uint8Array) => decoders.get(s)!.decode(bytes, { stream: true });
  if (options.follow && (await followed(backend, runId, options, pos, decode))) return pos;
  for (;;) {
    const final = FINAL_STATES.has((await backend.get(runId)).state);
    let moved = false;
    for (const s of options.streams) {
      for (;;) {
        const r = await backend.readOutput(runId, s, pos[s]!, CHUNK);
        if (r.start > pos[s]!) {
          // Dropped by the output cap: say so, and go on from the oldest byte kept.
          await options.onDropped?.(s, pos[s]!, r.start);
          pos[s] = r.start;
        }
        if (r.bytes.length === 0) break;
        const atEnd = pos[s]! + r.bytes.length >= r.size;
        if (options.json) {
          const { lines, next } = splitRead(r.bytes, pos[s]!, final && atEnd, CHUNK);
          for (const l of lines)
            options.out.record({ v: 1, type: "output", runId, seq: l.seq, stream: s, data: l.data });
          if (next === pos[s]) break; // only a torn line: wait for the rest
          pos[s] = next;
        } else {
          options.sinks[s].write(decoders.get(s)!.decode(r.bytes, { stream: true }));
          pos[s]! += r.bytes.length;
        }
        moved = true;
        if (atEnd) break;
      }
    }
    if (!options.follow || final || options.signal?.aborted) return pos;
    if (!moved && !announced) {
      announced = true;
      options.onLive?.();
    }
    await sleep(POLL_MS, options.signal);
  }
}

/**
 * `-f` on a run whose backend streams its output (a k8s run's pod log): each piece is printed
 * as it comes, at its sequence. False when the backend reads by polling (a local run).
 */
async function followed(
  backend: RunBackend,
  runId: string,
  options: LogsOptions,
  pos: Record<OutputStream, number>,
  decode: (s: OutputStream, bytes: Uint8Array) => string,
): Promise<boolean> {
  if (!backend.followOutput) return false;
  for (const s of options.streams) {
    const print = (seq: number, bytes: Uint8Array) => {
      if (options.json) {
        // Whole lines only: a piece is a log line, or the rest of one after --from.
        for (const l of splitOutput(bytes, seq, true).lines)
          options.out.record({ v: 1, type: "output", runId, seq: l.seq, stream: s, data: l.data });
      } else options.sinks[s].write(decode(s, bytes));
      pos[s] = seq + bytes.length;
    };
    if (!(await backend.followOutput(runId, s, pos[s]!, print, options.signal))) return false;
  }
  return true;
}
