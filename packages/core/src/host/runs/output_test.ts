import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPaths } from "../../runs/paths.ts";
import { DEFAULT_OUTPUT_CAP } from "../../runs/segments.ts";
import {
  capStream,
  outputCap,
  type PunchHole,
  punchHole,
  readDropMark,
  readDropped,
  readOutputAt,
} from "./output.ts";

const RUN = "20261202T000000Z-abcdef";
const CAP = 16384;
let root: string;
let paths: ReturnType<typeof runPaths>;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-output-")));
  paths = runPaths(root, RUN);
  rmSync(paths.dir, { recursive: true, force: true });
  mkdirSync(paths.dir, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => 97 + (i % 26)));

describe("capStream", () => {
  it("under the cap plus a segment: nothing dropped, nothing written", async () => {
    writeFileSync(paths.stdout, bytes(CAP + 4095));
    const calls: unknown[] = [];
    expect(await capStream(paths, "stdout", CAP, async (...a) => void calls.push(a))).toBeNull();
    expect([calls, readDropped(paths, "stdout")]).toEqual([[], 0]);
  });

  it("records the new start before it punches, then punches exactly the newly dropped range", async () => {
    writeFileSync(paths.stdout, bytes(CAP + 9000));
    const seen: [string, number, number, number][] = [];
    const punch: PunchHole = async (path, offset, length) => {
      seen.push([path, offset, length, readDropped(paths, "stdout")]);
    };
    expect(await capStream(paths, "stdout", CAP, punch)).toEqual({ dropped: 8192 });
    expect(seen).toEqual([[paths.stdout, 0, 8192, 8192]]);
    writeFileSync(paths.stdout, bytes(CAP + 13000));
    expect(await capStream(paths, "stdout", CAP, punch)).toEqual({ dropped: 12288 });
    expect(seen[1]).toEqual([paths.stdout, 8192, 4096, 12288]);
  });

  it("puts the record back and reports the error when the hole cannot be punched", async () => {
    writeFileSync(paths.stdout, bytes(CAP + 9000));
    const r = await capStream(paths, "stdout", CAP, async () => {
      throw new Error("fallocate: fallocate failed: Operation not supported");
    });
    expect(r).toEqual({ error: "fallocate: fallocate failed: Operation not supported" });
    expect(readDropped(paths, "stdout")).toBe(0);
    expect(readOutputAt(paths, "stdout", 0, 4).bytes).toEqual(new Uint8Array(bytes(4)));
  });

  it("with the real fallocate: the head reads as zeros, takes no space, and readers start after it", async () => {
    const data = bytes(CAP + 9000);
    writeFileSync(paths.stdout, data);
    const before = statSync(paths.stdout).blocks;
    expect(await capStream(paths, "stdout", CAP, punchHole)).toEqual({ dropped: 8192 });
    const st = statSync(paths.stdout);
    expect(st.size).toBe(data.length);
    expect(before - st.blocks).toBeGreaterThanOrEqual(8192 / 512); // 512-byte units freed
    expect(
      readFileSync(paths.stdout)
        .subarray(0, 8192)
        .every((b) => b === 0),
    ).toBe(true);
    const r = readOutputAt(paths, "stdout", 100, 10);
    expect([r.start, Buffer.from(r.bytes).toString(), r.size]).toEqual([
      8192,
      data.subarray(8192, 8202).toString(),
      data.length,
    ]);
  });
});

describe("capStream with no stream file", () => {
  it("nothing to cap: null, no punch, no record", async () => {
    const calls: unknown[] = [];
    expect(await capStream(paths, "stderr", CAP, async (...a) => void calls.push(a))).toBeNull();
    expect([calls, existsSync(`${paths.stderr}.dropped`)]).toEqual([[], false]);
  });
});

describe("readDropped", () => {
  it.each([
    ["no record", null, 0],
    ["a record", '{"dropped":4096}\n', 4096],
    ["a negative offset", '{"dropped":-1}\n', 0],
    ["not JSON", "{", 0],
  ])("%s", (_name, text, want) => {
    if (text !== null) writeFileSync(`${paths.stdout}.dropped`, text);
    expect(readDropped(paths, "stdout")).toBe(want);
  });
});

describe("a drop that cuts a line", () => {
  // Lines "0\n".."9999\n": 8192 falls two bytes into line 1860 ("1860\n" at 8190).
  const text = Array.from({ length: 10_000 }, (_, i) => `${i}\n`).join("");
  const noPunch: PunchHole = async () => {};

  it("records where the next whole line starts, before the punch", async () => {
    writeFileSync(paths.stdout, text.slice(0, CAP + 9000));
    const seen: unknown[] = [];
    const punch: PunchHole = async () => void seen.push(readDropMark(paths, "stdout"));
    expect(await capStream(paths, "stdout", CAP, punch)).toEqual({ dropped: 8192 });
    expect(text.indexOf("1860\n")).toBe(8190);
    expect(seen).toEqual([{ dropped: 8192, resume: 8195 }]);
    expect(readFileSync(`${paths.stdout}.dropped`, "utf8")).toBe('{"dropped":8192,"resume":8195}\n');
    expect(statSync(`${paths.stdout}.dropped`).mode & 0o777).toBe(0o600);
  });

  it.each([
    ["a dropped sequence: the first whole line", 0, 8195, "1861\n"],
    ["just under the drop", 8191, 8195, "1861\n"],
    ["at the drop (kept bytes): from there", 8192, 8192, "60\n18"],
    ["past the drop: from there", 9000, 9000, text.slice(9000, 9005)],
  ])("a reader asking for %s", async (_n, from, start, head) => {
    writeFileSync(paths.stdout, text.slice(0, CAP + 9000));
    await capStream(paths, "stdout", CAP, noPunch);
    const r = readOutputAt(paths, "stdout", from, 5);
    expect([r.start, Buffer.from(r.bytes).toString()]).toEqual([start, head]);
  });

  it("a drop ending a line skips nothing; a record without resume reads as the drop itself", async () => {
    writeFileSync(paths.stdout, "x".repeat(8191) + "\n" + "y\n".repeat(10000));
    expect(await capStream(paths, "stdout", CAP, noPunch)).toEqual({ dropped: 8192 });
    expect(readDropMark(paths, "stdout")).toEqual({ dropped: 8192, resume: 8192 });
    writeFileSync(`${paths.stdout}.dropped`, '{"dropped":4096}\n');
    expect(readDropMark(paths, "stdout")).toEqual({ dropped: 4096, resume: 4096 });
    writeFileSync(`${paths.stdout}.dropped`, '{"dropped":4096,"resume":100}\n'); // under the drop: ignored
    expect(readDropMark(paths, "stdout")).toEqual({ dropped: 4096, resume: 4096 });
  });
});

