import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type RunPaths, runPaths } from "../../runs/paths.ts";
import { tempDir } from "../_fixture.ts";
import { Screen } from "../supervise/screen.ts";
import { ttyLastLine } from "./_tty_line.ts";

/**
 * `ttyLastLine` keeps each live run's screen and feeds it only what was appended since the last
 * look. An output file only grows; these tests rewrite bytes already looked at (same size, other
 * text) to see which looks go on from the kept screen (they still show the old text) and which
 * render the stream anew (they show the new one).
 */

const SIZE = { cols: 40, rows: 5 };
/** What a first look renders (FIRST_LOOK_BYTES in _tty_line.ts). */
const FIRST_LOOK = 256 * 1024;
/** An SGR reset: 4 bytes that move no cursor and show nothing. */
const RESET = "\x1b[0m";

let runs = 0;
const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A tty run's paths with `text` as its stdout so far. */
function run(text: string): RunPaths {
  const root = tempDir("ariel-tty-line-");
  dirs.push(root);
  const paths = runPaths(root, `20261202T110000Z-tty${String(++runs).padStart(3, "0")}`);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.stdout, text);
  return paths;
}

/** Replace the stream's bytes already written with `text` of the same length. */
function rewrite(paths: RunPaths, text: string): void {
  writeFileSync(paths.stdout, text);
}

describe("ttyLastLine", () => {
  it("is the last non-blank row of the screen, rendered at the run's size", async () => {
    const p = run(`${"x".repeat(45)}\r\n\r\n`);
    // 45 columns wrap at 40: the last row shows the 5 that did not fit.
    expect(await ttyLastLine(p, SIZE, false)).toBe("xxxxx");
    const q = run(`${"y".repeat(45)}\r\n`);
    expect(await ttyLastLine(q, { cols: 80, rows: 5 }, false)).toBe("y".repeat(45));
    expect(await ttyLastLine(run(""), SIZE, false)).toBeNull();
  });

  it("an ended run's line is kept while its output keeps its size", async () => {
    const p = run("hello");
    expect(await ttyLastLine(p, SIZE, false)).toBe("hello");
    rewrite(p, "HELLO");
    expect(await ttyLastLine(p, SIZE, false)).toBe("hello");
    // Another size is another screen: rendered again.
    expect(await ttyLastLine(p, { cols: 41, rows: 5 }, false)).toBe("HELLO");
    rewrite(p, "hallo");
    expect(await ttyLastLine(p, { cols: 41, rows: 6 }, false)).toBe("hallo");
    // Output that grew is rendered again.
    appendFileSync(p.stdout, "!");
    expect(await ttyLastLine(p, { cols: 41, rows: 6 }, false)).toBe("hallo!");
  });

  it("a live look after an ended one renders anew (an ended look keeps no screen)", async () => {
    const p = run("hello");
    expect(await ttyLastLine(p, SIZE, false)).toBe("hello");
    rewrite(p, "HELLO");
    expect(await ttyLastLine(p, SIZE, true)).toBe("HELLO");
    const q = run("hello");
    expect(await ttyLastLine(q, SIZE, false)).toBe("hello");
    rewrite(q, "HELLO");
    appendFileSync(q.stdout, "!");
    expect(await ttyLastLine(q, SIZE, false)).toBe("HELLO!");
  });

  it("a live look goes on from the kept screen with only the appended bytes", async () => {
    const p = run("hello");
    expect(await ttyLastLine(p, SIZE, true)).toBe("hello");
    rewrite(p, "HELLO");
    // Nothing new: the kept screen's line.
    expect(await ttyLastLine(p, SIZE, true)).toBe("hello");
    appendFileSync(p.stdout, " world");
    expect(await ttyLastLine(p, SIZE, true)).toBe("hello world");
  });

  it("an ended look after a live one keeps the line and drops the screen", async () => {
    const dispose = vi.spyOn(Screen.prototype, "dispose");
    const p = run("hello");
    expect(await ttyLastLine(p, SIZE, true)).toBe("hello");
    expect(dispose).toHaveBeenCalledTimes(0);
    rewrite(p, "HELLO");
    expect(await ttyLastLine(p, SIZE, false)).toBe("hello");
    expect(dispose).toHaveBeenCalledTimes(1);
    expect(await ttyLastLine(p, SIZE, false)).toBe("hello");
    // No screen is kept: the next live look renders the stream anew.
    appendFileSync(p.stdout, " world");
    expect(await ttyLastLine(p, SIZE, true)).toBe("HELLO world");
    expect(dispose).toHaveBeenCalledTimes(1);
  });

  it("a live look at another size renders anew and drops the old screen", async () => {
    const dispose = vi.spyOn(Screen.prototype, "dispose");
    const p = run("hello");
    expect(await ttyLastLine(p, SIZE, true)).toBe("hello");
    rewrite(p, "HELLO");
    appendFileSync(p.stdout, "!");
    expect(await ttyLastLine(p, { cols: 40, rows: 6 }, true)).toBe("HELLO!");
    expect(dispose).toHaveBeenCalledTimes(1);
    rewrite(p, "hallo!");
    appendFileSync(p.stdout, "?");
    expect(await ttyLastLine(p, { cols: 41, rows: 6 }, true)).toBe("hallo!?");
    expect(dispose).toHaveBeenCalledTimes(2);
  });

  it("a stream that shrank (replaced) is rendered anew", async () => {
    const p = run("hello world");
    expect(await ttyLastLine(p, SIZE, true)).toBe("hello world");
    rewrite(p, "bye");
    expect(await ttyLastLine(p, SIZE, true)).toBe("bye");
  });

  it(`goes on from the kept screen for up to ${FIRST_LOOK} new bytes, and renders only the last ${FIRST_LOOK} past that`, async () => {
    const tail = " world!!";
    const exactly = RESET.repeat((FIRST_LOOK - tail.length) / RESET.length) + tail;
    expect(exactly.length).toBe(FIRST_LOOK);
    const p = run("hello");
    expect(await ttyLastLine(p, SIZE, true)).toBe("hello");
    rewrite(p, "HELLO");
    appendFileSync(p.stdout, exactly);
    expect(await ttyLastLine(p, SIZE, true)).toBe("hello world!!");

    // One byte more than a first look: the new bytes' last FIRST_LOOK only, on a new screen.
    const q = run("hello");
    expect(await ttyLastLine(q, SIZE, true)).toBe("hello");
    rewrite(q, "HELLO");
    appendFileSync(q.stdout, `x${exactly}`);
    expect(await ttyLastLine(q, SIZE, true)).toBe("world!!");
  });

  it("a first look renders the stream's last bytes only", async () => {
    const tail = "end";
    const p = run(`start${RESET.repeat(FIRST_LOOK / RESET.length - 1)}${tail}`);
    // 4 bytes more than a first look: it begins at the "t" of "start".
    expect(await ttyLastLine(p, SIZE, false)).toBe("tend");
  });

  it("a look that failed does not stop the next one", async () => {
    const p = run("");
    rmSync(p.stdout);
    mkdirSync(p.stdout); // unreadable as a file
    await expect(ttyLastLine(p, SIZE, true)).rejects.toThrow();
    rmSync(p.stdout, { recursive: true });
    writeFileSync(p.stdout, "back");
    expect(await ttyLastLine(p, SIZE, true)).toBe("back");
  });

  it("looks at one run one at a time, each going on from the one before", async () => {
    const p = run("a");
    const first = ttyLastLine(p, SIZE, true);
    const second = ttyLastLine(p, SIZE, true);
    expect(await Promise.all([first, second])).toEqual(["a", "a"]);
  });
});

