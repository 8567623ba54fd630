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

export interface ContainerStatusLike {
  name: string;
  restartCount?: number;
  state?: { terminated?: { exitCode?: number; signal?: number; reason?: string } };
}

export interface PodLike {
  metadata?: { name?: string; creationTimestamp?: string };
  status?: { phase?: string; reason?: string; containerStatuses?: ContainerStatusLike[] };
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
  // A pod that failed or was evicted while the Job has no final condition is being retried
  // (backoffLimit from --restart): the run is `starting` again until a new pod runs.
  return pods.some((p) => p.status?.phase === "Running") ? "running" : "starting";
}

/** The container that runs the command (the init container `clone` prepares its checkout). */
export const RUN_CONTAINER = "run";

/** The newest pod (by creation time, then name): the one whose log and exit a run shows. */
export function latestPod<P extends PodLike>(pods: readonly P[]): P | null {
  let best: P | null = null;
  for (const p of pods) {
    const k = `${p.metadata?.creationTimestamp ?? ""}\0${p.metadata?.name ?? ""}`;
    const b =
      best === null ? null : `${best.metadata?.creationTimestamp ?? ""}\0${best.metadata?.name ?? ""}`;
    if (b === null || k > b) best = p;
  }
  return best;
}

/** How a k8s run ended: the `run` container's exit code from the newest pod that has one. */
export interface PodExit {
  code: number | null;
  /** Shell-style: the code, or 137 when an eviction or deletion killed it without one, 1 when unknown. */
  status: number;
  /** `Evicted`, `DeadlineExceeded`, ... when Kubernetes ended it; null for a plain exit. */
  reason: string | null;
  /** How many times the run container was restarted in place, summed over the pods. */
  restarts: number;
}

/**
 * The run's exit from its pods: the newest pod's `run` container's terminated exit code; an
 * evicted pod (no exit code) gives 137 and reason `Evicted`; no terminated container gives 1.
 */
export function podExit(pods: readonly PodLike[], state: RunState): PodExit {
  const restarts = pods.reduce(
    (n, p) => n + (p.status?.containerStatuses?.find((c) => c.name === RUN_CONTAINER)?.restartCount ?? 0),
    0,
  );
  const pod = latestPod(pods);
  const t = pod?.status?.containerStatuses?.find((c) => c.name === RUN_CONTAINER)?.state?.terminated;
  if (t?.exitCode !== undefined) {
    return { code: t.exitCode, status: t.exitCode & 0xff, reason: null, restarts };
  }
  if (pod?.status?.reason === "Evicted") return { code: null, status: 137, reason: "Evicted", restarts };
  return { code: null, status: state === "killed" ? 137 : 1, reason: null, restarts };
}
