/**
 * What the keys do, each through the very host operation its CLI calls, with the CLI's refusals:
 * kill and respawn as `ariel-runs kill|respawn` (host/supervise/control.ts), send as `ariel-runs
 * send` (sendToRun), a new run as `ariel-spawn --detach` (startDetached), diff, land and remove as
 * `ariel-worktree diff|land|remove` (host/land, host/worktree). Each returns what happened as
 * lines for the status line or a dialog; an ArielError is shown with its code and hint, as the
 * CLI's error record would say it. Nothing here prints.
 */
import {
  ArielError,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_TTY_SIZE,
  type FleetRun,
  isArielError,
  type LandPlan,
  ON_EXIT_TIMEOUT_MS,
  parseRestart,
  parseTargetArg,
  presetFor,
  refusalError,
  removeRefusalSummary,
  validateRunName,
  validateTaskId,
} from "@ariel/core";
import {
  diffTask,
  hostPorts,
  type KnownWorkspace,
  killRun,
  type LandTaskResult,
  type LegDiff,
  landRecords,
  landTask,
  Reporter,
  removeTask,
  respawnRun,
  runsBackend,
  sendToRun,
  startDetached,
  startExit,
  terminalSize,
  worktreeIsolation,
} from "@ariel/core/host";
import { type NewRunRequest, sourceNames } from "../model/form.ts";

/** What an action did, for the person: one line, and more for a dialog. */
export interface Outcome {
  ok: boolean;
  message: string;
  lines?: string[];
  /** The exit status the CLI would have ended with (0, 3 for a refusal, …). */
  exit: number;
}

/** An error as the CLI's error record says it: code, message, hint (the next command). */
export function failed(e: unknown): Outcome {
  if (isArielError(e)) {
    return {
      ok: false,
      message: `${e.code}: ${e.message}`,
      lines: [`${e.code}: ${e.message}`, ...(e.hint ? [`hint: ${e.hint}`] : [])],
      exit: e.exit,
    };
  }
  return { ok: false, message: `error: ${(e as Error).message}`, exit: 70 };
}

function detachedOnly(run: FleetRun, what: string): void {
  if (run.kind !== "detached") {
    throw new ArielError(
      "ERR_REFUSED",
      `run ${run.runId} is a foreground ariel-spawn: it cannot be ${what} from here`,
      {
        hint: "stop it where it runs (Ctrl-C); start runs with ariel-spawn --detach (or n here) to control them",
        context: { runId: run.runId },
      },
    );
  }
}

const nameOf = (r: FleetRun) => r.name ?? r.runId;

export class Actions {
  readonly #env: NodeJS.ProcessEnv;
  constructor(env: NodeJS.ProcessEnv) {
    this.#env = env;
  }

  #ports(root: string) {
    return hostPorts({ env: this.#env, cwd: root });
  }

  /** `ariel-runs kill RUN`: TERM to its group, KILL after the default grace. */
  async kill(run: FleetRun): Promise<Outcome> {
    try {
      detachedOnly(run, "killed");
      const backend = runsBackend(run.workspace.root, run.workspace.hash);
      const r = await killRun(run.workspace.root, backend, run.runId, {
        signal: "SIGTERM",
        graceMs: DEFAULT_KILL_GRACE_MS,
      });
      if (r.alreadyEnded)
        return { ok: true, message: `${nameOf(run)} had already ended; nothing was signalled`, exit: 0 };
      return { ok: true, message: `killed ${nameOf(run)} (${r.view?.state ?? "removed"})`, exit: 0 };
    } catch (e) {
      return failed(e);
    }
  }

  /** `ariel-runs respawn RUN [--resume]`. */
  async respawn(run: FleetRun, resume: boolean): Promise<Outcome> {
    try {
      detachedOnly(run, "respawned");
      const root = run.workspace.root;
      const backend = runsBackend(root, run.workspace.hash);
      const r = await respawnRun(this.#ports(root), root, backend, run.runId, {
        graceMs: DEFAULT_KILL_GRACE_MS,
        dryRun: false,
        resume,
      });
      const id = r.started?.record.runId ?? r.planned.runId;
      return {
        ok: r.status === 0,
        message: `respawned ${nameOf(run)} as ${id}${resume ? " (--resume)" : ""}`,
        exit: r.status,
      };
    } catch (e) {
      return failed(e);
    }
  }

