/**
 * More of the terminal screen: ERR_TTY_UNAVAILABLE when the emulator does not load (and a module
 * found under `default` loading fine), the bytes waiting to be parsed (`pending`, `done`, the feed
 * that needs no flush), its size and resize, lines, text, ANSI, cursor and JSON, what dispose drops,
 * styledLines' colours, modes and widths, and renderStoredScreen from a run's stored stdout (only
 * its last SCREEN_RENDER_BYTES).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { runPaths } from "../../runs/paths.ts";
import { removeDir, tempDir, writeFile } from "../_fixture.ts";
import { renderStoredScreen, SCREEN_RENDER_BYTES, Screen } from "./screen.ts";

const enc = (s: string) => new TextEncoder().encode(s);

const opened: Screen[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.dispose();
  for (const d of dirs.splice(0)) removeDir(d);
  vi.doUnmock("../runtime_dep.ts");
  vi.resetModules();
});

/** A screen of `cols`×`rows` with `bytes` written and parsed (disposed after the test). */
async function screenOf(bytes: string, cols = 20, rows = 3): Promise<Screen> {
  const s = await Screen.open({ cols, rows });
  opened.push(s);
  if (bytes !== "") s.write(enc(bytes));
  await s.flush();
  return s;
}

/** Resolves with `p`'s value, or with `"still waiting"` after `ms` (a bound, not a timing assert). */
function within<T>(p: Promise<T>, ms = 3000): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"still waiting">((r) => {
    timer = setTimeout(() => r("still waiting"), ms);
  });
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

describe("Screen.open when the emulator does not load", () => {
  // A fresh copy of screen.ts (nothing loaded yet) with the runtime loader replaced.
  async function freshScreen(load: (name: string) => Promise<Record<string, unknown>>) {
    vi.resetModules();
    vi.doMock("../runtime_dep.ts", () => ({ loadRuntimeDependency: load }));
    return (await import("./screen.ts")).Screen;
  }

  it("ERR_TTY_UNAVAILABLE (69) saying why, with the packages to reinstall", async () => {
    const S = await freshScreen(async (name) => {
      throw new Error(`Cannot find module '${name}'`);
    });
    const e = (await S.open({ cols: 20, rows: 3 }).then(
      () => null,
      (x: unknown) => x,
    )) as { name: string; code: string; message: string; hint: string; exit: number } | null;
    expect(e && { name: e.name, code: e.code, message: e.message, hint: e.hint, exit: e.exit }).toEqual({
      name: "ArielError",
      code: "ERR_TTY_UNAVAILABLE",
      message: "the terminal emulator did not load (Cannot find module '@xterm/headless')",
      hint: "reinstall the CLI package: @xterm/headless and @xterm/addon-serialize are its dependencies",
      exit: 69,
    });
  });

  it("a load that failed is tried again: once the packages are back, the screen opens", async () => {
    let missing = true;
    const asked: string[] = [];
    const S = await freshScreen(async (name) => {
      asked.push(name);
      if (missing) throw new Error(`Cannot find module '${name}'`);
      return (await import(name)) as Record<string, unknown>;
    });
    await expect(S.open({ cols: 4, rows: 1 })).rejects.toMatchObject({ code: "ERR_TTY_UNAVAILABLE" });
    missing = false;
    const s = await S.open({ cols: 4, rows: 1 });
    opened.push(s);
    s.write(enc("ok"));
    await s.flush();
    const again = await S.open({ cols: 4, rows: 1 });
    opened.push(again);
    // Loaded once it worked, then kept: the third open asks for nothing.
    expect([s.json().lines, asked]).toEqual([
      ["ok"],
      ["@xterm/headless", "@xterm/addon-serialize", "@xterm/headless", "@xterm/addon-serialize"],
    ]);
  });

  it("modules whose exports sit under `default` load: the screen works", async () => {
    const asked: string[] = [];
    const S = await freshScreen(async (name) => {
      asked.push(name);
      return { default: (await import(name)) as Record<string, unknown> };
    });
    const s = await S.open({ cols: 10, rows: 2 });
    s.write(enc("hi\r\nthere"));
    await s.flush();
    expect([asked, s.json(), s.ansi()]).toEqual([
      ["@xterm/headless", "@xterm/addon-serialize"],
      { cols: 10, rows: 2, cursor: { x: 5, y: 1 }, lines: ["hi", "there"] },
      "\x1b[H\x1b[2Jhi\r\nthere",
    ]);
    s.dispose();
  });
});

