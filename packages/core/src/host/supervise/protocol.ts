import type { StartResult } from "../../runs/backend.ts";
import type { PlannedRun } from "../../runs/plan.ts";

/**
 * The monitor's wire protocol: NDJSON over the workspace's unix socket, one request line, one
 * reply line. Versioned by `v`; a monitor from another ariel version answers `ERR_MONITOR`.
 */
export const MONITOR_PROTOCOL = 1;

/** The hidden argument that turns an ariel CLI bundle into the workspace's run monitor. */
export const MONITOR_ARG = "--ariel-run-monitor";

/**
 * The hidden argument that turns an ariel CLI into the agents' reporter (`--ariel-agent-report
 * AGENT [PAYLOAD]`), where the reporter's own small bundle is not beside it (Deno, sources).
 */
export const REPORT_ARG = "--ariel-agent-report";

/**
 * What a wired run's child finds in its environment (set by its monitor at each start, never
 * stored): where to report, for which run, and the secret that proves it is that run's child.
 */
export const REPORT_ENV = {
  socket: "ARIEL_REPORT_SOCKET",
  run: "ARIEL_REPORT_RUN",
  token: "ARIEL_REPORT_TOKEN",
} as const;

/** The longest report line the monitor reads (the reporter cuts payloads well below it). */
export const MAX_REPORT_LINE = 32 * 1024;

/**
 * One agent's report, as the reporter sends it: the run and its secret, the agent, when the
 * reporter started (ms; hooks run in parallel, so a later report may arrive first), and the
 * payload cut to size (null with `problem` when it was not JSON or too large).
 */
export interface ReportRequest {
  v: 1;
  op: "report";
  runId: string;
  token: string;
  agent: string;
  at: number;
  payload: unknown;
  problem?: string;
}

export type MonitorRequest =
  | { v: 1; op: "ping" }
  /** Start runs whose run.json a CLI wrote (as ariel did before the monitor wrote it). */
  | { v: 1; op: "start"; runs: { runId: string; env: Record<string, string> }[] }
  /** Start new runs and write their run.json, once each child exists (docs/runs.md). */
  | { v: 1; op: "create"; runs: { runId: string; env: Record<string, string>; record: PlannedRun }[] }
  | { v: 1; op: "input"; runId: string; data: string /* base64; "" = end of input */ }
  | ReportRequest;

export type MonitorReply =
  | { v: 1; ok: true; pid: number; results?: StartResult[] }
  | { v: 1; ok: false; code: string; message: string };
