import type { RunView } from "../../../../runs/backend.ts";
import { FINAL_STATES } from "../../../../runs/state.ts";
import { clientFor } from "./client.ts";
import { refOf } from "./view.ts";

/** Stop a k8s run: delete its Job with propagation `Background` (the pods go with it). */
export async function signalK8s(view: RunView): Promise<"sent" | "gone"> {
  const ref = refOf(view.record);
  const client = await clientFor(ref.kubeconfig);
  const job = await client.getJob(ref.namespace, ref.job);
  if (job === null || job.metadata.uid !== ref.uid) return "gone";
  return (await client.deleteJob(ref.namespace, ref.job, "Background")) ? "sent" : "gone";
}

/** Whether a k8s run may still have a process: until its state is final. */
export function k8sGroupAlive(view: RunView): boolean {
  return !FINAL_STATES.has(view.state);
}
