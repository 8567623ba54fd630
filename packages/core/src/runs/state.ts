import type { ExitRecord, RunRecord } from "./record.ts";

/** Every state a run can be in; the first three are live, the rest final. */
export const RUN_STATES = ["starting", "running", "exited", "failed", "killed", "lost", "crashed"] as const;
export type RunState = (typeof RUN_STATES)[number];

/** States after which nothing more happens to a run. */
export const FINAL_STATES: ReadonlySet<RunState> = new Set(["exited", "failed", "killed", "lost", "crashed"]);

/** The final states an exit records (`exit.json`): the run ended and its status is known. */
export const EXIT_STATES = ["exited", "failed", "killed"] as const;
export type ExitState = (typeof EXIT_STATES)[number];

/** True for a final state whose exit is known ({@link EXIT_STATES}); false for `lost`, `crashed` and live ones. */
export function isExitState(state: string): state is ExitState {
  return (EXIT_STATES as readonly string[]).includes(state);
}

/**
 * Whether a run still works, the one rule every caller asks: a live state (`starting`,
 * `running`), or `lost` (its monitor gone) while its process group still runs. `groupAlive` is
 * asked only for a lost run; an ended run (`exited`, `failed`, `killed`, `crashed`) is not live.
 *
 * @example
 * ```ts
 * await runIsLive("running", async () => false); // true
 * await runIsLive("lost", async () => true);     // true
 * await runIsLive("lost", async () => false);    // false
 * ```
 */
export async function runIsLive(
  state: RunState,
  groupAlive: () => Promise<boolean> | boolean,
): Promise<boolean> {
  if (!FINAL_STATES.has(state)) return true;
  return state === "lost" && (await groupAlive());
}

/**
 * Whether a run is over for good, what a kill waits for: a final state and no process of its
 * group left (a `killed` run whose grandchild still runs is not over). `groupAlive` is asked only
 * for a final run.
 *
 * @example
 * ```ts
 * await runIsOver("killed", async () => false); // true
 * await runIsOver("killed", async () => true);  // false
 * await runIsOver("running", async () => false); // false
 * ```
 */
export async function runIsOver(
  state: RunState,
  groupAlive: () => Promise<boolean> | boolean,
): Promise<boolean> {
  return FINAL_STATES.has(state) && !(await groupAlive());
}

/** {@link runIsLive} for a caller that can only ask synchronously (`groupAlive` is sync). */
export function runIsLiveSync(state: RunState, groupAlive: () => boolean): boolean {
  if (!FINAL_STATES.has(state)) return true;
  return state === "lost" && groupAlive();
}

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
