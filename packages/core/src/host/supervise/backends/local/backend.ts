import type { RunBackend } from "../../../../runs/backend.ts";
import { removeRunFiles } from "../../../runs/store.ts";
import { localGroupAlive, viewRun } from "../../../runs/view.ts";
import { sendLocalInput } from "./input.ts";
import { signalLocal } from "./kill.ts";
import { readLocalOutput } from "./output.ts";
import { startLocal } from "./start.ts";
import { listLocal } from "./view.ts";

/**
 * The `local` backend: runs are children of the workspace's monitor on this machine; state is
 * derived from `run.json`, `exit.json` and the processes' identities; output is the files the
 * children write.
 */
export function localBackend(root: string, hash: string): RunBackend {
  return {
    name: "local",
    start: (specs) => startLocal(root, hash, specs),
    list: async () => listLocal(root),
    get: async (runId, record) => viewRun(root, runId, record),
    readOutput: async (runId, stream, from, max) => readLocalOutput(root, runId, stream, from, max),
    signal: async (view, signal) => signalLocal(view, signal),
    groupAlive: async (view) => localGroupAlive(view),
    sendInput: (runId, data) => sendLocalInput(root, hash, runId, data),
    remove: (runId) => removeRunFiles(root, runId),
  };
}
