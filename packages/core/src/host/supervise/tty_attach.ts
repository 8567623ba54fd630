import type { Socket } from "node:net";
import { ArielError } from "../../errors.ts";
import { splitAtDetachKey, type TtySize } from "../../runs/tty.ts";
import { connectMonitor } from "./client.ts";
import { ownTerminal } from "./tty_direct.ts";

/** How an attach to a tty run ended. */
export type TtyAttachEnd = { kind: "detached" } | { kind: "exited"; status: number } | { kind: "closed" };

export interface TtyAttachOptions {
  root: string;
  hash: string;
  runId: string;
  readOnly: boolean;
  /** The byte that detaches (Ctrl-] = 0x1d by default), or null for none. */
  detachKey: number | null;
  input: NodeJS.ReadStream | NodeJS.ReadableStream;
  output: NodeJS.WriteStream | NodeJS.WritableStream;
  signal: AbortSignal;
}

/**
 * What the monitor sends an attached client, one JSON line each (a direct client hears only how
 * it ended: the monitor writes the output to its terminal itself).
 */
type Frame = { t: "o"; d: string } | { t: "bell" } | { t: "exit"; status: number } | { t: "detached" };

function sizeOf(output: TtyAttachOptions["output"]): TtySize | null {
  const o = output as { isTTY?: boolean; columns?: number; rows?: number };
  return o.isTTY && o.columns && o.rows ? { cols: o.columns, rows: o.rows } : null;
}

/**
 * `ariel-runs attach` on a tty run: this terminal becomes the run's (raw mode, the current screen
 * repainted, resizes forwarded, every key to the agent but the detach key). Resolves when the
 * user detaches, the run ends, or the monitor goes; the terminal's mode is restored in each case.
 * Where the monitor can open this terminal itself (tty_direct.ts) it reads the keys and writes
 * the output there, and this process only forwards resizes; otherwise both are relayed here.
 */
export async function attachTty(o: TtyAttachOptions): Promise<TtyAttachEnd> {
  // Given up before it began (the preview closed, the program quitting): nothing to attach.
  if (o.signal.aborted) return { kind: "detached" };
  const tty = o.input as NodeJS.ReadStream;
  const raw = tty.isTTY === true && typeof tty.setRawMode === "function";
  const sock = await connectMonitor(o.root, o.hash);
  if (o.signal.aborted) {
    sock.destroy();
    return { kind: "detached" };
  }
  const terminal = raw ? ownTerminal(tty, o.output as NodeJS.WriteStream) : null;
  const size = sizeOf(o.output);
  // The monitor reads a direct client's keys from the moment it attaches: raw mode first.
  if (terminal) tty.setRawMode(true);
  sock.write(
    `${JSON.stringify({ v: 1, op: "attach", runId: o.runId, readOnly: o.readOnly, ...(size ?? {}), ...(terminal ? { terminal, detachKey: o.detachKey } : {}) })}\n`,
  );
  let end: (e: TtyAttachEnd) => void = () => {};
  const ended = new Promise<TtyAttachEnd>((resolve) => {
    end = resolve;
  });
  const send = (req: Record<string, unknown>) => {
    if (!sock.destroyed) sock.write(`${JSON.stringify(req)}\n`);
  };
  const onKeys = (chunk: Buffer | string) => {
    const { keys, detach } = splitAtDetachKey(
      typeof chunk === "string" ? Buffer.from(chunk) : chunk,
      o.detachKey,
    );
    if (keys.length > 0 && !o.readOnly) send({ op: "input", data: Buffer.from(keys).toString("base64") });
    if (detach) end({ kind: "detached" });
  };
  const onResize = () => {
    const s = sizeOf(o.output);
    if (s && !o.readOnly) send({ op: "resize", ...s });
  };
  // An abort during the handshake ends the connection at once: the monitor drops the client
  // (never a hidden attach left behind), and the attach ends as a detach.
  const onAbort = () => {
    end({ kind: "detached" });
    sock.destroy();
  };
  o.signal.addEventListener("abort", onAbort, { once: true });
  let direct: boolean;
  try {
    direct = await readMonitor(sock, o.runId, o.output, (e) => end(e));
  } catch (e) {
    o.signal.removeEventListener("abort", onAbort);
    if (terminal) tty.setRawMode(false);
    if (o.signal.aborted) return { kind: "detached" };
    throw e;
  }
  if (raw) tty.setRawMode(true);
  if (!direct) {
    o.input.on("data", onKeys);
    // A listener alone does not start a stream its owner paused (ariel's list pauses it to attach).
    o.input.resume();
  }
  o.input.on("end", () => {
    if (!raw) end({ kind: "detached" });
  });
  (o.output as NodeJS.WriteStream).on?.("resize", onResize);
  try {
    return await ended;
  } finally {
    o.input.off("data", onKeys);
    (o.output as NodeJS.WriteStream).off?.("resize", onResize);
    o.signal.removeEventListener("abort", onAbort);
    if (raw) tty.setRawMode(false);
    o.input.pause();
    sock.destroy();
  }
}

/**
 * Read the monitor's lines for the whole connection with one listener (a listener removed and
 * another added later can strand a chunk that came with the first line): the first is the reply
 * (resolves once the run is attached, with whether directly; rejects with why not); the rest are
 * frames, written to `output` until the monitor says the run ended or the connection goes.
 */
function readMonitor(
  sock: Socket,
  runId: string,
  output: TtyAttachOptions["output"],
  end: (e: TtyAttachEnd) => void,
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let buf = "";
    let replied = false;
    const reply = (line: string) => {
      replied = true;
      const r = JSON.parse(line) as { ok: boolean; message?: string; direct?: boolean };
      if (r.ok) return resolve(r.direct === true);
      sock.destroy();
      reject(new ArielError("ERR_RUN_NOT_FOUND", `run ${runId} is not live on a terminal: ${r.message}`));
    };
    sock.on("data", (b: Buffer) => {
      buf += b.toString("utf8");
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!replied) reply(line);
        else frame(JSON.parse(line) as Frame, output, end);
      }
    });
    sock.once("close", () => {
      if (!replied) reject(new ArielError("ERR_MONITOR", "the run monitor closed the connection"));
      end({ kind: "closed" });
    });
  });
}

function frame(f: Frame, output: TtyAttachOptions["output"], end: (e: TtyAttachEnd) => void): void {
  if (f.t === "o") output.write(Buffer.from(f.d, "base64"));
  else if (f.t === "bell") output.write("\x07");
  else if (f.t === "exit") end({ kind: "exited", status: f.status });
  else if (f.t === "detached") end({ kind: "detached" });
}
