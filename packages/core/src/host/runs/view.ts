import type { RunView } from "../../runs/backend.ts";
import type { RunRecord } from "../../runs/record.ts";
import { deriveRunState } from "../../runs/state.ts";
import { bootId, groupIsOurs, isSameProcess } from "./identity.ts";
import { readExitSync, readRunSync } from "./store.ts";

/** A run's view now: its record, its exit and the state derived from both and the live processes. */
export function viewRun(root: string, runId: string, read?: RunRecord): RunView {
  const record = read ?? readRunSync(root, runId);
  // run.json carries a copy of exit.json once the monitor finished: one file to read, not two.
  const copy = record.exit;
  const exit =
    copy?.state !== undefined
      ? {
          v: 1 as const,
          type: "exit" as const,
          runId,
          ...copy,
          state: copy.state,
          reason: copy.reason ?? null,
        }
      : readExitSync(root, runId);
  const monitorAlive = exit === null && record.monitor !== null && isSameProcess(record.monitor);
  return { record, exit, state: deriveRunState({ record, exit, bootId: bootId(), monitorAlive }) };
}

/** Whether any process of a local run's group is still ours (pid, start time, boot id). */
export function localGroupAlive(view: RunView): boolean {
  const child = view.record.child;
  return child !== null && groupIsOurs(child, view.record.monitor?.bootId ?? null);
}