describe("ttyLastLine's kept runs", () => {
  it("past 200 runs a new one drops every kept screen; a run already kept does not", async () => {
    vi.resetModules();
    const fresh = await import("./_tty_line.ts");
    const { Screen: FreshScreen } = await import("../supervise/screen.ts");
    const dispose = vi.spyOn(FreshScreen.prototype, "dispose");
    const paths = Array.from({ length: 200 }, () => run("hello"));
    // 199 live runs keep their screens; an ended one keeps only its line.
    for (const p of paths.slice(0, 199)) expect(await fresh.ttyLastLine(p, SIZE, true)).toBe("hello");
    expect(await fresh.ttyLastLine(paths[199]!, SIZE, false)).toBe("hello");
    expect(dispose).toHaveBeenCalledTimes(1);
    rewrite(paths[0]!, "HELLO");
    rewrite(paths[1]!, "HELLO");
    // 200 kept: a look at a kept run keeps them all.
    expect(await fresh.ttyLastLine(paths[0]!, SIZE, true)).toBe("hello");
    expect(dispose).toHaveBeenCalledTimes(1);
    // A 201st run: every kept screen is dropped, and each run is read again.
    expect(await fresh.ttyLastLine(run("new"), SIZE, true)).toBe("new");
    await vi.waitFor(() => expect(dispose).toHaveBeenCalledTimes(200));
    expect(await fresh.ttyLastLine(paths[1]!, SIZE, true)).toBe("HELLO");
  }, 60_000);

  it("fewer than 200 runs are all kept", async () => {
    vi.resetModules();
    const fresh = await import("./_tty_line.ts");
    const a = run("hello");
    const b = run("other");
    expect(await fresh.ttyLastLine(a, SIZE, true)).toBe("hello");
    rewrite(a, "HELLO");
    expect(await fresh.ttyLastLine(b, SIZE, true)).toBe("other");
    expect(await fresh.ttyLastLine(a, SIZE, true)).toBe("hello");
  });
});
