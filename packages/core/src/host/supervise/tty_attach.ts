import type { Socket } from "node:net";
import { ArielError } from "../../errors.ts";
import type { TtySize } from "../../runs/tty.ts";
import { connectMonitor } from "./client.ts";

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

/** What the monitor sends an attached client, one JSON line each. */
type Frame = { t: "o"; d: string } | { t: "bell" } | { t: "exit"; status: number };

function sizeOf(output: TtyAttachOptions["output"]): TtySize | null {
  const o = output as { isTTY?: boolean; columns?: number; rows?: number };
  return o.isTTY && o.columns && o.rows ? { cols: o.columns, rows: o.rows } : null;
}

/**
 * `ariel-runs attach` on a tty run: this terminal becomes the run's (raw mode, the current screen
 * repainted, resizes forwarded, every key to the agent but the detach key). Resolves when the
 * user detaches, the run ends, or the monitor goes; the terminal's mode is restored in each case.
 */
export async function attachTty(o: TtyAttachOptions): Promise<TtyAttachEnd> {
  const sock = await connectMonitor(o.root, o.hash);
  const size = sizeOf(o.output);
  sock.write(
    `${JSON.stringify({ v: 1, op: "attach", runId: o.runId, readOnly: o.readOnly, ...(size ?? {}) })}\n`,
  );
  const tty = o.input as NodeJS.ReadStream;
  const raw = tty.isTTY === true && typeof tty.setRawMode === "function";
  let end: (e: TtyAttachEnd) => void = () => {};
  const ended = new Promise<TtyAttachEnd>((resolve) => {
    end = resolve;
  });
  const send = (req: Record<string, unknown>) => {
    if (!sock.destroyed) sock.write(`${JSON.stringify(req)}\n`);
  };
  const onKeys = (chunk: Buffer | string) => {
    const b = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    const at = o.detachKey === null ? -1 : b.indexOf(o.detachKey);
    const keys = at === -1 ? b : b.subarray(0, at);
    if (keys.length > 0 && !o.readOnly) send({ op: "input", data: keys.toString("base64") });
    if (at !== -1) end({ kind: "detached" });
  };
  const onResize = () => {
    const s = sizeOf(o.output);
    if (s && !o.readOnly) send({ op: "resize", ...s });
  };
  const onAbort = () => end({ kind: "detached" });
  await readMonitor(sock, o.runId, o.output, (e) => end(e));
  if (raw) tty.setRawMode(true);
  o.input.on("data", onKeys);
  o.input.on("end", () => {
    if (!raw) end({ kind: "detached" });
  });
  (o.output as NodeJS.WriteStream).on?.("resize", onResize);
  o.signal.addEventListener("abort", onAbort, { once: true });
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
 * (resolves once the run is attached, rejects with why not); the rest are frames, written to
 * `output` until the monitor says the run ended or the connection goes.
 */
function readMonitor(
  sock: Socket,
  runId: string,
  output: TtyAttachOptions["output"],
  end: (e: TtyAttachEnd) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = "";
    let replied = false;
    const reply = (line: string) => {
      replied = true;
      const r = JSON.parse(line) as { ok: boolean; message?: string };
      if (r.ok) return resolve();
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
}
