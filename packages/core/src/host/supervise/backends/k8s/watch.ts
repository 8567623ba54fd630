import { LABELS } from "../../../../k8s/names.ts";
import type { RunView } from "../../../../runs/backend.ts";
import { clientFor } from "./client.ts";

/**
 * Resolve when a pod of these k8s runs changes (a watch event), after `ms` at the latest (views
 * of other runs are only waited for).
 */
export async function k8sChanges(views: readonly RunView[], ms: number, signal?: AbortSignal): Promise<void> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), ms);
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await new Promise<void>((resolve) => {
      stop.signal.addEventListener("abort", () => resolve(), { once: true });
      for (const v of views) {
        const ref = v.record.k8s;
        if (!ref) continue;
        const selector = `${LABELS.run}=${v.record.runId}`;
        void (async () => {
          const client = await clientFor(ref.kubeconfig);
          const { resourceVersion } = await client.listPods(ref.namespace, selector);
          await client.watchPods(ref.namespace, selector, resourceVersion, () => stop.abort(), stop.signal);
        })().catch(() => {}); // the timeout still ends the wait; the next get() reports errors
      }
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    stop.abort();
  }
}
