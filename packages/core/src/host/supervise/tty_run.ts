import { closeSync, openSync, writeSync } from "node:fs";
import type { Socket } from "node:net";
import type { ReadStream } from "node:tty";
import { serializeRecord } from "../../ndjson.ts";
import { type Activity, classify } from "../../runs/attention/classify.ts";
import type { AgentPreset } from "../../runs/attention/presets.ts";
import { runPaths } from "../../runs/paths.ts";
import { splitAtDetachKey, type TtySize } from "../../runs/tty.ts";
import { testPause } from "../test-hooks.ts";
import type { PtyChild } from "./pty.ts";
import type { RunAttention } from "./run_attention.ts";
import type { Screen } from "./screen.ts";
import { openTerminal } from "./tty_direct.ts";

/** How often a tty run's screen is looked at for its activity (env overrides, for tests). */
const DEFAULT_ATTENTION_POLL_MS = 250;
/**
 * Unparsed bytes a run's screen may hold before the terminal is paused (the child then waits, as
 * on a slow terminal); `ARIEL_TTY_SCREEN_BACKLOG` in the monitor's environment overrides it (for
 * tests: a screen keeps up with most floods on its own, so a small one makes the pause happen).
 */
const DEFAULT_SCREEN_BACKLOG = 1 << 20;
/** Bytes queued to one attached client before it is skipped to the current screen. */
const CLIENT_BACKLOG = 1 << 20;
/** How long a direct client's last output may take to reach its terminal before it is let go. */
const RELEASE_MS = 5000;

/** What a tty run tells its monitor. */
export interface TtyRunHooks {
  /** The terminal was resized by a client: kept in run.json for the stored screen. */
  resized(size: TtySize): void;
}

/** One attached client (`ariel-runs attach` on a tty run). */
interface Client {
  sock: Socket;
  readOnly: boolean;
  /** Skipped output while its socket (or terminal) was full: repainted when it drains. */
  behind: boolean;
  /**
   * The client's own terminal, opened here (a direct attach, tty_direct.ts): its keys are read
   * and the output written there; null when the client relays frames on `sock`.
   */
  term: ReadStream | null;
  detachKey: number | null;
}

/** How a client attaches: what `attach` sends first (tty_monitor.ts checks the shape). */
export interface AttachOptions {
  readOnly: boolean;
  size: TtySize | null;
  /** The client's terminal, to attach directly (tty_direct.ts), or absent to relay. */
  terminal?: unknown;
  detachKey?: number | null;
}

/** A relayed client's frame of output. */
const outputFrame = (b: Uint8Array | string) =>
  `${JSON.stringify({ t: "o", d: Buffer.from(b).toString("base64") })}\n`;

/** What an attached client sends (NDJSON lines on its socket). */
export type ClientRequest =
  | { op: "input"; data: string /* base64 */ }
  | { op: "resize"; cols: number; rows: number };

/**
 * A run on a pseudo-terminal as its monitor keeps it: every byte of the terminal appended to the
 * run's `stdout` (the stream is the run's output, as for a piped run), fed to an in-memory screen
 * (for `attach`'s repaint and for the run's activity), and sent to the clients attached.
 */
export class TtyRun {
  readonly #fd: number;
  readonly #clients = new Set<Client>();
  readonly #tick: ReturnType<typeof setInterval>;
  /** What the screen alone says (classify's memory between looks); the run's own is `attention`'s. */
  #screenActivity: Activity = "busy";
  #lastText = "";
  #lastChange = Date.now();
  #paused = false;
  readonly #backlog = Number(process.env.ARIEL_TTY_SCREEN_BACKLOG) || DEFAULT_SCREEN_BACKLOG;

  readonly root: string;
  readonly runId: string;
  readonly child: PtyChild;
  readonly screen: Screen;
  readonly preset: AgentPreset;
  readonly hooks: TtyRunHooks;
  /** The run's attention: this screen's verdicts and its agent's reports, arbitrated. */
  readonly attention: RunAttention;

