/**
 * The last line a run printed, as the fleet shows it beside the run: the last non-blank line of
 * the tail of its output, escape sequences and control characters gone, what a carriage return
 * overwrote gone, credentials in URLs redacted, at most {@link LAST_LINE_MAX} characters.
 *
 * @example
 * ```ts
 * lastLine("building\n 40%\r 80%\r100%\n\n"); // "100%"
 * lastLine("\x1b[1;32mok\x1b[0m\n"); // "ok"
 * lastLine("$ \x1b[2;1Hnext row", { tty: true }); // "next row"
 * ```
 */
import { redactText } from "../fingerprint.ts";

/** Characters kept of a last line (the rest is cut, with `…`). */
export const LAST_LINE_MAX = 200;

/** Bytes of the end of a run's output read for its last line. */
export const LAST_LINE_TAIL_BYTES = 4096;

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST), other ESC sequences, and the 8-bit CSI.
const CSI = /(?:\x1b\[|\x9b)([0-?]*)[ -/]*([@-~])/g;
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
const OTHER_ESC = /\x1b[ -/]*[0-~]?/g;
/** Cursor moves that land on another row of a terminal (CUD, CUU, CNL, CPL, CUP, HVP, VPA). */
const ROW_MOVES = new Set(["A", "B", "E", "F", "H", "f", "d"]);

/** One line as it reads once shown: the text after its last carriage return that is followed by text, backspaces applied, a tab a space. */
function shown(line: string): string {
  const parts = line.split("\r").filter((p) => p.trim() !== "");
  let text = parts[parts.length - 1] ?? "";
  for (let at = text.indexOf("\b"); at >= 0; at = text.indexOf("\b"))
    text = text.slice(0, Math.max(0, at - 1)) + text.slice(at + 1);
  return text
    .replace(/\t/g, " ")
    .replace(/[\x00-\x1f\x7f-\x9f]/g, "")
    .trim();
}

/**
 * The last non-blank line of `text` (the tail of a run's output), or null when it has none.
 * `tty`: the output of a terminal, where a cursor move to another row starts a new line (an
 * approximation of its screen, for when no terminal emulator renders it).
 */
export function lastLine(text: string, options: { tty?: boolean } = {}): string | null {
  const plain = text
    .replace(OSC, "")
    .replace(CSI, (_m, _params: string, final: string) => (options.tty && ROW_MOVES.has(final) ? "\n" : ""))
    .replace(OTHER_ESC, "");
  const lines = plain.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = shown(lines[i]!);
    if (line === "") continue;
    const safe = redactText(line);
    return safe.length > LAST_LINE_MAX
      ? `${safe.slice(0, LAST_LINE_MAX - 1).replace(/[\ud800-\udbff]$/, "")}…`
      : safe;
  }
  return null;
}
