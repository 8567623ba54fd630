/**
 * A detached sandboxed run under the monitor (docs/sandbox.md): its command wrapped in its
 * sandbox, a monitor socket of its own that answers only what a run may ask of its monitor
 * about itself (the workspace's real socket could start runs outside the sandbox), and its work
 * brought home when it ends, before its end is recorded.
 */
import { mkdirSync } from "node:fs";
import type { Server } from "node:net";
import { isArielError } from "../../../errors.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { sandboxLegs } from "../../../sandbox/legs.ts";
import { syncEventFields, syncWarnings } from "../../../sandbox/report.ts";
import { stateDir } from "../../../state_paths.ts";
import { processStartTime } from "../../proc.ts";
import { sandboxLaunch, sandboxSocketPath } from "../../sandbox/launch.ts";
import { recordSandboxChild, syncSandbox } from "../../sandbox/sync.ts";
import { REPORT_ENV } from "../protocol.ts";
import { reporterCommand } from "../reporter_command.ts";
import { type Active, emit, log, type Monitor } from "./context.ts";
import { serve } from "./server.ts";
import type { ChildStart } from "./wire.ts";

/**
 * The requests a sandboxed run's own socket answers: nothing that starts, feeds or attaches to
 * a run. A report is about the run itself, taken only with its own secret (monitor/report.ts).
 */
export const SANDBOX_OPS: ReadonlySet<string> = new Set(["ping", "report"]);

/** The run's own monitor socket, listening before its sandbox starts (it is mounted as `.ariel/monitor.sock` inside). */
async function openRunSocket(m: Monitor, runId: string): Promise<{ server: Server; path: string }> {
  const net = process.getBuiltinModule?.("node:net") ?? (require("node:net") as typeof import("node:net"));
  const path = sandboxSocketPath(m.root, runId);
  mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true, mode: 0o700 });
  const server = net.createServer((sock) => serve(m, sock, SANDBOX_OPS));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  server.unref();
  return { server, path };
}

/**
 * A run's child as it starts: `start` (its command, as its agent's reports wired it) as it is,
 * or in its sandbox, prepared (once: a restart reuses it), its socket open. Inside, the wiring's
 * files are read-only and the agent reports to the run's own socket, where the workspace's is.
 */
export async function sandboxed(
  m: Monitor,
  a: Active,
  rec: PlannedRun,
  start: ChildStart,
): Promise<ChildStart> {
  if (!rec.sandbox) return start;
  a.sandboxSocket ??= await openRunSocket(m, a.runId);
  const l = await sandboxLaunch({
    root: m.root,
    runId: a.runId,
    task: rec.task,
    sandbox: rec.sandbox,
    legs: sandboxLegs(rec as PlannedRun & { legs?: { worktree: string; branch: string }[] }),
    cwd: rec.cwd,
    env: start.env,
    argv: [...start.argv],
    socket: a.sandboxSocket.path,
    reads: start.files,
    programs: start.env[REPORT_ENV.socket] !== undefined ? reporterCommand() : [],
  });
  const env = { ...start.env };
  if (env[REPORT_ENV.socket] !== undefined) env[REPORT_ENV.socket] = `${stateDir(m.root)}/monitor.sock`;
  return { argv: l.argv, env, files: start.files };
}

/** The sandbox's process started (its end is the sandbox's end, for a sync after a crash). */
export async function sandboxStarted(m: Monitor, a: Active, rec: PlannedRun, pid: number): Promise<void> {
  if (!rec.sandbox) return;
  try {
    recordSandboxChild(m.root, a.runId, { pid, startTime: processStartTime(pid) });
  } catch (e) {
    log(`run ${a.runId}: sandbox child not recorded (${(e as Error).message})`);
  }
}

/**
 * The run ended for good: its sandbox's work home (`sandbox.synced`, and what could not go said
 * in monitor.log and the history), its socket closed. A sync that fails leaves the sandbox for
 * the next command or reconcile; the run's end is recorded all the same.
 */
export async function sandboxHome(m: Monitor, a: Active, rec: { sandbox?: unknown; source: string | null }) {
  if (!rec.sandbox) return;
  a.sandboxSocket?.server.close();
  a.sandboxSocket = null;
  try {
    const r = await syncSandbox(m.root, a.runId, { final: true });
    if (!r) return;
    await emit(m, a.runId, "sandbox.synced", rec.source, syncEventFields(r));
    for (const w of syncWarnings(r)) log(`run ${a.runId}: ${w.code} ${w.message}`);
  } catch (e) {
    log(
      `run ${a.runId}: sandbox sync failed [${isArielError(e) ? e.code : "ERR_INTERNAL"}] (${(e as Error).message})`,
    );
  }
}
