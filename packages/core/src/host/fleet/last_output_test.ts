import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
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
  return { record: { runId: ID, backend: "local", tty: null, ...extra } } as unknown as RunView;
}

/** The view's last line, read after `run` made its directory. */
const lastOf = (view: RunView) => detachedLastLine(root, view);

describe("detachedLastLine", () => {
  it("the stream written last, the other when that one has none", () => {
    expect(lastOf(run({ stdout: "out\n", stderr: "err\n" }))).toBe("err");
    expect(lastOf(run({ stdout: "out\n", stderr: "\n\n" }))).toBe("out");
    expect(lastOf(run({}))).toBeNull();
  });

  it("reads only the tail: a tail that begins inside a character starts at the next whole one", () => {
    // 4096 bytes from the end of 3000 "é" (2 bytes each) and a "b" fall on an "é"'s second byte
    expect(lastOf(run({ stdout: `${"é".repeat(3000)}b` }))).toBe(`${"é".repeat(199)}…`);
  });

  it("a tty run: its terminal's last non-blank row; a k8s run: none", () => {
    const screen = "\x1b[H\x1b[2Jprompt> ls\x1b[2;1Hfile-a  file-b\x1b[3;1Hprompt> ";
    expect(lastOf(run({ stdout: screen }, { tty: { cols: 80, rows: 24 } }))).toBe("prompt>");
    expect(lastOf(run({ stdout: "hi\n" }, { backend: "k8s" }))).toBeNull();
  });
});