  /** `ariel-runs send RUN TEXT --enter`. */
  async send(run: FleetRun, text: string): Promise<Outcome> {
    try {
      detachedOnly(run, "sent input");
      await sendToRun(runsBackend(run.workspace.root, run.workspace.hash), run.runId, text, true);
      return { ok: true, message: `sent ${JSON.stringify(text)} to ${nameOf(run)}`, exit: 0 };
    } catch (e) {
      return failed(e);
    }
  }

  /** `ariel-spawn --detach --tty …` in `ws`, from the `n` form's request. */
  async start(ws: KnownWorkspace, req: NewRunRequest): Promise<Outcome> {
    try {
      if (req.task !== "") validateTaskId(req.task);
      const size = terminalSize() ?? undefined;
      const r = await startDetached(
        this.#ports(ws.root),
        {
          workspaceRoot: ws.root,
          targets: sourceNames(req.source).map((s) => parseTargetArg(s)),
          argv: req.argv,
          graceMs: DEFAULT_KILL_GRACE_MS,
          dryRun: false,
          ...(req.isolate
            ? {
                isolate: {
                  ...(req.task !== "" ? { taskId: req.task } : {}),
                  span: req.span,
                  onExit: req.keep ? ("keep" as const) : ("remove" as const),
                },
              }
            : {}),
          ...(req.sandbox ? { sandbox: { sandbox: true, agent: req.agent === "" ? null : req.agent } } : {}),
          detach: {
            name: req.name === "" ? null : validateRunName(req.name),
            restart: parseRestart(undefined),
            timeoutMs: null,
            graceMs: DEFAULT_KILL_GRACE_MS,
            onExit: null,
            onExitTimeoutMs: ON_EXIT_TIMEOUT_MS,
            interactive: false,
            tty: size ?? DEFAULT_TTY_SIZE,
            agent: presetFor(req.agent === "" ? null : req.agent, req.argv).name,
          },
        },
        { log: new Reporter("ariel", true, { write: () => true }), isolation: worktreeIsolation },
      );
      const views = r.kind === "started" ? r.views : [];
      const status = r.kind === "started" ? startExit(r.results) : 0;
      if (views.length === 0 || status !== 0) {
        const why = r.kind === "started" ? r.results.find((x) => !x.ok) : undefined;
        throw new ArielError(
          "ERR_SPAWN",
          `the run did not start${why && !why.ok ? `: ${why.message}` : ""} (status ${status})`,
          { exit: status || 125 },
        );
      }
      const names = views.map((v) => v.record.name ?? v.record.runId).join(", ");
      return { ok: true, message: `started ${names}`, exit: 0 };
    } catch (e) {
      return failed(e);
    }
  }

  /** `ariel-worktree diff --task T --patch`. */
  async diff(ws: { root: string }, taskId: string): Promise<LegDiff[]> {
    return diffTask(this.#ports(ws.root), { root: ws.root, taskId, stat: false, patch: true });
  }

  /** `ariel-worktree land -n --task T`: the plan, or the refusal (nothing changes either way). */
  async landPlan(ws: { root: string }, taskId: string): Promise<{ plan: LandPlan; outcome: Outcome }> {
    const r = await landTask(this.#ports(ws.root), {
      root: ws.root,
      taskId,
      strategy: "merge",
      dryRun: true,
    });
    return { plan: r.plan, outcome: r.plan.refused ? landRefused(r.plan) : planOutcome(r.plan) };
  }

