/**
 * The monitor's side of agents' reports (docs/runs.md, "What agents report"): one `report`
 * request checked (the run's secret, its agent, size, rate), read (runs/agents/: a payload that
 * is not what the agent documents is logged, never trusted), its `agent.*` events appended to
 * the run's history and its activity handed to the run's attention. Refusals are counted in the
 * run's attention.json and said in monitor.log (the first few, then every 1,000th).
 */
import type { ReportingAgent } from "../../../runs/agents/events.ts";
import { readReport } from "../../../runs/agents/read.ts";
import { foldAgentEvents, readingEvents } from "../../../runs/agents/summary.ts";
import { RUN_ID_PATTERN } from "../../../spawn/run_id.ts";
import { nodeCrypto } from "../../builtins.ts";
import { MAX_REPORT_LINE, type MonitorReply, type ReportRequest } from "../protocol.ts";
import type { RunAttention } from "../run_attention.ts";
import { emit, log, type Monitor } from "./context.ts";

/** Reports a run may make in a burst, and per second after it (a hook per tool call is far below). */
const BURST = 100;
const PER_SECOND = 50;

/** What the monitor keeps of one start of a wired run's child: its secret, its agent, its limits. */
export interface ReportState {
  token: Buffer;
  agent: ReportingAgent;
  source: string | null;
  attention: RunAttention;
  bucket: { tokens: number; atMs: number };
  /** Reports are applied one after the other, in the order they came. */
  chain: Promise<void>;
}

/** A new secret and the state that checks it (one per start of a child: a restart's old secret is stale). */
export function newReportState(
  agent: ReportingAgent,
  source: string | null,
  attention: RunAttention,
): { state: ReportState; token: string } {
  const token = nodeCrypto().randomBytes(24).toString("base64url");
  const state = {
    token: Buffer.from(token),
    agent,
    source,
    attention,
    bucket: { tokens: BURST, atMs: Date.now() },
    chain: Promise.resolve(),
  };
  return { state, token };
}

/** Reports refused before a run could be named (malformed, or for no wired run of this monitor). */
let strayRefused = 0;

const refused = (message: string): MonitorReply => ({ v: 1, ok: false, code: "ERR_REPORT_REFUSED", message });

/** Whether to say the `n`th refusal of a kind in monitor.log (the first three, then every 1,000th). */
const worthSaying = (n: number) => n <= 3 || n % 1000 === 0;

/** One report request (its line was `length` characters): the reply, once it is taken or refused. */
export function takeReport(m: Monitor, req: ReportRequest, length: number): MonitorReply {
  const runId = typeof req.runId === "string" && RUN_ID_PATTERN.test(req.runId) ? req.runId : null;
  const rs = runId === null ? null : (m.active.get(runId)?.report ?? null);
  if (runId === null || rs === null) {
    strayRefused++;
    if (worthSaying(strayRefused))
      log(
        `report refused (${strayRefused} so far): no wired run ${JSON.stringify(String(req.runId).slice(0, 40))} here`,
      );
    return refused("no wired run of that id in this monitor");
  }
  const att = rs.attention;
  if (!sameToken(rs.token, req.token)) {
    att.counts.refused++;
    att.changed();
    if (worthSaying(att.counts.refused))
      log(
        `run ${runId}: report refused (${att.counts.refused} so far): not the secret of this start of the run`,
      );
    return refused("not this run's secret");
  }
  const problem =
    length > MAX_REPORT_LINE
      ? "too large"
      : (req.problem ??
        (req.agent !== rs.agent ? `from ${JSON.stringify(String(req.agent))}, not ${rs.agent}` : null));
  if (problem !== null) return malformed(runId, att, problem);
  if (!withinRate(rs)) {
    att.counts.limited++;
    att.changed();
    if (worthSaying(att.counts.limited))
      log(`run ${runId}: reports over ${PER_SECOND}/s dropped (${att.counts.limited} so far)`);
    return { v: 1, ok: false, code: "ERR_REPORT_LIMITED", message: "too many reports" };
  }
  const reading = readReport(rs.agent, req.payload);
  if ("problem" in reading) return malformed(runId, att, reading.problem);
  att.counts.accepted++;
  const now = Date.now();
  // The reporter's clock orders reports (hooks run in parallel); never ahead of ours, at most a minute behind.
  const at = Number.isFinite(req.at) ? Math.min(now, Math.max(now - 60_000, req.at)) : now;
  // Taken while the child runs: its move counts even if the child ends before it is applied.
  const takenOpen = !att.closed;
  rs.chain = rs.chain.then(async () => {
    const events = readingEvents(att.summary, reading);
    const ts = new Date(now).toISOString();
    att.summary = foldAgentEvents(
      att.summary,
      events.map((e) => ({ ...e, ts })),
    );
    // What the events tell is in attention.json before they are told: a reader woken by one
    // (the dashboard, the terminal UI) finds it there.
    if (events.length > 0 && !att.closed) await att.write();
    for (const { event, ...fields } of events)
      await emit(m, runId, event, rs.source, { agent: rs.agent, ...fields });
    att.reported(reading.activity, at, takenOpen);
  });
  return { v: 1, ok: true, pid: process.pid };
}

function malformed(runId: string, att: RunAttention, problem: string): MonitorReply {
  att.counts.malformed++;
  att.changed();
  if (worthSaying(att.counts.malformed))
    log(`run ${runId}: report not read (${att.counts.malformed} so far): ${problem.slice(0, 200)}`);
  return { v: 1, ok: false, code: "ERR_REPORT_MALFORMED", message: problem.slice(0, 200) };
}

/** A constant-time comparison of the run's secret with what the report says. */
function sameToken(token: Buffer, given: unknown): boolean {
  if (typeof given !== "string" || given.length !== token.length) return false;
  return nodeCrypto().timingSafeEqual(token, Buffer.from(given));
}

/** Take one report from the run's bucket ({@link BURST}, refilled at {@link PER_SECOND}). */
function withinRate(rs: ReportState): boolean {
  const now = Date.now();
  const b = rs.bucket;
  b.tokens = Math.min(BURST, b.tokens + ((now - b.atMs) * PER_SECOND) / 1000);
  b.atMs = now;
  if (b.tokens < 1) return false;
  b.tokens--;
  return true;
}
