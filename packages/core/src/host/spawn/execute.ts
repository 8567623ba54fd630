import type { EventName } from "../../spawn/events.ts";
import type { TargetOutcome } from "../../spawn/exit.ts";
import { childEnv, type SpawnUnit } from "../../spawn/plan.ts";
import type { Reporter } from "../cli/mod.ts";
import type { TextSink } from "../output.ts";
import type { Interrupts } from "./interrupts.ts";
import type { OutputLine } from "./lines.ts";
import { runPool } from "./pool.ts";
import { type ChildHandle, findOnPath, type StreamName, startChild } from "./process.ts";

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
}

/**
 * Run the units with at most `jobs` children at once; stream their output, emit their events,
 * stop starting new ones after a failure with --fail-fast (terminating the running ones), and
 * forward SIGINT/SIGTERM. Resolves with one outcome per unit (status null: never started).
 */
export async function executeUnits(o: ExecuteOptions): Promise<TargetOutcome[]> {
  const outcomes: TargetOutcome[] = o.units.map((u) => ({ source: u.source, status: null }));
  const ran = new Set<number>();
  const running = new Set<ChildHandle>();
  let stopping = o.interrupts.received !== null || o.abort.aborted;
  const killTimers = new Set<ReturnType<typeof setTimeout>>();

  const terminate = (signal: NodeJS.Signals, escalate: boolean) => {
    for (const child of running) {
      child.kill(signal);
      if (escalate) {
        const t = setTimeout(() => child.kill("SIGKILL"), o.graceMs);
        t.unref?.();
        killTimers.add(t);
      }
    }
  };
  const stop = (signal: NodeJS.Signals, escalate: boolean) => {
    stopping = true;
    terminate(signal, escalate);
  };
  const unlisten = o.interrupts.listen((signal, count) => {
    if (count > 1) stop("SIGKILL", false);
    else stop(signal, false);
  });
  const onAbort = () => stop("SIGTERM", true);
  o.abort.addEventListener("abort", onAbort, { once: true });

  // One plain copy for the whole run: reading `process.env` goes through an interceptor per
  // variable (~0.25 ms per child for 40 variables, measured), a plain object does not.
  const inherited = { ...o.inheritedEnv };
  // Each command looked up along PATH once per run, not in every child (findOnPath).
  const resolved = new Map<string, string | null>();
  const commandFile = (argv0: string | undefined, path: string | undefined) => {
    if (argv0 === undefined) return null;
    const key = `${argv0}\0${path ?? ""}`;
    let file = resolved.get(key);
    if (file === undefined) {
      file = findOnPath(argv0, path);
      resolved.set(key, file);
    }
    return file;
  };
  const several = o.units.length > 1;
  const one = o.units.length === 1;
  // `[api]     line` / `[web-app] line`: every prefix as wide as the widest, so output lines up.
  const labelOf = (u: SpawnUnit) => u.source ?? u.sources.join(",");
  const prefixWidth = Math.max(0, ...o.units.map((u) => labelOf(u).length + 2));
  const write = (sink: TextSink, text: string) => {
    o.beforeOutput?.();
    try {
      sink.write(text);
    } catch {
      // stdout closed: the abort signal stops the run
    }
  };

  const runUnit = async (i: number) => {
    const unit = o.units[i] as SpawnUnit;
    const source = unit.source;
    const label = labelOf(unit);
    const prefix = `[${label}]`.padEnd(prefixWidth);
    const onLine = (stream: StreamName, l: OutputLine) => {
      o.emit("output", source, { stream, line: l.line, ...(l.partial ? { partial: true } : {}) });
      if (o.json || one) return;
      write(stream === "stdout" ? o.stdout : o.stderr, `${prefix} ${l.line}\n`);
    };
    const interactive = one && o.stdinFree;
    const started = o.now();
    const env = childEnv(inherited, unit);
    const file = commandFile(unit.argv[0], env.PATH);
    const child = startChild({
      argv: unit.argv,
      ...(file !== null ? { file } : {}),
      cwd: unit.cwd,
      env,
      stdin: interactive ? "inherit" : "ignore",
      ownGroup: !interactive,
      onLine,
      ...(one && !o.json
        ? {
            onText: (stream: StreamName, text: string) =>
              write(stream === "stdout" ? o.stdout : o.stderr, text),
          }
        : {}),
    });
    ran.add(i);
    if (child.pid !== null) {
      running.add(child);
      o.emit("process.started", source, {
        ...(source === null ? { sources: unit.sources } : {}),
        pid: child.pid,
        cwd: unit.cwd,
        argv: unit.argv,
      });
      // A signal that arrived while it was starting still reaches it.
      if (stopping) child.kill(o.interrupts.received ?? "SIGTERM");
    }
    const r = await child.done;
    running.delete(child);
    if (r.error) {
      const err = r.error;
      o.log.error(Object.assign(err, { message: several ? `[${label}] ${err.message}` : err.message }));
    }
    o.emit("process.exited", source, {
      ...(source === null ? { sources: unit.sources } : {}),
      pid: r.pid,
      code: r.code,
      signal: r.signal,
      status: r.status,
      durationMs: o.now() - started,
      ...(r.error ? { error: { code: r.error.code, message: r.error.message } } : {}),
    });
    (outcomes[i] as TargetOutcome).status = r.status;
    if (r.signal) (outcomes[i] as TargetOutcome).signal = r.signal;
    if (r.status !== 0 && o.failFast && !stopping) stop("SIGTERM", true);
    await o.after?.(unit, true);
  };

  try {
    await runPool(o.units.length, o.jobs, runUnit, () => stopping);
    for (let i = 0; i < o.units.length; i++) {
      if (!ran.has(i)) await o.after?.(o.units[i] as SpawnUnit, false);
    }
  } finally {
    unlisten();
    o.abort.removeEventListener("abort", onAbort);
    for (const t of killTimers) clearTimeout(t);
  }
  return outcomes;
}
