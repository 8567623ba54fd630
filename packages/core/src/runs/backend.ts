import type { PlannedRun } from "./plan.ts";
import type { ExitRecord, ProcessRef, RunRecord } from "./record.ts";
import type { RunState } from "./state.ts";

/**
 * The seam between `ariel-runs` / `ariel-spawn --detach` and whatever runs the processes. Every
 * operation on runs goes through a backend: `local` (a monitor process per workspace, children
 * on this machine) and `k8s` (a batch/v1 Job per run), so a Kubernetes run lists, follows, waits,
 * kills and respawns exactly like a local one.
 *
 * The flow is plan → start: core plans a run once into a {@link RunSpec} (the record of
 * `run.json` minus what only the backend knows), the backend turns it into a running thing
 * and reports its identity. Reading (state, output) and control (signal, remove) name the run
 * by id; the backend decides what "alive" and "signal" mean for it.
 */
export interface RunBackend {
  readonly name: "local" | "k8s";
  /**
   * Start planned runs and record them: `run.json` is written once the run's process (local: the
   * child, with its identity; k8s: the Job) exists. One result per spec, in order.
   */
  start(specs: readonly StartRequest[]): Promise<StartResult[]>;
  /** Every run of the workspace, newest first; unreadable ones come back as problems. */
  list(): Promise<{ runs: RunView[]; problems: RunProblem[] }>;
  /** One run, its state derived now (from `record` when the caller read it already). */
  get(runId: string, record?: RunRecord): Promise<RunView>;
  /** Bytes of one output stream from byte offset `from` (at most `max`), and the stream's size. */
  readOutput(runId: string, stream: OutputStream, from: number, max: number): Promise<OutputRead>;
  /**
   * Send `signal` to the run's process group, only after checking that the recorded child is
   * still the very process we started (pid, start time, boot id) or its group still exists.
   * `gone` when there is nothing of ours left to signal.
   */
  signal(view: RunView, signal: string): Promise<"sent" | "gone">;
  /** Whether any process of the run's group is still there. */
  groupAlive(view: RunView): Promise<boolean>;
  /** Forward bytes to an interactive run's stdin (empty = end of input). */
  sendInput(runId: string, data: Uint8Array): Promise<void>;
  /** Delete the run's directory and history (the caller checked that it is final). */
  remove(runId: string): Promise<void>;
  /**
   * Resolve when one of these runs may have changed, at the latest after `ms` (k8s: a pod watch
   * event). Backends without a way to be told poll instead.
   */
  changes?(views: readonly RunView[], ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Follow one output stream live from byte `from`, calling `write` with each new piece at its
   * sequence, until the run is final and its output read to the end. Resolves false, at once,
   * for a run whose output is read by polling {@link readOutput} instead (local runs); a k8s run
   * streams its pod's log and resumes a dropped connection without losing or repeating a line.
   */
  followOutput?(
    runId: string,
    stream: OutputStream,
    from: number,
    write: (seq: number, bytes: Uint8Array) => void,
    signal?: AbortSignal,
  ): Promise<boolean>;
  /**
   * For `respawn` of a run this backend does not start as a local child (a k8s run): check now
   * that it can be started again, refusing with nothing changed, and return how to start the
   * planned run once the old one was killed. Null: the run respawns like a local one.
   */
  prepareRespawn?(old: RunRecord): Promise<((planned: PlannedRun) => Promise<void>) | null>;
}

export type OutputStream = "stdout" | "stderr";

export interface OutputRead {
  /** The sequence of the first byte returned: `from`, or later when rotation dropped older bytes. */
  start: number;
  bytes: Uint8Array;
  /** The sequence just past the stream's last byte now (every byte ever written, rotated or not). */
  size: number;
}

/** A run as readers see it: the record, its exit (when ended), and the state derived now. */
export interface RunView {
  record: RunRecord;
  exit: ExitRecord | null;
  state: RunState;
}

/** A run directory whose record cannot be read: listed as a problem, never fatal to the others. */
export interface RunProblem {
  runId: string;
  code: string;
  message: string;
}

/** What the backend needs to start one planned run: its record, id and the child's full environment. */
export interface StartRequest {
  runId: string;
  /** Held in memory only, never stored. */
  env: Record<string, string>;
  /** The run.json to write (its directory exists; nothing is written yet). */
  record: PlannedRun;
}

export type StartResult =
  | { runId: string; ok: true; child: ProcessRef & { pgid: number } }
  | { runId: string; ok: false; status: number; code: string; message: string };
