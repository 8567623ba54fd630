import { ArielError } from "../../errors.ts";
import { resolveRun } from "../../runs/resolve.ts";
import { corruptRunHint, readEachRun, readRunSync } from "./store.ts";

/**
 * A RUN argument (an id, a name, a unique prefix of an id) as a run id, from the run records
 * (`run.json`) alone: no state is derived, no process looked at, no Kubernetes API asked. A run
 * whose record is damaged is left out, unless RUN names it exactly: then ERR_RECORD_CORRUPT.
 * ERR_RUN_NOT_FOUND (66) or ERR_RUN_AMBIGUOUS (65) as {@link resolveRun} says.
 *
 * @example
 * ```ts
 * resolveRunId("/w", "agent"); // "20261202T110943Z-abc123", the newest run named agent
 * ```
 */
export function resolveRunId(root: string, ref: string): string {
  const { runs, problems } = readEachRun(root, (runId) => readRunSync(root, runId));
  const bad = problems.find((p) => p.runId === ref);
  if (bad) {
    throw new ArielError("ERR_RECORD_CORRUPT", bad.message, {
      hint: corruptRunHint(ref),
      context: { runId: ref },
    });
  }
  return resolveRun(runs, ref).runId;
}
