import { readFileSync, statSync } from "node:fs";
import { ACTIVITIES, type Activity, agentPreset } from "../../runs/attention/classify.ts";
import type { RunView } from "../../runs/backend.ts";
import { runPaths } from "../../runs/paths.ts";

/**
 * A live local run's activity now (`ariel-runs list`, the fleet): a tty run's as its monitor
 * last wrote it (`attention.json`, from its screen); a piped run's by timing alone (busy while
 * its output grew within the generic idle time, else idle). Null for a run that is not live.
 */
export function runActivity(root: string, view: RunView, nowMs: number): Activity | null {
  if (view.state !== "running" && view.state !== "starting") return null;
  if (view.record.backend !== "local") return null;
  const paths = runPaths(root, view.record.runId);
  if (view.record.tty) {
    try {
      const a = (JSON.parse(readFileSync(paths.attention, "utf8")) as { activity?: string }).activity;
      return ACTIVITIES.includes(a as Activity) ? (a as Activity) : "busy";
    } catch {
      return "busy"; // not looked at yet: it has just started
    }
  }
  let last = 0;
  for (const f of [paths.stdout, paths.stderr]) {
    try {
      last = Math.max(last, statSync(f).mtimeMs);
    } catch {}
  }
  const started = Date.parse(view.record.startedAt ?? view.record.createdAt);
  return nowMs - Math.max(last, started) < agentPreset("generic").idleMs ? "busy" : "idle";
}
