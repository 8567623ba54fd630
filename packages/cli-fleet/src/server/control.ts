import {
  ArielError,
  type FleetRun,
  parseRestart,
  parseTargetArg,
  quoteValue,
  RUN_ID_PATTERN,
  type TargetSpec,
  validateRunName,
} from "@ariel/core";
import {
  hostPorts,
  type KnownWorkspace,
  killRun,
  loadRun,
  Output,
  Reporter,
  respawnRun,
  runsBackend,
  startDetached,
  worktreeIsolation,
} from "@ariel/core/host";

/**
 * What the API asks of runs when it changes something: the very functions `ariel-runs` and
 * `ariel-spawn --detach` call (killRun, respawnRun, startDetached, the backend's sendInput);
 * this file only checks the request body and turns the result into fleet run views.
 */
export interface RunControl {
  spawn(ws: KnownWorkspace, body: Record<string, unknown>): Promise<FleetRun[]>;
  kill(ws: KnownWorkspace, run: FleetRun, body: Record<string, unknown>): Promise<FleetRun>;
  respawn(ws: KnownWorkspace, run: FleetRun, body: Record<string, unknown>): Promise<FleetRun>;
  input(ws: KnownWorkspace, run: FleetRun, body: Record<string, unknown>): Promise<void>;
}

/** The signals a kill may start with (as `ariel-runs kill --signal`). */
const SIGNALS = new Set(["TERM", "INT", "HUP", "KILL", "QUIT", "USR1", "USR2"]);
/** Default time between SIGTERM and SIGKILL (as `ariel-runs kill`). */
const DEFAULT_GRACE_MS = 10_000;

function bad(message: string): ArielError {
  return new ArielError("ERR_INVALID_INPUT", message, { hint: "see the API reference in docs/fleet.md" });
}

function graceOf(body: Record<string, unknown>): number {
  const g = body.graceMs ?? DEFAULT_GRACE_MS;
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

/** The RunControl of the local runs backend. */
export function runControl(env: Readonly<Record<string, string | undefined>>): RunControl {
  return {
    async spawn(ws, body) {
      const argv = strings(body.argv, "argv");
      if (argv.length === 0) throw bad("argv must name a command");
      const sources =
        body.source === undefined
          ? []
          : typeof body.source === "string"
            ? [body.source]
            : strings(body.source, "source");
      const targets: TargetSpec[] = sources.map((s) => parseTargetArg(s));
      if (body.name !== undefined && typeof body.name !== "string") throw bad("name must be a string");
      let captured = "";
      const sink = {
        write(s: string) {
          captured += s;
          return true;
        },
      };
      const status = await startDetached(
        hostPorts({ env: env as NodeJS.ProcessEnv, cwd: ws.root }),
        {
          workspaceRoot: ws.root,
          targets,
          argv,
          graceMs: DEFAULT_GRACE_MS,
          json: true,
          dryRun: false,
          detailedExitcode: false,
          detach: {
            name: typeof body.name === "string" ? validateRunName(body.name) : null,
            restart: parseRestart(undefined),
            timeoutMs: null,
            graceMs: DEFAULT_GRACE_MS,
            onExit: null,
            interactive: body.interactive === true,
          },
        },
        {
          out: new Output(sink),
          stderr: { write: () => true },
          log: new Reporter("ariel-fleet", true, { write: () => true }),
          abort: new AbortController().signal,
          stdinFree: true,
          tty: false,
          isolation: worktreeIsolation,
        },
      );
      const ids = captured
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => (JSON.parse(l) as { runId?: unknown }).runId)
        .filter((id): id is string => typeof id === "string" && RUN_ID_PATTERN.test(id));
      if (ids.length === 0) {
        throw new ArielError("ERR_SPAWN", `the run did not start (status ${status})`, {
          exit: status || 125,
        });
      }
      return Promise.all(ids.map((id) => viewOf(ws, id)));
    },

    async kill(ws, run, body) {
      detachedOnly(run, "killed");
      const raw = String(body.signal ?? "TERM")
        .toUpperCase()
        .replace(/^SIG/, "");
      if (!SIGNALS.has(raw))
        throw bad(`unknown signal ${quoteValue(body.signal)}; signals: ${[...SIGNALS].join(", ")}`);
      await killRun(ws.root, runsBackend(ws.root, ws.hash), run.runId, {
        signal: `SIG${raw}`,
        graceMs: graceOf(body),
      });
      return viewOf(ws, run.runId);
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
