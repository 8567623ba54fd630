import { ArielError } from "../../errors.ts";
import type { RunPaths } from "../../runs/paths.ts";
import type { TtySize } from "../../runs/tty.ts";
import { readOutputAt } from "../runs/output.ts";
import { loadRuntimeDependency } from "../runtime_dep.ts";

/**
 * How much of a stored stream `ariel-runs screen` renders when no monitor holds the live screen:
 * the last 4 MiB (a screen is the sum of what was written to it, and what was written that long
 * ago has scrolled away; a program that set a mode before that is rendered without it).
 */
export const SCREEN_RENDER_BYTES = 4 * 1024 * 1024;

/**
 * How long bytes written to a screen wait to be parsed together (docs/benchmarks.md, keystroke
 * echo): parsing after every echo, 1 ms later (the emulator's own timer), ran into the next key
 * of a fast typist and delayed its echo; a screen a few ms behind changes nothing for what reads
 * it (the activity every 250 ms, an attach's repaint, which flushes first).
 */
const FEED_MS = 16;

interface XTerm {
  cols: number;
  rows: number;
  buffer: {
    active: {
      viewportY: number;
      cursorX: number;
      cursorY: number;
      getLine(y: number): XLine | undefined;
    };
  };
  write(data: Uint8Array | string, cb?: () => void): void;
  resize(cols: number, rows: number): void;
  loadAddon(addon: unknown): void;
  dispose(): void;
}

/** One cell of a line, as @xterm/headless reads it (only what {@link Screen.styledLines} needs). */
interface XCell {
  getChars(): string;
  getWidth(): number;
  getFgColorMode(): number;
  getBgColorMode(): number;
  getFgColor(): number;
  getBgColor(): number;
  isBold(): number;
  isDim(): number;
  isItalic(): number;
  isUnderline(): number;
  isInverse(): number;
}

interface XLine {
  translateToString(trim?: boolean): string;
  getCell(x: number, cell?: XCell): XCell | undefined;
}

/** xterm's colour modes (the bits of `getFgColorMode()`): default, 16/256 palette, RGB. */
const CM_P16 = 0x1000000;
const CM_P256 = 0x2000000;
const CM_RGB = 0x3000000;

/** The SGR parameters of a cell's colour (`fg`: 38/30/90, `bg`: 48/40/100), "" for the default. */
function colourSgr(mode: number, colour: number, fg: boolean): string {
  if (mode === CM_RGB)
    return `${fg ? 38 : 48};2;${(colour >> 16) & 255};${(colour >> 8) & 255};${colour & 255}`;
  if (mode === CM_P256) return `${fg ? 38 : 48};5;${colour}`;
  if (mode === CM_P16) return colour < 8 ? `${(fg ? 30 : 40) + colour}` : `${(fg ? 90 : 100) + colour - 8}`;
  return "";
}

/** A cell's whole SGR (after a reset), "" for a plain cell. */
function cellSgr(c: XCell): string {
  const parts = [
    c.isBold() ? "1" : "",
    c.isDim() ? "2" : "",
    c.isItalic() ? "3" : "",
    c.isUnderline() ? "4" : "",
    c.isInverse() ? "7" : "",
    colourSgr(c.getFgColorMode(), c.getFgColor(), true),
    colourSgr(c.getBgColorMode(), c.getBgColor(), false),
  ].filter((p) => p !== "");
  return parts.join(";");
}

interface XTermModules {
  Terminal: new (o: Record<string, unknown>) => XTerm;
  SerializeAddon: new () => { serialize(o?: { scrollback?: number }): string };
}

let modules: Promise<XTermModules> | undefined;

/**
 * @xterm/headless and its serialize addon, loaded on first use (only tty runs need them). A load
 * that failed is tried again next time: a long-lived monitor sees a reinstall.
 */
function xterm(): Promise<XTermModules> {
  modules ??= (async () => {
    const [h, s] = await Promise.all([
      loadRuntimeDependency("@xterm/headless"),
      loadRuntimeDependency("@xterm/addon-serialize"),
    ]).catch((e) => {
      modules = undefined;
      throw new ArielError(
        "ERR_TTY_UNAVAILABLE",
        `the terminal emulator did not load (${(e as Error).message})`,
        {
          hint: "reinstall the CLI package: @xterm/headless and @xterm/addon-serialize are its dependencies",
        },
      );
    });
    const pick = (m: Record<string, unknown>, k: string) =>
      (m[k] ?? (m.default as Record<string, unknown> | undefined)?.[k]) as never;
    return { Terminal: pick(h, "Terminal"), SerializeAddon: pick(s, "SerializeAddon") };
  })();
  return modules;
}

/** What `screen --json` prints. */
export interface ScreenJson {
  cols: number;
  rows: number;
  cursor: { x: number; y: number };
  lines: string[];
}

/**
 * A terminal screen kept in memory (no scrollback): the bytes of a tty run written into it, read
 * back as text lines, as ANSI (colours and modes, to repaint another terminal), or as JSON.
 */
