/**
 * Runs on a terminal (`ariel-spawn --detach --tty`, docs/runs.md): the terminal's size and the
 * keys ariel reads on it. Pure: the pseudo-terminal itself lives in host/supervise/pty.ts.
 */
import { ArielError } from "../errors.ts";

/** A terminal's size in character cells. */
export interface TtySize {
  cols: number;
  rows: number;
}

/** The size of a tty run when neither `--size` nor a starting terminal gives one. */
export const DEFAULT_TTY_SIZE: TtySize = { cols: 80, rows: 24 };

/** The largest side ariel accepts (a terminal of more cells is a mistake, not a screen). */
const MAX_SIDE = 1000;

/**
 * `--size COLSxROWS`, e.g. `120x40`; ERR_USAGE (64) for anything else.
 *
 * @example
 * ```ts
 * parseTtySize("120x40"); // { cols: 120, rows: 40 }
 * ```
 */
export function parseTtySize(text: string): TtySize {
  const m = /^(\d{1,4})x(\d{1,4})$/.exec(text.trim());
  const cols = Number(m?.[1]);
  const rows = Number(m?.[2]);
  if (!m || cols < 2 || rows < 2 || cols > MAX_SIDE || rows > MAX_SIDE) {
    throw new ArielError(
      "ERR_USAGE",
      `--size: expected COLSxROWS such as 120x40, got ${JSON.stringify(text)}`,
      {
        hint: `both sides from 2 to ${MAX_SIDE}, e.g. --size 120x40`,
      },
    );
  }
  return { cols, rows };
}

/**
 * The byte a `--detach-key` names: `ctrl-]` (the default, 0x1d), `ctrl-a` … `ctrl-z`,
 * `ctrl-\`, `ctrl-^`, `ctrl-_`; `none` for no detach key (null). ERR_USAGE otherwise.
 *
 * @example
 * ```ts
 * parseDetachKey("ctrl-]"); // 0x1d
 * parseDetachKey("ctrl-q"); // 0x11
 * ```
 */
export function parseDetachKey(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === "none") return null;
  const m = /^(?:ctrl-|\^)([a-z@[\\\]^_])$/.exec(t);
  if (!m) {
    throw new ArielError("ERR_USAGE", `--detach-key: expected ctrl-X or none, got ${JSON.stringify(text)}`, {
      hint: "e.g. --detach-key ctrl-] (the default) or --detach-key ctrl-q",
    });
  }
  return m[1]!.toUpperCase().charCodeAt(0) & 0x1f;
}

/** What Enter types on a terminal (`send --enter`): a carriage return, as a keyboard sends. */
export const TTY_ENTER = "\r";

/**
 * Keys read on an attached terminal, split at the detach key: what goes to the run (the bytes
 * before it) and whether the user detached (the bytes after it are dropped).
 *
 * @example
 * ```ts
 * splitAtDetachKey(new Uint8Array([0x61, 0x1d, 0x62]), 0x1d); // { keys: [0x61], detach: true }
 * ```
 */
export function splitAtDetachKey(
  bytes: Uint8Array,
  detachKey: number | null,
): { keys: Uint8Array; detach: boolean } {
  const at = detachKey === null ? -1 : bytes.indexOf(detachKey);
  return at === -1 ? { keys: bytes, detach: false } : { keys: bytes.subarray(0, at), detach: true };
}
