import { ArielError } from "../../../../errors.ts";

/** A k8s run takes no input: refused. */
export async function sendK8sInput(runId: string): Promise<void> {
  throw new ArielError("ERR_REFUSED", `run ${runId} runs on Kubernetes: it takes no input`);
}