export class Screen {
  readonly #term: XTerm;
  readonly #serialize: { serialize(o?: { scrollback?: number }): string };
  /** Bytes written and not yet parsed (bounded by the caller, who pauses its source). */
  pending = 0;
  /** Written, not yet given to the emulator: fed together every {@link FEED_MS}, or on flush. */
  #held: { bytes: Uint8Array; done?: () => void }[] = [];
  #feedTimer: ReturnType<typeof setTimeout> | undefined;

  private constructor(m: XTermModules, size: TtySize) {
    this.#term = new m.Terminal({ cols: size.cols, rows: size.rows, scrollback: 0, allowProposedApi: true });
    this.#serialize = new m.SerializeAddon();
    this.#term.loadAddon(this.#serialize);
  }

  static async open(size: TtySize): Promise<Screen> {
    return new Screen(await xterm(), size);
  }

  get size(): TtySize {
    return { cols: this.#term.cols, rows: this.#term.rows };
  }

  /** Feed bytes (parsed within a few ms, or at {@link flush}); `done` once they are parsed. */
  write(bytes: Uint8Array, done?: () => void): void {
    this.pending += bytes.length;
    this.#held.push({ bytes, done });
    this.#feedTimer ??= setTimeout(() => this.#feed(), FEED_MS);
  }

  /** Give the emulator what was held, in order. */
  #feed(): void {
    clearTimeout(this.#feedTimer);
    this.#feedTimer = undefined;
    for (const { bytes, done } of this.#held.splice(0)) {
      this.#term.write(bytes, () => {
        this.pending -= bytes.length;
        done?.();
      });
    }
  }

  /** Resolves once everything written so far is parsed. */
  flush(): Promise<void> {
    this.#feed();
    return new Promise((resolve) => this.#term.write("", resolve));
  }

  resize(size: TtySize): void {
    this.#feed(); // what was written before the resize is parsed at the old size
    this.#term.resize(size.cols, size.rows);
  }

  lines(): string[] {
    const b = this.#term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.#term.rows; y++)
      out.push((b.getLine(b.viewportY + y)?.translateToString(true) ?? "").trimEnd());
    return out;
  }

  /**
   * The first `rows` lines, each cut to `cols` columns, as text with SGR sequences (colours and
   * bold, underline, inverse…; none when `colour` is false) and a reset at the end of each: what
   * a view that draws the screen inside a box of its own needs (the terminal UI's preview).
   * A wide character that does not fit the last column is left out.
   */
  styledLines(cols: number, rows: number, colour = true): string[] {
    const b = this.#term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < Math.min(rows, this.#term.rows); y++) {
      const line = b.getLine(b.viewportY + y);
      let text = "";
      let sgr = "";
      let width = 0;
      for (let x = 0; line && x < this.#term.cols && width < cols; x++) {
        const c = line.getCell(x);
        if (!c || c.getWidth() === 0) continue; // the second half of a wide character
        if (width + c.getWidth() > cols) break;
        const next = colour ? cellSgr(c) : "";
        if (next !== sgr) {
          text += `\x1b[0${next === "" ? "" : `;${next}`}m`;
          sgr = next;
        }
        text += c.getChars() || " ";
        width += c.getWidth();
      }
      out.push(sgr === "" ? text : `${text}\x1b[0m`);
    }
    return out;
  }

  /** The screen as text: its lines with trailing blanks and trailing empty lines dropped. */
  text(): string {
    const lines = this.lines();
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
  }

  /** The screen with its colours and modes, from a cleared terminal, the cursor where it is. */
  ansi(): string {
    return `\x1b[H\x1b[2J${this.#serialize.serialize({ scrollback: 0 })}`;
  }

  /** Where the cursor is now (0-based column and row). */
  cursor(): { x: number; y: number } {
    const b = this.#term.buffer.active;
    return { x: b.cursorX, y: b.cursorY };
  }

  json(): ScreenJson {
    const b = this.#term.buffer.active;
    return { ...this.size, cursor: { x: b.cursorX, y: b.cursorY }, lines: this.lines() };
  }

  dispose(): void {
    clearTimeout(this.#feedTimer);
    this.#held = [];
    this.#term.dispose();
  }
}

/**
 * The screen of a tty run rendered from its stored output (the stream is the truth; the screen
 * is derived): the last {@link SCREEN_RENDER_BYTES} of `stdout` written into a terminal of `size`.
 */
export async function renderStoredScreen(paths: RunPaths, size: TtySize): Promise<Screen> {
  const screen = await Screen.open(size);
  const head = readOutputAt(paths, "stdout", 0, 0);
  const from = Math.max(0, head.size - SCREEN_RENDER_BYTES);
  for (let at = from; ; ) {
    const r = readOutputAt(paths, "stdout", at, 1 << 20);
    if (r.bytes.length === 0) break;
    screen.write(r.bytes);
    at = r.start + r.bytes.length;
  }
  await screen.flush();
  return screen;
}
