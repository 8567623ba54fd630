import { closeSync, constants as fsConstants, fstatSync, openSync, readlinkSync } from "node:fs";
import type { ReadStream } from "node:tty";

/**
 * A direct attach (docs/runs.md, "Runs on a terminal"): the monitor opens the attach client's
 * own terminal and reads its keys and writes the run's output there itself, as a terminal
 * multiplexer's server does, so a keystroke's echo crosses no process but the monitor. The
 * client names its terminal; the monitor opens it only when the device it finds at that path is
 * the very one the client has (same device node, same file system), and falls back to relaying
 * through the client (frames on the socket) otherwise.
 */
export interface TerminalId {
  /** /dev/pts/N: only pseudo-terminals (a console's writes would block the monitor). */
  path: string;
  dev: number;
  ino: number;
  rdev: number;
}

const PTS_PATH = /^\/dev\/pts\/\d{1,9}$/;

/**
 * The client's side: the terminal this process reads and writes, when its input and its output
 * are one pseudo-terminal that /proc names; null otherwise (a pipe, two terminals, no /proc,
 * `ARIEL_ATTACH_DIRECT=0`), and the client relays.
 */
export function ownTerminal(
  input: { isTTY?: boolean; fd?: number },
  output: { isTTY?: boolean; fd?: number },
): TerminalId | null {
  if (process.env.ARIEL_ATTACH_DIRECT === "0") return null;
  if (!input.isTTY || !output.isTTY || typeof input.fd !== "number" || typeof output.fd !== "number")
    return null;
  try {
    const path = readlinkSync(`/proc/self/fd/${input.fd}`);
    const a = fstatSync(input.fd);
    const b = fstatSync(output.fd);
    if (!PTS_PATH.test(path) || a.dev !== b.dev || a.ino !== b.ino || a.rdev !== b.rdev) return null;
    return { path, dev: a.dev, ino: a.ino, rdev: a.rdev };
  } catch {
    return null;
  }
}

function isTerminalId(x: unknown): x is TerminalId {
  const t = x as TerminalId | null;
  return (
    typeof t === "object" &&
    t !== null &&
    typeof t.path === "string" &&
    PTS_PATH.test(t.path) &&
    [t.dev, t.ino, t.rdev].every((n) => Number.isSafeInteger(n))
  );
}

function nodeTty(): typeof import("node:tty") {
  return process.getBuiltinModule?.("node:tty") ?? (require("node:tty") as typeof import("node:tty"));
}

/**
 * The monitor's side: the client's terminal `id` opened for reading and writing (non-blocking,
 * never the monitor's controlling terminal), or null when it cannot be opened or is not the
 * device the client described.
 */
export function openTerminal(id: unknown): ReadStream | null {
  if (!isTerminalId(id)) return null;
  let fd: number;
  try {
    fd = openSync(id.path, fsConstants.O_RDWR | fsConstants.O_NOCTTY | fsConstants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const s = fstatSync(fd);
    if (s.isCharacterDevice() && s.dev === id.dev && s.ino === id.ino && s.rdev === id.rdev)
      return new (nodeTty().ReadStream)(fd);
  } catch {}
  closeSync(fd);
  return null;
}
