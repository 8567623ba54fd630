import { ArielError, isArielError } from "../../errors.ts";
import type { RunRecord } from "../../runs/record.ts";
import { resolveRun } from "../../runs/resolve.ts";
import { listRunIds, readRunSync } from "./store.ts";

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
  const records: RunRecord[] = [];
  for (const runId of listRunIds(root)) {
    try {
      records.push(readRunSync(root, runId));
    } catch (e) {
      if (!isArielError(e)) throw e;
      if (e.code === "ERR_RUN_NOT_FOUND") continue; // removed meanwhile, or still being made
      if (runId === ref) throw new ArielError("ERR_RECORD_CORRUPT", e.message, { context: { runId: ref } });
    }
  }
  return resolveRun(records, ref).runId;
}