describe("Screen.write: pending bytes, done callbacks, the feed without a flush", () => {
  it("counts what waits; feeds it by itself, in order; done after each is parsed", async () => {
    const s = await screenOf("");
    const order: string[] = [];
    const fed = new Promise<void>((resolve) => {
      s.write(enc("abc"), () => order.push(`abc ${s.lines()[0]}`));
      s.write(enc("de"), () => {
        order.push(`de ${s.lines()[0]}`);
        resolve();
      });
    });
    expect(s.pending).toBe(5);
    expect(await within(fed)).toBe(undefined);
    expect([order, s.pending, s.lines()]).toEqual([["abc abc", "de abcde"], 0, ["abcde", "", ""]]);
  });

  it("a write after the first feed is fed by a timer of its own", async () => {
    const s = await screenOf("one");
    expect(await within(new Promise<void>((r) => s.write(enc(" two"), r)))).toBe(undefined);
    expect([s.pending, s.text()]).toEqual([0, "one two\n"]);
  });

  it("flush parses what waits at once; pending is back to 0", async () => {
    const s = await Screen.open({ cols: 20, rows: 3 });
    opened.push(s);
    s.write(enc("x".repeat(7)));
    s.write(enc("é"));
    expect(s.pending).toBe(9);
    await s.flush();
    expect([s.pending, s.lines()]).toEqual([0, ["xxxxxxxé", "", ""]]);
  });

  it("dispose drops what was not fed: a flush after it feeds none of it", async () => {
    const s = await Screen.open({ cols: 20, rows: 3 });
    s.write(enc("kept"));
    await s.flush();
    s.write(enc(" dropped"));
    s.dispose();
    await s.flush();
    expect(s.pending).toBe(8);
  });
});

describe("Screen: size, resize, lines, text, ansi, cursor, json", () => {
  it("size, and resize: the new size, the lines kept", async () => {
    const s = await screenOf("ab\r\ncd");
    expect(s.size).toEqual({ cols: 20, rows: 3 });
    s.resize({ cols: 8, rows: 2 });
    expect([s.size, s.json()]).toEqual([
      { cols: 8, rows: 2 },
      { cols: 8, rows: 2, cursor: { x: 2, y: 1 }, lines: ["ab", "cd"] },
    ]);
  });

  it("lines: one per row, top to bottom, trailing blanks cut, leading ones kept", async () => {
    const s = await screenOf("ab  \r\n  cd\x1b[K\r\n\r\n   e", 10, 4);
    expect(s.lines()).toEqual(["ab", "  cd", "", "   e"]);
  });

  it.each([
    ["an empty screen", "", 20, 3, ""],
    ["trailing empty lines dropped, inner ones kept", "a\r\n\r\nb", 20, 5, "a\n\nb\n"],
    ["a full screen", "a\r\nb", 20, 2, "a\nb\n"],
    ["only the visible rows", "1\r\n2\r\n3\r\n4 ", 20, 2, "3\n4\n"],
  ])("text: %s", async (_name, bytes, cols, rows, want) => {
    expect((await screenOf(bytes, cols, rows)).text()).toBe(want);
  });

  it("ansi: clear, home, then the colours and modes; cursor and json", async () => {
    const s = await screenOf("\x1b[31mred\x1b[0m ok\r\n\x1b[1mBold");
    expect([s.ansi(), s.cursor(), s.json()]).toEqual([
      "\x1b[H\x1b[2J\x1b[31mred\x1b[0m ok\r\n\x1b[1mBold",
      { x: 4, y: 1 },
      { cols: 20, rows: 3, cursor: { x: 4, y: 1 }, lines: ["red ok", "Bold", ""] },
    ]);
  });
});

