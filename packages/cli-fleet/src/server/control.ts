import {
  ArielError,
  DEFAULT_KILL_GRACE_MS,
  type FleetRun,
  KILL_SIGNALS,
  parseKillSignal,
  parseRestart,
  parseTargetArg,
  quoteValue,
  runIsOver,
  type TargetSpec,
  validateRunName,
} from "@ariel/core";
import {
  beginKill,
  finishKill,
  hostPorts,
  type KnownWorkspace,
  loadRun,
  Reporter,
  respawnRun,
  runsBackend,
  type SandboxAsk,
  startDetached,
  startExit,
  withRunLock,
  worktreeIsolation,
} from "@ariel/core/host";

/**
 * What the API asks of runs when it changes something: the very functions `ariel-runs` and
 * `ariel-spawn --detach` call (beginKill/finishKill, respawnRun, startDetached, the backend's
 * sendInput); this file only checks the request body and turns the result into fleet run views.
 */
export interface RunControl {
  spawn(ws: KnownWorkspace, body: Record<string, unknown>): Promise<FleetRun[]>;
  /**
   * Begin a kill (the first signal sent, under the run's lock) and answer with the run's view
   * then; the grace and SIGKILL go on after the answer, and the run's `run.state` event says how
   * it ended. See {@link RunControl.settled}.
   */
  kill(ws: KnownWorkspace, run: FleetRun, body: Record<string, unknown>): Promise<FleetRun>;
  respawn(ws: KnownWorkspace, run: FleetRun, body: Record<string, unknown>): Promise<FleetRun>;
  input(ws: KnownWorkspace, run: FleetRun, body: Record<string, unknown>): Promise<void>;
  /**
   * Resolves when every kill begun so far has finished its grace (and SIGKILL): the server waits
   * on it before it exits. `onWait` hears how many are still going, once, if any are.
   */
  settled(onWait?: (pending: number) => void): Promise<void>;
}

function bad(message: string): ArielError {
  return new ArielError("ERR_INVALID_INPUT", message, { hint: "see the API reference in docs/fleet.md" });
}

function graceOf(body: Record<string, unknown>): number {
  const g = body.graceMs ?? DEFAULT_KILL_GRACE_MS;
  if (typeof g !== "number" || !Number.isInteger(g) || g < 0 || g > 3_600_000) {
    throw bad("graceMs must be a whole number of milliseconds (0 to 3600000)");
  }
  return g;
}

function detachedOnly(run: FleetRun, what: string): void {
  if (run.kind !== "detached") {
    throw new ArielError(
      "ERR_REFUSED",
      `run ${run.runId} is a foreground ariel-spawn: it cannot be ${what} from here`,
      {
        hint: "stop it where it runs (Ctrl-C); start runs with ariel-spawn --detach to control them from the fleet",
        context: { runId: run.runId },
      },
    );
  }
}

async function viewOf(ws: KnownWorkspace, runId: string): Promise<FleetRun> {
  const loaded = await loadRun(ws, runId);
  if (!loaded) throw new ArielError("ERR_RUN_NOT_FOUND", `run ${runId} is gone`, { context: { runId } });
  return loaded.view;
}

function strings(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string"))
    throw bad(`${what} must be an array of strings`);
  return v as string[];
}

/** The command and targets of a spawn request's body, checked (400 on a bad field). */
function spawnRequest(body: Record<string, unknown>): { argv: string[]; targets: TargetSpec[] } {
  const argv = strings(body.argv, "argv");
  if (argv.length === 0) throw bad("argv must name a command");
  const sources =
    body.source === undefined
      ? []
      : typeof body.source === "string"
        ? [body.source]
        : strings(body.source, "source");
  if (body.name !== undefined && typeof body.name !== "string") throw bad("name must be a string");
  for (const key of ["shared", "isolate", "sandbox"]) {
    if (body[key] !== undefined && typeof body[key] !== "boolean") throw bad(`${key} must be a boolean`);
  }
  if (body.sandboxNet !== undefined && body.sandboxNet !== "on" && body.sandboxNet !== "none")
    throw bad('sandboxNet must be "on" or "none"');
  return { argv, targets: sources.map((s) => parseTargetArg(s)) };
}

/** The body's sandbox fields as ariel-spawn's flags would give them. */
function sandboxOf(body: Record<string, unknown>): SandboxAsk {
  return {
    ...(body.sandbox === true ? { sandbox: true } : body.sandbox === false ? { noSandbox: true } : {}),
    ...(typeof body.sandboxNet === "string" ? { net: body.sandboxNet } : {}),
  };
}

