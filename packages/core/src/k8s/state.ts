/**
 * A k8s run's state from its Job's and pods' status (docs/kubernetes.md, States), the same
 * states as a local run's: the Job's `Complete`/`Failed` condition decides a final state; while
 * it has none, a pod in phase `Running` makes the run `running`, else it is `starting`. A Job that
 * is gone before ariel saw it end is `lost`: its exit is unknown and never invented.
 *
 * @example
 * ```ts
 * jobRunState({ status: { conditions: [{ type: "Complete", status: "True" }] } }, [], false); // "exited"
 * ```
 */
import type { RunState } from "../runs/state.ts";

export interface JobCondition {
  type: string;
  status: string;
  reason?: string;
}

export interface JobLike {
  metadata?: { deletionTimestamp?: string };
  status?: { active?: number; succeeded?: number; failed?: number; conditions?: JobCondition[] };
}

export interface PodLike {
  status?: { phase?: string; reason?: string };
}

/** `Failed` reasons that mean ariel ended the run (its `--timeout`). */
const KILLED_REASONS = new Set(["DeadlineExceeded"]);

/** The run's state; `killRequested` is set once `ariel-runs kill` deleted (or is deleting) the Job. */
export function jobRunState(job: JobLike | null, pods: readonly PodLike[], killRequested: boolean): RunState {
  if (job === null) return killRequested ? "killed" : "lost";
  const cond = (type: string) => job.status?.conditions?.find((c) => c.type === type && c.status === "True");
  if (cond("Complete")) return killRequested ? "killed" : "exited";
  const failed = cond("Failed");
  if (failed) return killRequested || KILLED_REASONS.has(failed.reason ?? "") ? "killed" : "failed";
  if (killRequested || job.metadata?.deletionTimestamp !== undefined) return "killed";
  return pods.some((p) => p.status?.phase === "Running") ? "running" : "starting";
}
