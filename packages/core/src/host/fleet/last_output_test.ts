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