describe("Screen.styledLines: more colours and modes, widths", () => {
  it.each([
    ["palette colour 8 is bright (90, 100)", "\x1b[90;100mX", 1, ["\x1b[0;90;100mX\x1b[0m"]],
    ["palette colour 7 is normal (37, 47)", "\x1b[37;47mX", 1, ["\x1b[0;37;47mX\x1b[0m"]],
    ["dim, italic, underline", "\x1b[2;3;4mX\x1b[0mY", 2, ["\x1b[0;2;3;4mX\x1b[0mY"]],
    [
      "RGB foreground, 256 background",
      "\x1b[38;2;250;128;7;48;5;17mX",
      1,
      ["\x1b[0;38;2;250;128;7;48;5;17mX\x1b[0m"],
    ],
  ])("%s", async (_name, bytes, cols, want) => {
    expect((await screenOf(bytes)).styledLines(cols, 1)).toEqual(want);
  });

  it("colour is on unless turned off", async () => {
    expect((await screenOf("\x1b[31mr")).styledLines(2, 1)).toEqual(["\x1b[0;31mr\x1b[0m "]);
  });

  it("the second half of a wide character takes no column of its own", async () => {
    expect((await screenOf("漢b\r\nc漢d")).styledLines(4, 2)).toEqual(["漢b ", "c漢d"]);
  });

  it("wider than the screen: the screen's columns, nothing made up past them", async () => {
    expect((await screenOf("hello\r\n\x1b[32mgo")).styledLines(25, 2)).toEqual([
      `hello${" ".repeat(15)}`,
      `\x1b[0;32mgo\x1b[0m${" ".repeat(18)}`,
    ]);
  });
});

describe("renderStoredScreen", () => {
  function run(stdout: string | null) {
    const root = tempDir("ariel-screen-");
    dirs.push(root);
    const paths = runPaths(root, "20261202T110943Z-abc123");
    if (stdout !== null) writeFile(paths.stdout, stdout);
    return paths;
  }

  it("4 MiB are rendered", () => {
    expect(SCREEN_RENDER_BYTES).toBe(4194304);
  });

  it("a run's stdout, written into a screen of the size asked", async () => {
    const s = await renderStoredScreen(run("\x1b[31mred\x1b[0m ok\r\nsecond\r\nthird"), {
      cols: 12,
      rows: 2,
    });
    opened.push(s);
    expect([s.json(), s.pending, s.styledLines(12, 1)]).toEqual([
      { cols: 12, rows: 2, cursor: { x: 5, y: 1 }, lines: ["second", "third"] },
      0,
      ["second      "],
    ]);
  });

  it("no stdout yet: an empty screen", async () => {
    const s = await renderStoredScreen(run(null), { cols: 5, rows: 2 });
    opened.push(s);
    expect(s.json()).toEqual({ cols: 5, rows: 2, cursor: { x: 0, y: 0 }, lines: ["", ""] });
  });

  it("only the last 4 MiB, read in several pieces: a colour set before them is not applied", async () => {
    const tail = "\r\nthe end";
    const body = "a".repeat(SCREEN_RENDER_BYTES - tail.length) + tail;
    const s = await renderStoredScreen(run(`\x1b[31m${body}`), { cols: 20, rows: 3 });
    opened.push(s);
    // 4194304 - 9 = 4194295 "a" = 20 * 209714 + 15: 15 of them on the row above the end.
    expect([s.styledLines(20, 3), s.cursor()]).toEqual([
      ["a".repeat(20), "a".repeat(15) + " ".repeat(5), `the end${" ".repeat(13)}`],
      { x: 7, y: 2 },
    ]);
  });
});
