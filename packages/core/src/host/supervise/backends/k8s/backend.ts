import { readRunSync } from "../../../runs/store.ts";
import type { BackendOps } from "../dispatch.ts";
import { sendK8sInput } from "./input.ts";
import { k8sGroupAlive, signalK8s } from "./kill.ts";
import { followK8sOutput, readK8sOutput } from "./output.ts";
import { prepareK8sRespawn } from "./start.ts";
import { viewK8sRun } from "./view.ts";
import { k8sChanges } from "./watch.ts";

/**
 * The `k8s` backend: a run is a batch/v1 Job. Its state comes from the Job and its pods, its
 * output from the `run` container's log (one stream: Kubernetes merges stdout and stderr, so
 * `stderr` is empty), a signal deletes the Job with propagation `Background` (the pods go with
 * it), and it takes no input. Its runs start with `ariel-spawn --backend k8s` (spawn.ts) and
 * again with `respawn` (start.ts).
 */
export function k8sBackend(root: string): BackendOps {
  return {
    get: (runId, record) => viewK8sRun(root, runId, record),
    readOutput: async (runId, stream, from, max) =>
      readK8sOutput(readRunSync(root, runId), stream, from, max),
    signal: (view) => signalK8s(view),
    groupAlive: async (view) => k8sGroupAlive(view),
    sendInput: (runId) => sendK8sInput(runId),
    changes: k8sChanges,
    followOutput: async (runId, stream, from, write, signal) =>
      followK8sOutput(root, readRunSync(root, runId), stream, from, write, signal),
    prepareRespawn: (old) => prepareK8sRespawn(root, old),
  };
}
