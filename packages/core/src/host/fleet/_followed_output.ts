import type { RunBackend } from "../../runs/backend.ts";
import { type OutputLine, splitOutput } from "../../runs/chunks.ts";

/**
 * A run's stdout as its backend streams it (`followOutput`: a k8s run's pod log, `follow=true`,
 * resumed by timestamp), buffered for the fleet stream's loop: one connection for the whole
 * stream instead of a log request per look, and each line as soon as it comes.
 */
export interface FollowedOutput {
  /** Resolve when new bytes came or the follow ended, after `ms` at the latest. */
  wait(ms: number): Promise<void>;
  /**
   * The whole lines received since the last call, and the seq after them; with `final` (the
   * follow has ended) a last line without its newline too. A failed follow throws its error here.
   */
  lines(final: boolean): { lines: OutputLine[]; next: number };
  /** The run is final and its log was read to its end (nothing more will come). */
  readonly done: boolean;
}

/**
 * Start following `runId`'s stdout from byte `from`; it stops when the run ends or `signal` aborts.
 *
 * @example
 * ```ts
 * const out = followOutput(backend, runId, 0, signal);
 * while (!out.done) { await out.wait(1_000); for (const l of out.lines(false).lines) console.log(l.data); }
 * ```
 */
export function followOutput(
  backend: RunBackend,
  runId: string,
  from: number,
  signal: AbortSignal,
): FollowedOutput {
  let base = from; // the seq of pending[0]
  let pending = new Uint8Array();
  let fresh = false; // bytes came since the last `lines`
  let done = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  const write = (seq: number, bytes: Uint8Array) => {
    // A retry's pod starts its log at 0 again: what was torn before it will never end.
    if (seq !== base + pending.length) {
      base = seq;
      pending = new Uint8Array();
    }
    const next = new Uint8Array(pending.length + bytes.length);
    next.set(pending);
    next.set(bytes, pending.length);
    pending = next;
    fresh = true;
    poke();
  };
  backend.followOutput!(runId, "stdout", from, write, signal)
    .catch((error: unknown) => {
      failure = { error };
    })
    .finally(() => {
      done = true;
      poke();
    });
  return {
    get done() {
      return done;
    },
    wait(ms) {
      if (done || fresh) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const t = setTimeout(finish, ms);
        const onAbort = () => finish();
        signal.addEventListener("abort", onAbort, { once: true });
        function finish() {
          clearTimeout(t);
          signal.removeEventListener("abort", onAbort);
          resolve();
        }
        wake = finish;
      });
    },
    lines(final) {
      if (failure) throw failure.error;
      fresh = false;
      const r = splitOutput(pending, base, final);
      pending = pending.subarray(r.next - base);
      base = r.next;
      return r;
    },
  };
}
