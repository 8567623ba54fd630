import { toArielError } from "../../errors.ts";
import type { EventName } from "../../spawn/events.ts";
import type { TargetOutcome } from "../../spawn/exit.ts";
import { childEnv, type SpawnUnit } from "../../spawn/plan.ts";
import type { Reporter } from "../cli/mod.ts";
import type { TextSink } from "../output.ts";
import type { Interrupts } from "./interrupts.ts";
import type { OutputLine } from "./lines.ts";
import { runPool } from "./pool.ts";
import {
  type ChildHandle,
  type ChildResult,
  failed,
  findOnPath,
  type StreamName,
  startChild,
} from "./process.ts";
import type { ForegroundSandboxes } from "./sandbox.ts";

/** Appends one event to the history (and to stdout with --json). */
export type EmitEvent = (event: EventName, source: string | null, fields?: Record<string, unknown>) => void;

export interface ExecuteOptions {
  units: readonly SpawnUnit[];
  jobs: number;
  failFast: boolean;
  /** Milliseconds between SIGTERM and SIGKILL when ariel-spawn terminates children itself. */
  graceMs: number;
  json: boolean;
  /** Child output without --json: stdout lines go here… */
  stdout: TextSink;
  /** …and stderr lines here. */
  stderr: TextSink;
  log: Reporter;
  emit: EmitEvent;
  inheritedEnv: Readonly<Record<string, string | undefined>>;
  /** True when ariel-spawn's own stdin is not consumed (a single child may then share it). */
  stdinFree: boolean;
  interrupts: Interrupts;
  /** Aborted when stdout closes: children are terminated as a pipe would. */
  abort: AbortSignal;
  now: () => number;
  /** Called before child output is written (to erase a progress line). */
  beforeOutput?: () => void;
  /** Runs after a unit's process ended (or, with `started` false, when it never ran). */
  after?: (unit: SpawnUnit, started: boolean) => Promise<void>;
  /** Wraps sandboxed units in their sandbox, and brings their work home when they end. */
  sandboxes?: ForegroundSandboxes;
}

/**
 * Run the units with at most `jobs` children at once; stream their output, emit their events,
 * stop starting new ones after a failure with --fail-fast (terminating the running ones), and
 * forward SIGINT/SIGTERM. Resolves with one outcome per unit (status null: never started).
 */
export async function executeUnits(o: ExecuteOptions): Promise<TargetOutcome[]> {
  const run = new Execution(o);
  try {
    await runPool(
      o.units.length,
      o.jobs,
      (i) => run.runUnit(i),
      () => run.stopping,
    );
    for (let i = 0; i < o.units.length; i++) {
      if (!run.ran.has(i)) await o.after?.(o.units[i] as SpawnUnit, false);
    }
  } finally {
    run.dispose();
  }
  return run.outcomes;
}

/** `[api]     line` / `[web-app] line`: what a unit's output lines are prefixed with. */
function labelOf(u: SpawnUnit): string {
  return u.source ?? u.sources.join(",");
}

/** The fields of a unit's `process.*` events that say which process it is. */
function processFields(unit: SpawnUnit, pid: number | null): Record<string, unknown> {
  return { ...(unit.source === null ? { sources: unit.sources } : {}), pid };
}

/** One {@link executeUnits} call: its children, their outcomes, and how it stops them. */
class Execution {
  readonly outcomes: TargetOutcome[];
  readonly ran = new Set<number>();
  stopping: boolean;
  readonly #o: ExecuteOptions;
  readonly #running = new Set<ChildHandle>();
  readonly #killTimers = new Set<ReturnType<typeof setTimeout>>();
  // One plain copy for the whole run: reading `process.env` goes through an interceptor per
  // variable (~0.25 ms per child for 40 variables, measured), a plain object does not.
  readonly #inherited: Record<string, string | undefined>;
  // Each command looked up along PATH once per run, not in every child (findOnPath).
  readonly #resolved = new Map<string, string | null>();
  /** Every prefix as wide as the widest, so output lines up. */
  readonly #prefixWidth: number;
  readonly #unlisten: () => void;
  readonly #onAbort = () => this.#stop("SIGTERM", true);

