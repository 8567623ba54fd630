import type { ExitRecord, RunRecord } from "./record.ts";

/** Every state a run can be in; the first three are live, the rest final. */
export const RUN_STATES = ["starting", "running", "exited", "failed", "killed", "lost", "crashed"] as const;
export type RunState = (typeof RUN_STATES)[number];

/** States after which nothing more happens to a run. */
export const FINAL_STATES: ReadonlySet<RunState> = new Set(["exited", "failed", "killed", "lost", "crashed"]);

/** What the host observed about a run, right now. */
export interface RunFacts {
  record: Pick<RunRecord, "monitor" | "child">;
  exit: Pick<ExitRecord, "state"> | null;
  /** The machine's boot id now (null where it cannot be read). */
  bootId: string | null;
  /** The recorded monitor is this very process (pid, start time and boot id all match). */
  monitorAlive: boolean;
}

/**
 * The state of a run, derived from facts and never guessed: `exit.json` decides a final state;
 * without it a run whose monitor lives is `starting` (no child yet, or between restarts) or
 * `running`; one whose monitor is gone is `lost` (its exit is unknown), or `crashed` when the
 * machine rebooted since it started.
 *
 * @example
 * ```ts
 * deriveRunState({ record: { monitor: null, child: null }, exit: null, bootId: "b", monitorAlive: false });
 * // "lost"
 * ```
 */
export function deriveRunState(f: RunFacts): RunState {
  if (f.exit) return f.exit.state;
  const bootOfRun = f.record.monitor?.bootId ?? null;
  if (bootOfRun !== null && f.bootId !== null && bootOfRun !== f.bootId) return "crashed";
  if (!f.monitorAlive) return "lost";
  return f.record.child === null ? "starting" : "running";
}

/** The final state of an exit: `killed` when ariel asked for it, `exited` on status 0, else `failed`. */
export function exitState(status: number, killRequested: boolean): ExitRecord["state"] {
  if (killRequested) return "killed";
  return status === 0 ? "exited" : "failed";
}