describe("outputCap", () => {
  it.each([
    ["unset", undefined, DEFAULT_OUTPUT_CAP],
    ["a byte count", "65536", 65536],
    ["one byte", "1", 1],
    ["zero", "0", DEFAULT_OUTPUT_CAP],
    ["negative", "-5", DEFAULT_OUTPUT_CAP],
    ["a fraction", "1.5", DEFAULT_OUTPUT_CAP],
    ["not a number", "lots", DEFAULT_OUTPUT_CAP],
  ])("%s", (_n, value, want) => {
    expect(outputCap({ ARIEL_RUN_OUTPUT_CAP: value })).toBe(want);
  });
});

describe("punchHole (fallocate(1))", () => {
  it("rejects with the tool's first line when it fails", async () => {
    const missing = join(root, "missing");
    await expect(punchHole(missing, 0, 4096)).rejects.toThrow(
      new RegExp(`^fallocate: cannot open ${missing}: No such file or directory$`),
    );
  });

  /** Runs `punchHole` with `script` as the only fallocate on PATH. */
  async function withFakeFallocate<T>(script: string, body: () => Promise<T>): Promise<T> {
    const bin = join(root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "fallocate"), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, "fallocate"), 0o755);
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      return await body();
    } finally {
      process.env.PATH = path;
    }
  }

  it("a failure that says nothing: the exit status", async () => {
    await withFakeFallocate("exit 3", () =>
      expect(punchHole(paths.stdout, 0, 4096)).rejects.toThrow(/^fallocate exited with 3$/),
    );
  });

  it("the first line of what it says, trimmed", async () => {
    await withFakeFallocate("printf '\\n  no room here\\nmore\\n' >&2; exit 1", () =>
      expect(punchHole(paths.stdout, 0, 4096)).rejects.toThrow(/^no room here$/),
    );
  });

  it("passes the range and path as separate words; stdin is empty and stdout is not waited on", async () => {
    const args = join(root, "args");
    // Reads stdin to its end and prints 2 MB: with either one a pipe the monitor does not serve, it would hang.
    const script = [
      `for a in "$@"; do printf '%s\\n' "$a"; done > ${args}`,
      "while read -r l; do :; done",
      "i=0; while [ $i -lt 2000 ]; do printf '%01000d\\n' 0; i=$((i+1)); done",
    ].join("\n");
    await withFakeFallocate(script, () => punchHole(paths.stdout, 4096, 8192));
    expect(readFileSync(args, "utf8")).toBe(
      `--punch-hole\n--offset\n4096\n--length\n8192\n${paths.stdout}\n`,
    );
  });

  it("rejects with the errno when there is no fallocate on PATH", async () => {
    const path = process.env.PATH;
    process.env.PATH = join(root, "empty");
    try {
      await expect(punchHole(paths.stdout, 0, 4096)).rejects.toThrow(/^fallocate: ENOENT$/);
    } finally {
      process.env.PATH = path;
    }
  });
});

describe("readOutputAt at the edges", () => {
  it.each([
    ["no file yet", null, 0, { start: 0, text: "", size: 0 }],
    ["no file yet, from a later sequence", null, 7, { start: 7, text: "", size: 7 }],
    ["past the end", "abc", 10, { start: 10, text: "", size: 10 }],
    ["at the end", "abc", 3, { start: 3, text: "", size: 3 }],
    ["inside", "abcdef", 2, { start: 2, text: "cdef", size: 6 }],
  ])("%s", (_n, content, from, want) => {
    if (content !== null) writeFileSync(paths.stdout, content);
    const r = readOutputAt(paths, "stdout", from, 100);
    expect({ start: r.start, text: Buffer.from(r.bytes).toString(), size: r.size }).toEqual(want);
  });

  it("a stream file that cannot be opened for a reason other than absence: the error", () => {
    rmSync(paths.dir, { recursive: true });
    writeFileSync(paths.dir, "not a directory");
    expect(() => readOutputAt(paths, "stdout", 0, 100)).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
  });

  it("a resume recorded with nothing dropped yet is kept", () => {
    writeFileSync(`${paths.stdout}.dropped`, '{"dropped":0,"resume":5}\n');
    expect(readDropMark(paths, "stdout")).toEqual({ dropped: 0, resume: 5 });
  });
});
