/**
 * Text for a terminal of fixed width: the columns a string takes (SGR sequences take none, a wide
 * character two), a string cut or padded to exactly N columns, and styles as SGR sequences that
 * vanish under NO_COLOR. Pure: the frame is built from these, then painted.
 */

/** An SGR sequence at the start of `s` from `i` (only `ESC [ … m` is kept in our strings). */
const SGR = /\x1b\[[0-9;]*m/y;

/** The columns a code point takes: 0 for a combining mark, 2 for a wide (East Asian, emoji) one. */
export function codePointWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f))
    return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** What a line of untrusted text (a run's output, a name) may show: no control characters. */
export function printable(s: string): string {
  return s
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/[\x00-\x08\x0a-\x1f\x7f]/g, "")
    .replace(/\t/g, "  ");
}

/** The columns `s` takes on a terminal (its SGR sequences none). */
export function width(s: string): number {
  let w = 0;
  for (let i = 0; i < s.length; ) {
    SGR.lastIndex = i;
    const m = SGR.exec(s);
    if (m) {
      i += m[0].length;
      continue;
    }
    const cp = s.codePointAt(i)!;
    w += codePointWidth(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return w;
}

/**
 * `s` in exactly `cols` columns: cut (a wide character that would straddle the edge becomes a
 * space) or padded with spaces; SGR sequences are kept, and a reset ends a styled string.
 *
 * @example
 * ```ts
 * fit("hello", 3); // "hel"
 * fit("ab", 4); // "ab  "
 * ```
 */
export function fit(s: string, cols: number): string {
  let out = "";
  let w = 0;
  let styled = false;
  for (let i = 0; i < s.length; ) {
    SGR.lastIndex = i;
    const m = SGR.exec(s);
    if (m) {
      out += m[0];
      styled = true;
      i += m[0].length;
      continue;
    }
    const cp = s.codePointAt(i)!;
    const n = codePointWidth(cp);
    const len = cp > 0xffff ? 2 : 1;
    if (w + n > cols) {
      if (w < cols) out += " ".repeat(cols - w);
      w = cols;
      break;
    }
    out += s.slice(i, i + len);
    w += n;
    i += len;
  }
  if (w < cols) out += " ".repeat(cols - w);
  return styled ? `${out}\x1b[0m` : out;
}

/** The styles the UI uses, by name: SGR parameters. */
export const STYLES = {
  bold: "1",
  dim: "2",
  inverse: "7",
  underline: "4",
  red: "31",
  green: "32",
  yellow: "33",
  blue: "34",
  magenta: "35",
  cyan: "36",
  header: "1;36",
  selected: "7",
  waiting: "1;33",
} as const;
export type StyleName = keyof typeof STYLES;

/** A painter of styles: `paint("red", "x")` is `ESC[31mxESC[0m`, or plain `x` without colour. */
export type Paint = (style: StyleName, text: string) => string;

/**
 * The painter for a terminal: with `colour` (NO_COLOR unset) styles are SGR sequences; without,
 * only bold, inverse and underline stay (they are not colour, and the selection needs inverse).
 */
export function painter(colour: boolean): Paint {
  return (style, text) => {
    if (text === "") return "";
    if (!colour && !["bold", "inverse", "underline", "selected"].includes(style)) return text;
    return `\x1b[${STYLES[style]}m${text}\x1b[0m`;
  };
}

/** `text` with every SGR sequence removed (what a snapshot of a screen keeps). */
export function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}
