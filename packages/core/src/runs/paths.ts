import { joinPosix } from "../paths.ts";
import { runsDir, stateDir } from "../state_paths.ts";

export { runsDir };

/**
 * Where a workspace keeps its runs: one directory per detached run under `<root>/.ariel/runs/`,
 * next to the run's event history `<runId>.ndjson` (the one history format of foreground and
 * detached runs).
 *
 * @example
 * ```ts
 * runPaths("/ws", "20261202T110943Z-abc123").stdout;
 * // "/ws/.ariel/runs/20261202T110943Z-abc123/stdout"
 * ```
 */
export interface RunPaths {
  dir: string;
  record: string;
  exit: string;
  stdout: string;
  stderr: string;
  /** Output of the `--on-exit` hook. */
  onExit: string;
  /** Output of the `--notify` command. */
  notify: string;
  /** A live tty run's activity, written by its monitor on each move (`ariel-runs list`). */
  attention: string;
  /** A k8s run's Job plan (its facts and options), from which `respawn` plans the new Job. */
  job: string;
  /** Serializes kill, respawn, rm and the monitor's final write of this run. */
  lock: string;
  history: string;
}

/** The file names inside a run directory (one home for each). */
export const RUN_FILES = {
  record: "run.json",
  exit: "exit.json",
  stdout: "stdout",
  stderr: "stderr",
  onExit: "on-exit.log",
  notify: "notify.log",
  attention: "attention.json",
  job: "job.json",
} as const;

/**
 * Every path of one run. `runId` must match RUN_ID_PATTERN (no `/`, no `..`): the paths are
 * joined by concatenation, which `list` over thousands of runs needs to be cheap.
 */
export function runPaths(root: string, runId: string): RunPaths {
  const runs = runsDir(root);
  const dir = `${runs}/${runId}`;
  return {
    dir,
    record: `${dir}/${RUN_FILES.record}`,
    exit: `${dir}/${RUN_FILES.exit}`,
    stdout: `${dir}/${RUN_FILES.stdout}`,
    stderr: `${dir}/${RUN_FILES.stderr}`,
    onExit: `${dir}/${RUN_FILES.onExit}`,
    notify: `${dir}/${RUN_FILES.notify}`,
    attention: `${dir}/${RUN_FILES.attention}`,
    job: `${dir}/${RUN_FILES.job}`,
    lock: `${dir}/run.lock`,
    history: `${runs}/${runId}.ndjson`,
  };
}

/** The workspace monitor's files: its socket, the lock that lets one CLI start it, its identity. */
export function monitorPaths(root: string): { socket: string; lock: string; info: string } {
  const dir = stateDir(root);
  return {
    socket: joinPosix(dir, "monitor.sock"),
    lock: joinPosix(dir, "monitor.lock"),
    info: joinPosix(dir, "monitor.json"),
  };
}
