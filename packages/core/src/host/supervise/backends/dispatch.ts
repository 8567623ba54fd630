import { isArielError } from "../../../errors.ts";
import type { RunBackend, RunProblem, RunView } from "../../../runs/backend.ts";
import type { RunRecord } from "../../../runs/record.ts";
import { newestFirst } from "../../../runs/resolve.ts";
import { listRunIds, readRunSync, removeRunFiles } from "../../runs/store.ts";
import { k8sBackend } from "./k8s/backend.ts";
import { k8sChanges } from "./k8s/watch.ts";
import { localBackend } from "./local/backend.ts";

/** What the dispatcher asks of a backend about one of its runs (each folder here is one). */
export type BackendOps = Pick<RunBackend, "get" | "readOutput" | "signal" | "groupAlive" | "sendInput"> &
  Partial<Pick<RunBackend, "changes" | "followOutput" | "prepareRespawn">>;

/** The backends by the name a run record gives (`backend` in run.json). */
export const BACKENDS = {
  local: localBackend,
  k8s: k8sBackend,
} satisfies Record<RunRecord["backend"], (root: string, hash: string) => BackendOps>;

/**
 * The backend `ariel-runs` uses: each run by its record's `backend` ({@link BACKENDS}). New runs
 * start on the local backend (a k8s run is started by `ariel-spawn --backend k8s`); waiting for
 * changes is the k8s pod watch, which only waits out `ms` for a local run.
 */
export function runsBackend(root: string, hash: string): RunBackend {
  const local = BACKENDS.local(root, hash);
  const backends: Record<RunRecord["backend"], BackendOps> = { local, k8s: BACKENDS.k8s(root) };
  const of = (runId: string) => backends[readRunSync(root, runId).backend];
  return {
    name: "local",
    start: (specs) => local.start(specs),
    list: () => listAll(root, backends),
    get: async (runId) => of(runId).get(runId),
    readOutput: async (runId, stream, from, max) => of(runId).readOutput(runId, stream, from, max),
    signal: async (view, signal) => backends[view.record.backend].signal(view, signal),
    groupAlive: async (view) => backends[view.record.backend].groupAlive(view),
    sendInput: async (runId, data) => of(runId).sendInput(runId, data),
    changes: k8sChanges,
    async followOutput(runId, stream, from, write, signal) {
      const b = of(runId);
      return b.followOutput ? b.followOutput(runId, stream, from, write, signal) : false;
    },
    prepareRespawn: async (old) => (await backends[old.backend].prepareRespawn?.(old)) ?? null,
    remove: (runId) => removeRunFiles(root, runId),
  };
}

/** Every run of the workspace, newest first; one whose record cannot be read is a problem. */
async function listAll(
  root: string,
  backends: Record<RunRecord["backend"], BackendOps>,
): Promise<{ runs: RunView[]; problems: RunProblem[] }> {
  const runs: RunView[] = [];
  const problems: RunProblem[] = [];
  for (const runId of listRunIds(root)) {
    try {
      const record = readRunSync(root, runId); // read once: the backend's view starts from it
      runs.push(await backends[record.backend].get(runId, record));
    } catch (e) {
      if (!isArielError(e)) throw e;
      if (e.code === "ERR_RUN_NOT_FOUND") continue;
      problems.push({ runId, code: e.code, message: e.message });
    }
  }
  runs.sort((a, b) => newestFirst(a.record, b.record));
  return { runs, problems };
}