  /** `screen`: opened before the child started (a terminal emulator that cannot load starts nothing). */
  constructor(
    root: string,
    runId: string,
    child: PtyChild,
    screen: Screen,
    preset: AgentPreset,
    hooks: TtyRunHooks,
    attention: RunAttention,
  ) {
    this.root = root;
    this.runId = runId;
    this.child = child;
    this.screen = screen;
    this.preset = preset;
    this.hooks = hooks;
    this.attention = attention;
    attention.screenText = () => this.screen.lines().join("\n");
    attention.onMove((_from, to) => {
      if (to === "waiting")
        for (const c of this.#clients) this.#send(c, c.term ? "\x07" : `${JSON.stringify({ t: "bell" })}\n`);
    });
    this.#fd = openSync(runPaths(root, runId).stdout, "a", 0o600);
    child.on("data", (b: Uint8Array) => this.#data(b));
    const ms = Number(process.env.ARIEL_ATTENTION_POLL_MS) || DEFAULT_ATTENTION_POLL_MS;
    this.#tick = setInterval(() => this.look(), ms);
    void attention.write();
  }

  #data(b: Uint8Array): void {
    // The clients first: a keystroke's echo leaves before the file and the screen take theirs.
    if (this.#clients.size > 0) this.#forward(b);
    try {
      writeSync(this.#fd, b);
    } catch {
      // the run directory was removed (rm --force): the screen and clients still get it
    }
    this.screen.write(b, () => {
      if (this.#paused && this.screen.pending < this.#backlog / 2) {
        this.#paused = false;
        this.child.pty.resume();
        void testPause("tty:resumed"); // a test counts the resumes (one line each)
      }
    });
    if (!this.#paused && this.screen.pending > this.#backlog) {
      this.#paused = true;
      this.child.pty.pause();
      void testPause("tty:paused"); // a test counts the pauses (one line each)
    }
  }

  /** Output to every client: as it is to a terminal opened here, in one frame for all who relay. */
  #forward(b: Uint8Array): void {
    let frame: string | undefined;
    for (const c of this.#clients) {
      if (!c.term) frame ??= outputFrame(b);
      this.#send(c, c.term ? b : (frame as string));
    }
  }

  /** `data` to `c` (raw bytes to its terminal, a frame to its socket), unless it fell behind. */
  #send(c: Client, data: Uint8Array | string): void {
    const out = c.term ?? c.sock;
    if (c.behind || out.destroyed) return;
    if (out.writableLength > CLIENT_BACKLOG) {
      c.behind = true;
      out.once("drain", () => void this.#repaint(c));
      return;
    }
    out.write(data);
  }

  /** Send `c` the whole current screen (on attach, and after it fell behind). */
  async #repaint(c: Client): Promise<void> {
    await this.screen.flush();
    const out = c.term ?? c.sock;
    if (out.destroyed) return;
    c.behind = false;
    const ansi = this.screen.ansi();
    out.write(c.term ? ansi : outputFrame(ansi));
  }

  /** Look at the screen: has it changed, and what does the run's activity read now. */
  look(): void {
    const lines = this.screen.lines();
    const text = lines.join("\n");
    const now = Date.now();
    if (text !== this.#lastText) {
      this.#lastText = text;
      this.#lastChange = now;
    }
    const v = classify(this.preset, {
      lines,
      cursor: this.screen.cursor(),
      quietMs: now - this.#lastChange,
      previous: this.#screenActivity,
    });
    this.#screenActivity = v.activity;
    this.attention.screen(v, text);
  }

  /**
   * Take over `sock` as an attached client: the current screen, then everything live. The reply
   * says whether its terminal was opened here (`direct`) or it relays.
   */
  attach(sock: Socket, options: AttachOptions): void {
    const term = options.terminal === undefined ? null : openTerminal(options.terminal);
    const c: Client = {
      sock,
      readOnly: options.readOnly,
      behind: false,
      term,
      detachKey: options.detachKey ?? null,
    };
    this.#clients.add(c);
    sock.on("close", () => {
      this.#clients.delete(c);
      c.term?.destroy();
    });
    if (options.size && !options.readOnly) this.resize(options.size);
    sock.write(
      `${serializeRecord({ v: 1, ok: true, pid: process.pid, tty: this.child.size, direct: term !== null })}\n`,
    );
    if (term) this.#readKeys(c, term);
    void this.#repaint(c);
  }

  /** A direct client's keys, read from its terminal: to the run (unless read-only), up to the detach key. */
  #readKeys(c: Client, term: ReadStream): void {
    const gone = () => c.sock.destroy(); // its terminal hung up: the client is gone
    term.on("error", gone);
    term.on("end", gone);
    term.on("data", (b: Buffer) => {
      const { keys, detach } = splitAtDetachKey(b, c.detachKey);
      if (keys.length > 0 && !c.readOnly) this.child.write(keys);
      if (detach) this.#release(c, { t: "detached" });
    });
  }

  /**
   * Let go of `c`: a direct client's terminal is closed once what was written to it is out (or
   * after {@link RELEASE_MS}: a terminal nobody reads), then `last` tells the client why (it
   * prints after the run's last bytes, never among them).
   */
  #release(c: Client, last: Record<string, unknown>): void {
    this.#clients.delete(c);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tell = () => {
      clearTimeout(timer);
      c.term?.destroy();
      if (!c.sock.destroyed && !c.sock.writableEnded) c.sock.end(`${JSON.stringify(last)}\n`);
    };
    if (!c.term || c.term.destroyed) {
      tell();
      return;
    }
    c.term.pause();
    c.term.removeAllListeners("data");
    timer = setTimeout(tell, RELEASE_MS);
    c.term.write(new Uint8Array(0), tell);
  }

  /** A line from an attached client. */
  fromClient(sock: Socket, req: ClientRequest): void {
    const c = [...this.#clients].find((x) => x.sock === sock);
    if (!c || c.readOnly) return;
    if (req.op === "input") this.child.write(Buffer.from(req.data, "base64"));
    else if (req.op === "resize") this.resize({ cols: req.cols, rows: req.rows });
  }

  resize(size: TtySize): void {
    if (!(size.cols >= 2 && size.rows >= 2 && size.cols <= 1000 && size.rows <= 1000)) return;
    if (size.cols === this.child.size.cols && size.rows === this.child.size.rows) return;
    this.child.resize(size);
    this.screen.resize(size);
    this.hooks.resized(size);
  }

  /** The child ended: tell the clients, stop looking, close the output file. */
  close(status: number): void {
    clearInterval(this.#tick);
    this.attention.close();
    for (const c of [...this.#clients]) this.#release(c, { t: "exit", status });
    try {
      closeSync(this.#fd);
    } catch {}
    this.screen.dispose();
  }
}
