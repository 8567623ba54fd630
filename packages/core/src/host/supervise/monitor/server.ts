import type { Socket } from "node:net";
import { isArielError } from "../../../errors.ts";
import { serializeRecord } from "../../../ndjson.ts";
import type { StartResult } from "../../../runs/backend.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { runRecordProblem } from "../../../runs/record.ts";
import type { MonitorReply, MonitorRequest } from "../protocol.ts";
import { log, type Monitor, newActive } from "./context.ts";
import { takeReport } from "./report.ts";
import { launch } from "./supervise.ts";

/** The longest request line a client may send (a `create` of many runs with their environments). */
const MAX_LINE = 16 << 20;

/**
 * One client connection: NDJSON requests in, one reply line each, answered in order. A line a
 * tty client sends (attach, its keys) goes to the tty runs instead. `only`: the requests this
 * socket answers (a sandboxed run's own socket); any other is refused, attach included. A client that sends more than
 * {@link MAX_LINE} without a newline is cut off (said in monitor.log).
 */
export function serve(m: Monitor, sock: Socket, only?: ReadonlySet<string>): void {
  m.connections++;
  m.lastActivity = Date.now();
  let buf = "";
  let chain = Promise.resolve();
  sock.setEncoding("utf8");
  sock.on("error", () => {});
  sock.on("close", () => {
    m.connections--;
    m.lastActivity = Date.now();
  });
  sock.on("data", (text: string) => {
    buf += text;
    // Only the new text can hold a newline (every line before it was taken): a long line costs
    // one look at each chunk, not one at everything read so far.
    if (!text.includes("\n")) {
      if (buf.length <= MAX_LINE) return;
      log(`a client sent ${buf.length} characters without a newline: cut off`);
      buf = "";
      sock.destroy();
      return;
    }
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (only === undefined && m.ttys.takeLine(sock, line)) continue; // attach to a tty run, and its clients' keys
      chain = chain.then(async () => {
        let reply: MonitorReply;
        try {
          const req = JSON.parse(line) as MonitorRequest;
          // What is no request at all is said so (handle), on a sandboxed run's socket too.
          const isRequest = req !== null && typeof req === "object";
          reply =
            only === undefined || !isRequest || only.has(req.op)
              ? await handle(m, req, line.length)
              : {
                  v: 1,
                  ok: false,
                  code: "ERR_SANDBOXED",
                  message: `a sandboxed run may not ask ${JSON.stringify(req.op)}`,
                };
        } catch (e) {
          reply = { v: 1, ok: false, code: "ERR_MONITOR", message: (e as Error).message };
        }
        if (!sock.destroyed) sock.write(`${serializeRecord(reply as unknown as Record<string, unknown>)}\n`);
        m.lastActivity = Date.now();
      });
    }
  });
}

/**
 * The reply to one request (its line was `length` characters): `ping`, `start`/`create` (runs),
 * `input` (an interactive run's stdin), `report` (an agent's, report.ts).
 */
async function handle(m: Monitor, req: MonitorRequest, length: number): Promise<MonitorReply> {
  if (req === null || typeof req !== "object")
    return { v: 1, ok: false, code: "ERR_MONITOR", message: "not a request" };
  if (req.v !== 1) return { v: 1, ok: false, code: "ERR_MONITOR", message: `protocol v${req.v} not spoken` };
  if (req.op === "ping") return { v: 1, ok: true, pid: process.pid };
  if (req.op === "report") return takeReport(m, req, length);
  if (req.op === "start" || req.op === "create") {
    const results: StartResult[] = [];
    for (const r of req.runs) results.push(await startOne(m, req.op, r));
    return { v: 1, ok: true, pid: process.pid, results };
  }
  if (req.op === "input") {
    const a = m.active.get(req.runId);
    const stdin = a?.child?.stdin;
    if (!stdin)
      return { v: 1, ok: false, code: "ERR_RUN_NOT_FOUND", message: "no interactive child for this run" };
    if (req.data === "") stdin.end();
    else stdin.write(Buffer.from(req.data, "base64"));
    return { v: 1, ok: true, pid: process.pid };
  }
  return { v: 1, ok: false, code: "ERR_MONITOR", message: "unknown op" };
}

/** One run of a `start` or `create` request: checked (create), then supervised and launched. */
async function startOne(
  m: Monitor,
  op: "start" | "create",
  r: { runId: string; env: Record<string, string>; record?: PlannedRun },
): Promise<StartResult> {
  const planned = "record" in r ? r.record : undefined;
  if (op === "create") {
    const why = plannedProblem(planned, r.runId, m.root);
    if (why !== null) return { runId: r.runId, ok: false, status: 125, code: "ERR_MONITOR", message: why };
  }
  const a = newActive(r.runId, r.env);
  m.active.set(r.runId, a);
  try {
    return await launch(m, a, true, planned);
  } catch (e) {
    m.active.delete(r.runId);
    return {
      runId: r.runId,
      ok: false,
      status: 125,
      code: isArielError(e) ? e.code : "ERR_SPAWN",
      message: (e as Error).message,
    };
  }
}

/**
 * Why a run record a client asks the monitor to create cannot be written, or null: it must be
 * a whole new record of this workspace (checked like any run.json read from disk).
 */
function plannedProblem(planned: PlannedRun | undefined, runId: string, root: string): string | null {
  if (planned === undefined || planned.runId !== runId) return "no record for this run";
  const why = runRecordProblem({ ...planned, version: 1, fencingToken: 0 });
  if (why !== null) return `the run record is not valid (${why})`;
  if (planned.backend !== "local" || planned.workspace.root !== root)
    return "not a local run of this workspace";
  const { monitor, child, exit, kill, endedAt } = planned;
  if ([monitor, child, exit, kill, endedAt].some((v) => v !== null)) return "not a new run";
  return null;
}
