import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Painter, Terminal } from "./terminal.ts";

/** Every call the fake terminal gets, in order; writeSync to fd 1 or 2 recorded, not written. */
const rec = vi.hoisted(() => ({ log: [] as unknown[][] }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writeSync = (fd: number, s: string) => {
    rec.log.push(["writeSync", fd, s]);
    return fd === 1 || fd === 2 ? s.length : fs.writeSync(fd, s);
  };
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const ENTER = "\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J";
const LEAVE = "\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l";
const EVENTS = ["SIGTERM", "SIGHUP", "SIGINT", "exit", "uncaughtException", "unhandledRejection"] as const;
type Event = (typeof EVENTS)[number];

interface FakeOptions {
  columns?: number;
  rows?: number;
  fd?: number;
  /** setRawMode(false) throws (the terminal went: SIGHUP). */
  rawThrows?: boolean;
}

/** `entry` noted in the log, then `v` answered. */
function note<T>(entry: unknown[], v: T): T {
  rec.log.push(entry);
  return v;
}

/** A terminal over PassThrough streams that record what is done to them. */
function fakeTerminal(o: FakeOptions = {}): Terminal {
  const input = new PassThrough();
  Object.assign(input, {
    isTTY: true,
    setRawMode: (on: boolean) => {
      rec.log.push(["setRawMode", on]);
      if (o.rawThrows && !on) throw new Error("EIO");
      return input;
    },
    resume: () => note(["resume"], input),
    pause: () => note(["pause"], input),
  });
  const output = new PassThrough();
  Object.assign(output, {
    isTTY: true,
    columns: o.columns,
    rows: o.rows,
    ...(o.fd === undefined ? {} : { fd: o.fd }),
    write: (s: string) => note(["write", s], true),
  });
  return new Terminal({
    input: input as unknown as NodeJS.ReadStream,
    output: output as unknown as NodeJS.WriteStream,
  });
}

const snapshot = () => Object.fromEntries(EVENTS.map((e) => [e, process.listeners(e as NodeJS.Signals)]));
let entered: Terminal[] = [];

/** Enter `t` (what onSignal and onCrash get goes to the log); the listeners it added, by event. */
function enter(t: Terminal) {
  const before = snapshot();
  t.enter(
    (s) => void rec.log.push(["signal", s]),
    (e) => void rec.log.push(["crash", e]),
  );
  entered.push(t);
  const added = Object.fromEntries(
    EVENTS.map((e) => [e, process.listeners(e as NodeJS.Signals).filter((l) => !before[e]!.includes(l))]),
  ) as Record<Event, ((...a: unknown[]) => void)[]>;
  return added;
}

afterEach(() => {
  for (const t of entered) t.leave();
  entered = [];
  rec.log.length = 0;
});

describe("Terminal size", () => {
  // The output's columns and rows, else 80 by 24 (a pipe has none, a bad terminal says 0).
  it.each([
    ["the terminal's", { columns: 100, rows: 30 }, [100, 30]],
    ["none: 80 by 24", {}, [80, 24]],
    ["zero: 80 by 24", { columns: 0, rows: 0 }, [80, 24]],
  ])("%s", (_n, o, want) => {
    const t = fakeTerminal(o);
    expect([t.cols, t.rows]).toEqual(want);
  });
});

describe("Terminal enter and leave", () => {
  // Raw mode, the alternate screen without cursor or wrap; given back in reverse, once.
  it("enter: raw mode, reading, the alternate screen; one listener per way out", () => {
    const t = fakeTerminal();
    const added = enter(t);
    expect(rec.log).toEqual([["setRawMode", true], ["resume"], ["write", ENTER]]);
    expect(Object.fromEntries(EVENTS.map((e) => [e, added[e].length]))).toEqual(
      Object.fromEntries(EVENTS.map((e) => [e, 1])),
    );
  });

  it("leave: the screen back (written at once to the output's fd), line mode, no reading, no listeners", () => {
    const dir = mkdtempSync(join(tmpdir(), "ariel-term-"));
    const fd = openSync(join(dir, "out"), "w");
    try {
      const t = fakeTerminal({ fd });
      const before = snapshot();
      enter(t);
      rec.log.length = 0;
      t.leave();
      expect(rec.log).toEqual([["writeSync", fd, LEAVE], ["setRawMode", false], ["pause"]]);
      expect(readFileSync(join(dir, "out"), "utf8")).toBe(LEAVE);
      expect(snapshot()).toEqual(before);
      t.leave();
      expect(rec.log).toHaveLength(3);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Terminal leave, whatever the output", () => {
  // Given back on stdout without an fd; nothing before enter; a failed write or raw mode let go.
  it("an output without an fd: the screen back on stdout", () => {
    const t = fakeTerminal();
    enter(t);
    rec.log.length = 0;
    t.leave();
    expect(rec.log).toEqual([["writeSync", 1, LEAVE], ["setRawMode", false], ["pause"]]);
  });

  it("leave before enter does nothing", () => {
    fakeTerminal().leave();
    expect(rec.log).toEqual([]);
  });

  it("a write that fails (the terminal went) does not stop the rest", () => {
    const fd = 2 ** 31 - 1; // never open: writeSync throws EBADF
    const t = fakeTerminal({ fd });
    const before = snapshot();
    enter(t);
    rec.log.length = 0;
    t.leave();
    expect(rec.log).toEqual([["writeSync", fd, LEAVE], ["setRawMode", false], ["pause"]]);
    expect(snapshot()).toEqual(before);
  });

  it("raw mode that cannot be let go (SIGHUP) does not stop the rest", () => {
    const t = fakeTerminal({ rawThrows: true });
    const before = snapshot();
    enter(t);
    rec.log.length = 0;
    t.leave();
    expect(rec.log).toEqual([["writeSync", 1, LEAVE], ["setRawMode", false], ["pause"]]);
    expect(snapshot()).toEqual(before);
  });
});

describe("Terminal signals and crashes", () => {
  // A signal is handed to onSignal (the terminal stays: the app leaves); exit leaves; a crash
  // leaves first, then onCrash gets the error.
  it.each(["SIGTERM", "SIGHUP", "SIGINT"] as const)("%s: onSignal", (sig) => {
    const added = enter(fakeTerminal());
    rec.log.length = 0;
    added[sig][0]!();
    expect(rec.log).toEqual([["signal", sig]]);
  });

  it("exit: the terminal given back", () => {
    const before = snapshot();
    const added = enter(fakeTerminal());
    rec.log.length = 0;
    added.exit[0]!();
    expect(rec.log).toEqual([["writeSync", 1, LEAVE], ["setRawMode", false], ["pause"]]);
    expect(snapshot()).toEqual(before);
  });

  it.each(["uncaughtException", "unhandledRejection"] as const)("%s: given back, then onCrash", (ev) => {
    const before = snapshot();
    const e = new Error("boom");
    const added = enter(fakeTerminal());
    rec.log.length = 0;
    added[ev][0]!(e);
    expect(rec.log).toEqual([["writeSync", 1, LEAVE], ["setRawMode", false], ["pause"], ["crash", e]]);
    expect(snapshot()).toEqual(before);
  });
});

describe("Terminal suspend and resume", () => {
  // Around an attach: the screen cleared with the cursor shown; then raw mode and no cursor again.
  it("suspend", () => {
    fakeTerminal().suspend();
    expect(rec.log).toEqual([["write", "\x1b[0m\x1b[?7h\x1b[?25h\x1b[H\x1b[2J"]]);
  });
  it("resume", () => {
    fakeTerminal().resume();
    expect(rec.log).toEqual([
      ["setRawMode", true],
      ["resume"],
      ["write", "\x1b[0m\x1b[?7l\x1b[?25l\x1b[H\x1b[2J"],
    ]);
  });
});

/** `s` inside a synchronized update. */
const sync = (s: string) => `\x1b[?2026h${s}\x1b[?2026l`;
/** Row `y` (from 1) placed, reset, written, reset. */
const row = (y: number, s: string) => `\x1b[${y};1H\x1b[0m${s}\x1b[0m`;
/** A Painter and what it wrote. */
function painter() {
  const out: string[] = [];
  return { p: new Painter((s) => out.push(s)), out };
}

describe("Painter", () => {
  // Only the rows that changed, each placed and reset, in one synchronized update; nothing when
  // nothing changed.

  it("the first frame: every row", () => {
    const { p, out } = painter();
    p.paint(["a", "b"]);
    expect(out).toEqual([sync(row(1, "a") + row(2, "b"))]);
  });

  it("the same frame again: nothing written", () => {
    const { p, out } = painter();
    p.paint(["a", "b"]);
    p.paint(["a", "b"]);
    expect(out).toHaveLength(1);
  });

  it("an empty first frame: nothing written", () => {
    const { p, out } = painter();
    p.paint([]);
    expect(out).toEqual([]);
  });

  it("one row changed: that row only", () => {
    const { p, out } = painter();
    p.paint(["a", "b", "c"]);
    p.paint(["a", "B", "c"]);
    expect(out[1]).toBe(sync(row(2, "B")));
  });

  it("a longer frame: the new rows", () => {
    const { p, out } = painter();
    p.paint(["a"]);
    p.paint(["a", "b"]);
    expect(out[1]).toBe(sync(row(2, "b")));
  });
});

describe("Painter: shorter frames and invalidate", () => {
  // The rest of the screen cleared when the frame is shorter; everything again after invalidate.
  it("a shorter frame: the screen below it cleared", () => {
    const { p, out } = painter();
    p.paint(["a", "b", "c"]);
    p.paint(["a", "x"]);
    expect(out[1]).toBe(sync(`${row(2, "x")}\x1b[3;1H\x1b[0J`));
  });

  it("a shorter frame with the same rows: only the clear", () => {
    const { p, out } = painter();
    p.paint(["a", "b"]);
    p.paint(["a"]);
    expect(out[1]).toBe(sync("\x1b[2;1H\x1b[0J"));
  });

  it("invalidate: cleared and every row, once", () => {
    const { p, out } = painter();
    p.paint(["a", "b"]);
    p.invalidate();
    p.paint(["a", "b"]);
    p.paint(["a", "c"]);
    expect(out.slice(1)).toEqual([
      sync(`\x1b[0m\x1b[H\x1b[2J${row(1, "a")}${row(2, "b")}`),
      sync(row(2, "c")),
    ]);
  });

  it("invalidate before an empty frame: only the clear", () => {
    const { p, out } = painter();
    p.invalidate();
    p.paint([]);
    expect(out).toEqual([sync("\x1b[0m\x1b[H\x1b[2J")]);
  });
});
