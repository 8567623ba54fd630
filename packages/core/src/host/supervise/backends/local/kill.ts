import type { RunView } from "../../../../runs/backend.ts";
import { signalGroup } from "../../../runs/identity.ts";

/** Signal a local run's process group, only if its recorded child is still ours (pid, start time, boot id). */
export function signalLocal(view: RunView, signal: string): "sent" | "gone" {
  const child = view.record.child;
  if (!child) return "gone";
  return signalGroup(child, view.record.monitor?.bootId ?? null, signal as NodeJS.Signals) ? "sent" : "gone";
}
