/**
 * The terminal's manners: the alternate screen, raw mode, no cursor while the list shows, and the
 * terminal given back as it was on every way out: `q`, Ctrl-C (a key in raw mode), SIGTERM,
 * SIGHUP (the terminal went: nothing to write to, raw mode is let go), a crash (the error is
 * printed after the screen is back). Writes are synchronous at the end, so they are out before
 * the process exits.
 */
import { writeSync } from "node:fs";

const ENTER = "\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J";
const LEAVE = "\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l";

export interface TerminalIo {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

export class Terminal {
  readonly io: TerminalIo;
  #on = false;
  readonly #cleanups: (() => void)[] = [];

  constructor(io: TerminalIo) {
    this.io = io;
  }

  get cols(): number {
    return this.io.output.columns || 80;
  }

  get rows(): number {
    return this.io.output.rows || 24;
  }

  /**
   * Take the terminal. `onSignal` is how a signal ends the program; `onCrash` how an error nobody
   * caught does (the terminal is given back before it is called, so what it prints is seen).
   */
  enter(onSignal: (signal: NodeJS.Signals) => void, onCrash: (error: unknown) => void): void {
    this.#on = true;
    this.io.input.setRawMode(true);
    this.io.input.resume();
    this.io.output.write(ENTER);
    type Event = NodeJS.Signals | "exit" | "uncaughtException" | "unhandledRejection";
    const handlers: [Event, (...a: unknown[]) => void][] = [
      ["SIGTERM", () => onSignal("SIGTERM")],
      ["SIGHUP", () => onSignal("SIGHUP")],
      ["SIGINT", () => onSignal("SIGINT")], // raw mode makes Ctrl-C a key; a kill -INT still lands here
      ["exit", () => this.leave()],
      ["uncaughtException", (e) => this.#crash(onCrash, e)],
      ["unhandledRejection", (e) => this.#crash(onCrash, e)],
    ];
    for (const [sig, f] of handlers) {
      process.on(sig as NodeJS.Signals, f);
      this.#cleanups.push(() => process.off(sig as NodeJS.Signals, f));
    }
  }

  #crash(onCrash: (error: unknown) => void, e: unknown): void {
    this.leave();
    onCrash(e);
  }

  /** Give the terminal back: main screen, cursor, line mode. Safe to call twice. */
  leave(): void {
    if (!this.#on) return;
    this.#on = false;
    try {
      writeSync((this.io.output as unknown as { fd: number }).fd ?? 1, LEAVE);
    } catch {}
    try {
      this.io.input.setRawMode(false);
    } catch {}
    this.io.input.pause();
    for (const c of this.#cleanups.splice(0)) c();
  }

  /** Hand the whole terminal to an attached run: the list's screen cleared, the cursor shown. */
  suspend(): void {
    this.io.output.write("\x1b[0m\x1b[?7h\x1b[?25h\x1b[H\x1b[2J");
  }

  /** Take it back after an attach: raw mode (the attach restored line mode), no cursor, cleared. */
  resume(): void {
    this.io.input.setRawMode(true);
    this.io.input.resume();
    this.io.output.write("\x1b[0m\x1b[?7l\x1b[?25l\x1b[H\x1b[2J");
  }
}

/**
 * Draws frames: a frame is one string per row, each exactly as wide as the terminal; only rows
 * that differ from the last frame are written, inside a synchronized update where the terminal
 * has one (others ignore it).
 */
export class Painter {
  #last: string[] = [];
  readonly #write: (s: string) => void;

  constructor(write: (s: string) => void) {
    this.#write = write;
  }

  /** The next frame draws every row (after a resize, or when the screen was someone else's). */
  invalidate(): void {
    this.#last = [];
    this.#clear = true;
  }

  #clear = false;

  paint(rows: readonly string[]): void {
    let out = this.#clear ? "\x1b[0m\x1b[H\x1b[2J" : "";
    this.#clear = false;
    for (let y = 0; y < rows.length; y++) {
      if (this.#last[y] === rows[y]) continue;
      out += `\x1b[${y + 1};1H\x1b[0m${rows[y]}\x1b[0m`;
    }
    if (this.#last.length > rows.length) out += `\x1b[${rows.length + 1};1H\x1b[0J`;
    this.#last = [...rows];
    if (out !== "") this.#write(`\x1b[?2026h${out}\x1b[?2026l`);
  }
}