  constructor(o: ExecuteOptions) {
    this.#o = o;
    this.outcomes = o.units.map((u) => ({ source: u.source, status: null }));
    this.stopping = o.interrupts.received !== null || o.abort.aborted;
    this.#inherited = { ...o.inheritedEnv };
    this.#prefixWidth = Math.max(0, ...o.units.map((u) => labelOf(u).length + 2));
    this.#unlisten = o.interrupts.listen((signal, count) => {
      if (count > 1) this.#stop("SIGKILL", false);
      else this.#stop(signal, false);
    });
    o.abort.addEventListener("abort", this.#onAbort, { once: true });
  }

  dispose(): void {
    this.#unlisten();
    this.#o.abort.removeEventListener("abort", this.#onAbort);
    for (const t of this.#killTimers) clearTimeout(t);
  }

  /** Stop starting children and signal the running ones (SIGKILL after the grace with `escalate`). */
  #stop(signal: NodeJS.Signals, escalate: boolean): void {
    this.stopping = true;
    for (const child of this.#running) {
      child.kill(signal);
      if (escalate) {
        const t = setTimeout(() => child.kill("SIGKILL"), this.#o.graceMs);
        t.unref?.();
        this.#killTimers.add(t);
      }
    }
  }

  #commandFile(argv0: string | undefined, path: string | undefined): string | null {
    if (argv0 === undefined) return null;
    const key = `${argv0}\0${path ?? ""}`;
    let file = this.#resolved.get(key);
    if (file === undefined) {
      file = findOnPath(argv0, path);
      this.#resolved.set(key, file);
    }
    return file;
  }

  #write(stream: StreamName, text: string): void {
    this.#o.beforeOutput?.();
    try {
      (stream === "stdout" ? this.#o.stdout : this.#o.stderr).write(text);
    } catch {
      // stdout closed: the abort signal stops the run
    }
  }

  /** Run unit `i` to its end: start its child, stream its output, record how it ended. */
  async runUnit(i: number): Promise<void> {
    const o = this.#o;
    const unit = o.units[i] as SpawnUnit;
    const started = o.now();
    const child = await this.#launch(unit);
    this.ran.add(i);
    if (child.pid !== null) {
      this.#running.add(child);
      const sandboxId = o.sandboxes?.idOf(unit);
      o.emit("process.started", unit.source, {
        ...processFields(unit, child.pid),
        cwd: unit.cwd,
        argv: unit.argv,
        ...(sandboxId && unit.sandbox ? { sandbox: unit.sandbox, sandboxId } : {}),
      });
      await o.sandboxes?.started(unit, child.pid);
      // A signal that arrived while it was starting still reaches it.
      if (this.stopping) child.kill(o.interrupts.received ?? "SIGTERM");
    }
    const r = await child.done;
    this.#running.delete(child);
    this.#exited(i, r, started);
    if (r.status !== 0 && o.failFast && !this.stopping) this.#stop("SIGTERM", true);
    await o.sandboxes?.settle(unit);
    await o.after?.(unit, true);
  }

  /** The unit's child, in its sandbox when it has one (a sandbox that cannot be made: the unit's failure). */
  async #launch(unit: SpawnUnit): Promise<ChildHandle> {
    const env = childEnv(this.#inherited, unit);
    let argv: string[] | null = null;
    try {
      argv = (await this.#o.sandboxes?.wrap(unit, env)) ?? null;
    } catch (e) {
      return failed(toArielError(e));
    }
    return this.#start(unit, env, argv);
  }

  /**
   * The unit's child: a single one writes its output through as it comes (and may share
   * stdin), several prefix each line with their label; with --json lines are only events.
   */
  #start(unit: SpawnUnit, env: Record<string, string>, sandboxed: string[] | null): ChildHandle {
    const o = this.#o;
    const one = o.units.length === 1;
    const prefix = `[${labelOf(unit)}]`.padEnd(this.#prefixWidth);
    const onLine = (stream: StreamName, l: OutputLine) => {
      o.emit("output", unit.source, { stream, line: l.line, ...(l.partial ? { partial: true } : {}) });
      if (!o.json && !one) this.#write(stream, `${prefix} ${l.line}\n`);
    };
    const interactive = one && o.stdinFree;
    const argv = sandboxed ?? unit.argv;
    const file = this.#commandFile(argv[0], env.PATH);
    return startChild({
      argv,
      ...(file !== null ? { file } : {}),
      cwd: unit.cwd,
      env,
      stdin: interactive ? "inherit" : "ignore",
      // A sandbox never shares the user's terminal as its controlling one (no TIOCSTI into it):
      // its own session, even when it reads the terminal (docs/sandbox.md).
      ownGroup: !interactive || sandboxed !== null,
      onLine,
      ...(one && !o.json ? { onText: (stream: StreamName, text: string) => this.#write(stream, text) } : {}),
    });
  }

  /** Report a start error, emit `process.exited`, and keep the unit's outcome. */
  #exited(i: number, r: ChildResult, started: number): void {
    const o = this.#o;
    const unit = o.units[i] as SpawnUnit;
    if (r.error) {
      const err = r.error;
      const several = o.units.length > 1;
      o.log.error(
        Object.assign(err, { message: several ? `[${labelOf(unit)}] ${err.message}` : err.message }),
      );
    }
    o.emit("process.exited", unit.source, {
      ...processFields(unit, r.pid),
      code: r.code,
      signal: r.signal,
      status: r.status,
      durationMs: o.now() - started,
      ...(r.error ? { error: { code: r.error.code, message: r.error.message } } : {}),
    });
    const outcome = this.outcomes[i] as TargetOutcome;
    outcome.status = r.status;
    if (r.signal) outcome.signal = r.signal;
  }
}
