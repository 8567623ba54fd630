/**
 * Sandboxed units of a spawn (docs/sandbox.md): each planned unit gets its recorded sandbox
 * (`withSandboxes`, foreground and detached alike), and a foreground run wraps each sandboxed
 * child in bubblewrap and brings its work home when it ends (`ForegroundSandboxes`), before
 * its worktree is removed or kept.
 */
import type { Config } from "../../config.ts";
import { isArielError } from "../../errors.ts";
import type { Clock, Random } from "../../ports.ts";
import { sandboxLegs } from "../../sandbox/legs.ts";
import { syncEventFields, syncWarnings } from "../../sandbox/report.ts";
import type { SpawnUnit } from "../../spawn/plan.ts";
import type { SpawnSource } from "../../spawn/resolve.ts";
import { makeRunId } from "../../spawn/run_id.ts";
import type { Reporter } from "../cli/mod.ts";
import { processStartTime } from "../proc.ts";
import { sandboxLaunch } from "../sandbox/launch.ts";
import { recordedSandbox, type SandboxAsk } from "../sandbox/resolve.ts";
import { recordSandboxChild, syncSandbox } from "../sandbox/sync.ts";
import { warnWithHint } from "../warn.ts";
import type { EmitEvent } from "./execute.ts";

/** Each unit with its recorded sandbox (the run's places are its legs, or the checkout it runs in). */
export function withSandboxes(
  units: SpawnUnit[],
  ask: SandboxAsk | undefined,
  config: Config,
  run: {
    root: string;
    targets: readonly SpawnSource[];
    env: Readonly<Record<string, string | undefined>>;
    cwd: string;
  },
): SpawnUnit[] {
  return units.map((u) => ({
    ...u,
    sandbox: recordedSandbox(ask, config, {
      root: run.root,
      places: sandboxLegs(u).map((l) => l.path),
      sources: run.targets.filter((t) => u.sources.includes(t.name)).map((t) => t.path),
      argv: u.argv,
      env: run.env,
      cwd: run.cwd,
    }),
  }));
}

/** The sandboxes of a foreground run's units: made before each child starts, synced when it ends. */
export class ForegroundSandboxes {
  readonly #ids = new Map<SpawnUnit, string>();
  readonly #o: { root: string; clock: Clock; random: Random; emit: EmitEvent; log: Reporter };

  constructor(o: { root: string; clock: Clock; random: Random; emit: EmitEvent; log: Reporter }) {
    this.#o = o;
  }

  /** The argv of a sandboxed unit (its sandbox prepared), or null for one without a sandbox. */
  async wrap(unit: SpawnUnit, env: Readonly<Record<string, string>>): Promise<string[] | null> {
    if (!unit.sandbox) return null;
    const id = makeRunId(this.#o.clock, this.#o.random);
    this.#ids.set(unit, id);
    const l = await sandboxLaunch({
      root: this.#o.root,
      runId: id,
      task: unit.env.ARIEL_TASK ?? null,
      sandbox: unit.sandbox,
      legs: sandboxLegs(unit),
      cwd: unit.cwd,
      env,
      argv: unit.argv,
    });
    return l.argv;
  }

  /** The sandbox id of a unit (its directory under `.ariel/sandbox/`), once made. */
  idOf(unit: SpawnUnit): string | null {
    return this.#ids.get(unit) ?? null;
  }

  /** A sandboxed child started: its process is the sandbox's (its end is the sandbox's end). */
  async started(unit: SpawnUnit, pid: number): Promise<void> {
    const id = this.#ids.get(unit);
    if (id) recordSandboxChild(this.#o.root, id, { pid, startTime: processStartTime(pid) });
  }

  /**
   * A sandboxed child ended: its work brought home (`sandbox.synced`, warnings for what could
   * not go). A sync that fails is said; the sandbox stays for the next command or reconcile.
   */
  async settle(unit: SpawnUnit): Promise<void> {
    const id = this.#ids.get(unit);
    if (!id) return;
    try {
      const r = await syncSandbox(this.#o.root, id, { final: true });
      if (!r) return;
      this.#o.emit("sandbox.synced", unit.source, syncEventFields(r));
      for (const w of syncWarnings(r)) warnWithHint(this.#o.log, w);
    } catch (e) {
      this.#o.log.warn(
        "WARN_SANDBOX_SYNC",
        `the sandbox's work is not home yet (${isArielError(e) ? e.code : ((e as Error).message ?? e)}); it stays in .ariel/sandbox/${id}`,
        { sandbox: id, hint: "ariel-worktree reconcile finishes it" },
      );
    }
  }
}