/** `POST /api/workspaces/{hash}/runs`: start detached runs as `ariel-spawn --detach` does; their views. */
async function spawnRuns(
  env: Readonly<Record<string, string | undefined>>,
  ws: KnownWorkspace,
  body: Record<string, unknown>,
): Promise<FleetRun[]> {
  const { argv, targets } = spawnRequest(body);
  const r = await startDetached(
    hostPorts({ env: env as NodeJS.ProcessEnv, cwd: ws.root }),
    {
      workspaceRoot: ws.root,
      targets,
      argv,
      graceMs: DEFAULT_KILL_GRACE_MS,
      dryRun: false,
      // Like --shared: start even while another detached run works in the same checkout.
      ...(body.shared === true ? { shared: true } : {}),
      ...(body.isolate === true ? { isolate: { span: false, onExit: "remove" as const } } : {}),
      sandbox: sandboxOf(body),
      detach: {
        name: typeof body.name === "string" ? validateRunName(body.name) : null,
        restart: parseRestart(undefined),
        timeoutMs: null,
        graceMs: DEFAULT_KILL_GRACE_MS,
        onExit: null,
        interactive: body.interactive === true,
      },
    },
    { log: new Reporter("ariel-fleet", true, { write: () => true }), isolation: worktreeIsolation },
  );
  // The runs that have a record, started or not (as ariel-spawn --detach prints them).
  const views = r.kind === "started" ? r.views : [];
  if (views.length === 0) {
    const status = r.kind === "started" ? startExit(r.results) : 0;
    throw new ArielError("ERR_SPAWN", `the run did not start (status ${status})`, {
      exit: status || 125,
    });
  }
  return Promise.all(views.map((v) => viewOf(ws, v.record.runId)));
}

/**
 * The first half of a kill, checked and under the run's lock (as `ariel-runs kill`): returns the
 * second half (the grace, SIGKILL), which resolves false when the run's group outlived it.
 */
async function beginFleetKill(
  ws: KnownWorkspace,
  run: FleetRun,
  body: Record<string, unknown>,
): Promise<() => Promise<boolean>> {
  detachedOnly(run, "killed");
  const signal = parseKillSignal(body.signal);
  if (signal === null)
    throw bad(`unknown signal ${quoteValue(body.signal)}; signals: ${KILL_SIGNALS.join(", ")}`);
  const graceMs = graceOf(body);
  const backend = runsBackend(ws.root, ws.hash);
  const start = await withRunLock(ws.root, run.runId, () =>
    beginKill(ws.root, backend, run.runId, signal, "kill"),
  );
  return async () => {
    const view = await finishKill(backend, start, graceMs);
    return view === null || (await runIsOver(view.state, () => backend.groupAlive(view)));
  };
}

/**
 * The RunControl of the local runs backend. `warn` hears of a kill that went wrong after its
 * answer (a group that outlived SIGKILL, an I/O error).
 */
export function runControl(
  env: Readonly<Record<string, string | undefined>>,
  warn: (message: string, runId: string) => void = () => {},
): RunControl {
  const pending = new Set<Promise<void>>();
  return {
    spawn: (ws, body) => spawnRuns(env, ws, body),

    async kill(ws, run, body) {
      const finishing: Promise<void> = (await beginFleetKill(ws, run, body))()
        .catch((e: unknown) => warn(`kill of run ${run.runId}: ${(e as Error)?.message ?? e}`, run.runId))
        .then((ended) => {
          if (ended === false)
            warn(`run ${run.runId} did not end after SIGKILL; check its processes (ps -g PGID)`, run.runId);
        })
        .finally(() => pending.delete(finishing));
      pending.add(finishing);
      return viewOf(ws, run.runId);
    },

    async settled(onWait) {
      if (pending.size > 0) onWait?.(pending.size);
      while (pending.size > 0) await Promise.all([...pending]);
    },

    async respawn(ws, run, body) {
      detachedOnly(run, "respawned");
      const r = await respawnRun(
        hostPorts({ env: env as NodeJS.ProcessEnv, cwd: ws.root }),
        ws.root,
        runsBackend(ws.root, ws.hash),
        run.runId,
        {
          graceMs: graceOf(body),
          dryRun: false,
        },
      );
      return viewOf(ws, r.planned.runId);
    },

    async input(ws, run, body) {
      detachedOnly(run, "written to");
      if (typeof body.data !== "string") throw bad("data must be a string");
      const backend = runsBackend(ws.root, ws.hash);
      const view = await backend.get(run.runId);
      if (!view.record.interactive && !view.record.tty) {
        throw new ArielError("ERR_REFUSED", `run ${run.runId} was not started with --interactive or --tty`, {
          hint: "start it with ariel-spawn --detach --interactive or --tty (or interactive: true in the API)",
        });
      }
      await backend.sendInput(run.runId, new TextEncoder().encode(body.data));
    },
  };
}