  /** `ariel-worktree land --task T`: every leg or none; each leg's outcome. */
  async land(ws: { root: string }, taskId: string): Promise<Outcome> {
    try {
      const r = await landTask(this.#ports(ws.root), { root: ws.root, taskId, strategy: "merge" });
      if (r.plan.refused) return landRefused(r.plan);
      return landed(r);
    } catch (e) {
      return failed(e);
    }
  }

  /** `ariel-worktree remove --task T`: refuses to lose work; the refusal names the next command. */
  async remove(ws: { root: string }, taskId: string): Promise<Outcome> {
    try {
      const r = await removeTask(this.#ports(ws.root), {
        root: ws.root,
        taskId,
        allow: [],
        snapshot: false,
        dryRun: false,
      });
      if (r.hooks && r.hooks.failed.length > 0) {
        const legs = r.hooks.failed.map((f) => f.source).join(", ");
        return {
          ok: false,
          message: `kept ${taskId}: the pre-remove hook of ${legs} failed; log: ${r.hooks.log}`,
          lines: [`to remove without hooks: ariel-worktree remove --task ${taskId} --no-hooks`],
          exit: 3,
        };
      }
      if (r.refused) {
        const lines = r.plan.legs.flatMap((l) =>
          l.standing.map((s) => {
            const e = refusalError(s.code, s.message, { task: taskId, source: l.source, reason: s.reason });
            return `${e.code}: ${e.message}`;
          }),
        );
        const refused = r.plan.legs.flatMap((l) =>
          l.standing[0] ? [{ source: l.source, reason: l.standing[0].reason }] : [],
        );
        const summary = removeRefusalSummary({ task: taskId, refused, snapshot: false, root: ws.root });
        return { ok: false, message: summary, lines: [...lines, summary], exit: 3 };
      }
      const removed = r.results.filter((x) => x.outcome !== "kept").map((x) => x.source);
      return {
        ok: true,
        message: `removed ${taskId}: ${removed.join(", ") || "nothing to remove"}`,
        exit: 0,
      };
    } catch (e) {
      return failed(e);
    }
  }
}

/** The land's plan for the dialog: per leg, what moves where. */
function planOutcome(plan: LandPlan): Outcome {
  const lines = plan.legs.map(
    (l) =>
      `${l.action === "land" ? "land" : "skip"}  ${l.source}: ${l.branch} → ${l.target ?? "-"}  ${l.commits} commit${l.commits === 1 ? "" : "s"} (${plan.strategy})`,
  );
  return { ok: true, message: `land ${plan.task}: ${plan.changes} leg(s) move`, lines, exit: 0 };
}

/** A refused land: each refused leg's error as the CLI prints it, and the closing line. */
function landRefused(plan: LandPlan): Outcome {
  const lines: string[] = [];
  for (const leg of plan.legs) {
    for (const r of leg.refusals) {
      const e = refusalError(r.code, r.message, { task: plan.task, source: leg.source, reason: r.reason });
      lines.push(`${e.code}: ${e.message}`, `  hint: ${e.hint}`);
    }
  }
  const legs = plan.legs
    .filter((l) => l.refusals.length > 0)
    .map((l) => `${l.source} (${l.refusals[0]?.reason})`);
  const summary = `nothing landed: ${legs.join(", ")} refused; ariel-worktree diff --task ${plan.task} shows the task`;
  return { ok: false, message: summary, lines: [...lines, summary], exit: 3 };
}

function landed(r: LandTaskResult): Outcome {
  const rows = landRecords(r);
  const lines = rows.map(
    (x) => `${x.source}: ${x.outcome} → ${x.target ?? "-"} ${(x.to ?? "").slice(0, 12)}`,
  );
  const uncommitted = r.plan.legs.filter((l) => l.uncommitted.length > 0);
  for (const l of uncommitted)
    lines.push(`${l.source}: ${l.uncommitted.length} uncommitted path(s) in the leg were not landed`);
  return {
    ok: true,
    message: `landed ${r.plan.task}: ${rows.map((x) => `${x.source} ${x.outcome}`).join(", ")}`,
    lines,
    exit: 0,
  };
}
