import type { RunProblem, RunView } from "../../../../runs/backend.ts";
import { newestFirst } from "../../../../runs/resolve.ts";
import { readEachRun } from "../../../runs/store.ts";
import { viewRun } from "../../../runs/view.ts";

/** Every local run's view (read from its records), newest first; unreadable ones as problems. */
export function listLocal(root: string): { runs: RunView[]; problems: RunProblem[] } {
  const { runs, problems } = readEachRun(root, (runId) => viewRun(root, runId));
  runs.sort((a, b) => newestFirst(a.record, b.record));
  return { runs, problems };
}
