import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../runs/backend.ts";
import { runPaths } from "../../runs/paths.ts";
import { detachedLastLine } from "./last_output.ts";

const ID = "20261203T120000Z-abcdef";
let root: string;

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A run directory with these streams (stderr written after stdout), and the run's view. */
function run(
  files: { stdout?: string | Buffer; stderr?: string },
  extra: Record<string, unknown> = {},
): RunView {
  root = mkdtempSync(`${tmpdir()}/ariel-last-line-`);
  const paths = runPaths(root, ID);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.stdout, files.stdout ?? "");
  writeFileSync(paths.stderr, files.stderr ?? "");
  utimesSync(paths.stdout, 1000, 1000);
  utimesSync(paths.stderr, 2000, 2000);
  const { state = "exited", ...record } = extra;
  return { state, record: { runId: ID, backend: "local", tty: null, ...record } } as unknown as RunView;
}

/** The view's last line, read after `run` made its directory. */
const lastOf = (view: RunView) => detachedLastLine(root, view);
const RUNNING = { state: "running" };

describe("detachedLastLine", async () => {
  it("the stream written last, the other when that one has none", async () => {
    expect(await lastOf(run({ stdout: "out\n", stderr: "err\n" }))).toBe("err");
    expect(await lastOf(run({ stdout: "out\n", stderr: "\n\n" }))).toBe("out");
    expect(await lastOf(run({}))).toBeNull();
  });

  it("reads only the tail: a tail that begins inside a character starts at the next whole one", async () => {
    // 4096 bytes from the end of 3000 "é" (2 bytes each) and a "b" fall on an "é"'s second byte
    expect(await lastOf(run({ stdout: `${"é".repeat(3000)}b` }))).toBe(`${"é".repeat(199)}…`);
  });

  it("a tty run: the last non-blank row of its screen, rendered from its output, the new bytes only on the next look", async () => {
    // a shell that lists, then a full-screen program that paints its rows out of order
    const tty = { tty: { cols: 40, rows: 6 }, ...RUNNING };
    const view = run({ stdout: "\x1b[H\x1b[2Jprompt> ls\r\nfile-a  file-b\r\nprompt> " }, tty);
    expect(await lastOf(view)).toBe("prompt>");
    const paths = runPaths(root, ID);
    appendFileSync(paths.stdout, "\x1b[6;1Hstatus: ready\x1b[2;1Hediting row two");
    expect(await lastOf(view)).toBe("status: ready");
    // what a carriage return overwrote is gone, as on the screen
    appendFileSync(paths.stdout, "\x1b[6;1H\x1b[Kstatus: 40%\rstatus: 80%");
    expect(await lastOf(view)).toBe("status: 80%");
    // two looks at once go one after the other
    expect(await Promise.all([lastOf(view), lastOf(view)])).toEqual(["status: 80%", "status: 80%"]);
  });

  it("a k8s run: none (its output is in its pod)", async () => {
    expect(await lastOf(run({ stdout: "hi\n" }, { backend: "k8s" }))).toBeNull();
  });
});

describe("detachedLastLine: which stream, and how much of it", () => {
  it("the stream written last: stdout when it is newer, stdout first when both were written at once", async () => {
    const newerOut = run({ stdout: "out\n", stderr: "err\n" });
    utimesSync(runPaths(root, ID).stdout, 3000, 3000);
    expect(await lastOf(newerOut)).toBe("out");
    rmSync(root, { recursive: true, force: true });
    const same = run({ stdout: "out\n", stderr: "err\n" });
    utimesSync(runPaths(root, ID).stderr, 1000, 1000);
    expect(await lastOf(same)).toBe("out");
    rmSync(root, { recursive: true, force: true });
    // stdout newer but blank: stderr's
    const blank = run({ stdout: "\n", stderr: "err\n" });
    utimesSync(runPaths(root, ID).stdout, 3000, 3000);
    expect(await lastOf(blank)).toBe("err");
  });

  it("a stream file that is missing reads as never written", async () => {
    const view = run({ stdout: "out\n" });
    rmSync(runPaths(root, ID).stderr);
    expect(await lastOf(view)).toBe("out");
    rmSync(runPaths(root, ID).stdout);
    writeFileSync(runPaths(root, ID).stderr, "err\n");
    expect(await lastOf(view)).toBe("err");
  });

  it("a piped run's output is text, not a screen: a cursor move starts no line", async () => {
    expect(await lastOf(run({ stdout: "a\x1b[2;1Hnext row\n" }))).toBe("anext row");
  });

  it("the last line of a long output, from its tail", async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n");
    expect(await lastOf(run({ stdout: `${lines}\nthe end\n` }))).toBe("the end");
  });

  it("an output that begins with a stray continuation byte keeps it (only a cut tail drops one)", async () => {
    expect(await lastOf(run({ stdout: Buffer.from([0x80, 0x61, 0x62, 0x63]) }))).toBe("\ufffdabc");
  });

  it("a tty run is rendered at its own terminal size", async () => {
    const view = run({ stdout: "abcdefghijKLMNO" }, { tty: { cols: 10, rows: 3 }, state: "exited" });
    expect(await lastOf(view)).toBe("KLMNO");
  });
});
