import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { presetFor } from "../../runs/attention/classify.ts";
import type { AgentPreset } from "../../runs/attention/presets.ts";
import type { PlannedRun } from "../../runs/plan.ts";
import type { RunRecord } from "../../runs/record.ts";
import { DEFAULT_TTY_SIZE, type TtySize } from "../../runs/tty.ts";
import { runNotify } from "./notify.ts";
import { loadPty, spawnOnPty } from "./pty.ts";
import type { RunAttention } from "./run_attention.ts";
import { Screen } from "./screen.ts";
import { type ClientRequest, TtyRun } from "./tty_run.ts";

/** What the monitor lends its tty runs. */
export interface TtyMonitorPorts {
  root: string;
  /** Keep a resized terminal's size in run.json (under the run's lock). */
  saveSize(runId: string, size: TtySize): Promise<void>;
  log(message: string): void;
}

/** A preset with `ARIEL_ATTENTION_IDLE_MS` (the monitor's environment; for tests) as its idle time. */
function tuned(p: AgentPreset): AgentPreset {
  const idleMs = Number(process.env.ARIEL_ATTENTION_IDLE_MS);
  return idleMs > 0 ? { ...p, idleMs } : p;
}

/** The attach request a client sends first (the rest of its lines are {@link ClientRequest}s). */
interface AttachRequest {
  v: 1;
  op: "attach";
  runId: string;
  readOnly?: boolean;
  cols?: number;
  rows?: number;
  /** The client's own terminal (tty_direct.ts): attach directly when the monitor can open it. */
  terminal?: unknown;
  /** The byte that detaches a direct client (its keys are read here), or null for none. */
  detachKey?: number | null;
}

/**
 * The monitor's tty runs (`--tty`): starts a child on a pseudo-terminal, and takes over the
 * sockets of attached clients. monitor.ts calls in at three places: `spawn` when launching a
 * tty run, `takeLine` for each request line, `notifyExit` after a run's end.
 */
export function ttyMonitor(ports: TtyMonitorPorts) {
  const runs = new Map<string, TtyRun>();
  const attached = new Map<Socket, TtyRun>();

  /** Start a tty run's child on its terminal; `argv`: what to run when not `rec.argv` itself (its wiring, its sandbox). */
  async function spawn(
    runId: string,
    rec: PlannedRun,
    env: Record<string, string>,
    attention: RunAttention,
    argv: readonly string[] = rec.argv,
  ): Promise<ChildProcess> {
    const size = rec.tty ?? DEFAULT_TTY_SIZE;
    // The addon first, then the emulator, then the child: what cannot load starts nothing (and
    // the addon loaded after the emulator was not found under a code-cached bundle).
    await loadPty().catch((e) => {
      ports.log(`run ${runId}: ${(e as Error).message}`);
      throw e;
    });
    const screen = await Screen.open(size).catch((e) => {
      ports.log(`run ${runId}: the terminal emulator did not load: ${(e as Error).message}`);
      throw Object.assign(new Error((e as Error).message), { code: "ERR_TTY_UNAVAILABLE" });
    });
    const child = await spawnOnPty(argv, { cwd: rec.cwd, env, size }).catch((e) => {
      screen.dispose();
      throw e;
    });
    const hooks = {
      resized: (s: TtySize) =>
        void ports.saveSize(runId, s).catch((e) => ports.log(`run ${runId}: size not kept: ${e.message}`)),
    };
    const preset = tuned(presetFor(rec.agent, rec.argv));
    const run = new TtyRun(ports.root, runId, child, screen, preset, hooks, attention);
    runs.set(runId, run);
    child.once("exit", (code: number | null, signal: string | null) => {
      // The end's own status is the monitor's to record; clients only hear that it ended.
      run.close(code ?? (signal ? 128 : 1));
      if (runs.get(runId) === run) runs.delete(runId);
      for (const [s, r] of attached) if (r === run) attached.delete(s);
    });
    return child as unknown as ChildProcess;
  }

  /**
   * A request line from `sock`: an `attach` (the socket becomes that run's client) or a line
   * of an attached socket. True when taken here; false leaves it to the monitor's own handling.
   */
  function takeLine(sock: Socket, line: string): boolean {
    const run = attached.get(sock);
    if (run) {
      try {
        run.fromClient(sock, JSON.parse(line) as ClientRequest);
      } catch {}
      return true;
    }
    let req: AttachRequest;
    try {
      req = JSON.parse(line) as AttachRequest;
    } catch {
      return false;
    }
    // Anything but an attach (null, a number: not a request at all) is the server's to answer.
    if (req === null || typeof req !== "object" || req.op !== "attach") return false;
    const target = runs.get(req.runId);
    if (!target) {
      sock.write(
        `${JSON.stringify({ v: 1, ok: false, code: "ERR_RUN_NOT_FOUND", message: "no live tty run by that id" })}\n`,
      );
      return true;
    }
    attached.set(sock, target);
    sock.once("close", () => attached.delete(sock));
    const size = req.cols && req.rows ? { cols: req.cols, rows: req.rows } : null;
    const detachKey = Number.isInteger(req.detachKey) ? (req.detachKey as number) : null;
    target.attach(sock, { readOnly: req.readOnly === true, size, terminal: req.terminal, detachKey });
    return true;
  }

  /** `--notify` at the end of a run (after `run.finished`); bounded. */
  function notifyExit(rec: RunRecord, env: Record<string, string>, status: number, state: string) {
    return runNotify(ports.root, rec, env, { event: "exit", status, state });
  }

  return { spawn, takeLine, notifyExit, runs };
}
