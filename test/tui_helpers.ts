/**
 * The terminal UI under test: the built `ariel-tui` on a pseudo-terminal of its own (node-pty),
 * what it writes rendered by the same terminal emulator the runs use (@xterm/headless), so a
 * test reads the screen a person would see, types keys, resizes, and keeps text snapshots of
 * key screens under artifacts/tui/ (CI keeps artifacts/).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { cliCommand, cliEnv, REPO_ROOT } from "./helpers/cli.ts";
import { TEST_ENV, track } from "./runs_helpers.ts";

interface Pty {
  pid: number;
  onData(f: (d: string) => void): void;
  onExit(f: (e: { exitCode: number; signal?: number }) => void): void;
  write(s: string): void;
  resize(c: number, r: number): void;
  kill(sig?: string): void;
}
const req = createRequire(join(REPO_ROOT, "packages/core/package.json"));
const nodePty = req("@lydell/node-pty") as { spawn(f: string, a: string[], o: Record<string, unknown>): Pty };
const { Terminal } = req("@xterm/headless") as {
  Terminal: new (
    o: Record<string, unknown>,
  ) => {
    cols: number;
    rows: number;
    write(d: string, cb?: () => void): void;
    resize(c: number, r: number): void;
    buffer: {
      active: {
        viewportY: number;
        getLine(y: number): { translateToString(t?: boolean): string } | undefined;
      };
    };
    dispose(): void;
  };
};

export const ARTIFACTS = join(REPO_ROOT, "artifacts/tui");

/** Keys as a terminal sends them. */
export const KEY = {
  enter: "\r",
  escape: "\x1b",
  up: "\x1b[A",
  down: "\x1b[B",
  tab: "\t",
  ctrlC: "\x03",
  detach: "\x1d", // Ctrl-]
  space: " ",
} as const;

export interface Tui {
  pid: number;
  /** Everything it wrote, raw. */
  raw(): string;
  /** The screen now, one string per row (trailing blanks trimmed). */
  screen(): Promise<string[]>;
  text(): Promise<string>;
  /** Resolves once the screen shows `what` (a string or a test), within `ms`. */
  waitFor(what: string | ((text: string) => boolean), ms?: number): Promise<string>;
  type(keys: string): void;
  resize(cols: number, rows: number): void;
  exited: Promise<{ code: number; signal?: number }>;
  snapshot(name: string): Promise<string>;
  kill(): void;
}

/**
 * Start `argv` (default: `ariel-tui -C root`) on a `cols`×`rows` terminal. `argv` may wrap it
 * (a shell that records `stty -a` around it).
 */
export function startTui(
  root: string,
  o: { cols?: number; rows?: number; env?: Record<string, string | undefined>; argv?: string[] } = {},
): Tui {
  const cols = o.cols ?? 80;
  const rows = o.rows ?? 24;
  const [exe, ...pre] = o.argv ?? [...cliCommand("tui"), "-C", root];
  const p = nodePty.spawn(exe!, [...pre], {
    cols,
    rows,
    cwd: root,
    env: cliEnv({ ...TEST_ENV, TERM: "xterm-256color", ...o.env }),
    name: "xterm-256color",
  });
  track(p.pid);
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
  let raw = "";
  p.onData((d) => {
    raw += d;
    term.write(d);
  });
  const exited = new Promise<{ code: number; signal?: number }>((resolve) =>
    p.onExit((e) => resolve({ code: e.exitCode, ...(e.signal ? { signal: e.signal } : {}) })),
  );
  const flush = () => new Promise<void>((resolve) => term.write("", resolve));
  const screen = async () => {
    await flush();
    const b = term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < term.rows; y++)
      out.push((b.getLine(b.viewportY + y)?.translateToString(true) ?? "").trimEnd());
    return out;
  };
  const text = async () => (await screen()).join("\n");
  return {
    pid: p.pid,
    raw: () => raw,
    screen,
    text,
    async waitFor(what, ms = 10_000) {
      const test = typeof what === "string" ? (t: string) => t.includes(what) : what;
      const deadline = Date.now() + ms;
      for (;;) {
        const t = await text();
        if (test(t)) return t;
        if (Date.now() > deadline) throw new Error(`the screen never showed ${String(what)}:\n${t}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    type: (keys) => p.write(keys),
    resize(c, r) {
      term.resize(c, r); // a terminal takes its new size before it tells the program
      p.resize(c, r);
    },
    exited,
    async snapshot(name) {
      const t = await text();
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(join(ARTIFACTS, `${name}.txt`), `${t}\n`);
      return t;
    },
    kill: () => p.kill("SIGKILL"),
  };
}

/** The rows of a screen's text. */
export const rowsOf = (text: string) => text.split("\n");

/** The line of a screen that holds `what` (its row index), -1 when none. */
export function rowOf(text: string, what: string): number {
  return rowsOf(text).findIndex((l) => l.includes(what));
}
