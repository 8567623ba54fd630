import type { StartResult } from "../../runs/backend.ts";
import type { PlannedRun } from "../../runs/plan.ts";

/**
 * The monitor's wire protocol: NDJSON over the workspace's unix socket, one request line, one
 * reply line. Versioned by `v`; a monitor from another ariel version answers `ERR_MONITOR`.
 */
export const MONITOR_PROTOCOL = 1;

/** The hidden argument that turns an ariel CLI bundle into the workspace's run monitor. */
export const MONITOR_ARG = "--ariel-run-monitor";

export type MonitorRequest =
  | { v: 1; op: "ping" }
  /** Start runs whose run.json a CLI wrote (as ariel did before the monitor wrote it). */
  | { v: 1; op: "start"; runs: { runId: string; env: Record<string, string> }[] }
  /** Start new runs and write their run.json, once each child exists (docs/runs.md). */
  | { v: 1; op: "create"; runs: { runId: string; env: Record<string, string>; record: PlannedRun }[] }
  | { v: 1; op: "input"; runId: string; data: string /* base64; "" = end of input */ };

export type MonitorReply =
  | { v: 1; ok: true; pid: number; results?: StartResult[] }
  | { v: 1; ok: false; code: string; message: string };
