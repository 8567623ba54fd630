import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { childrenOf } from "./_fixture.ts";
import type { PunchHole } from "./output.ts";
import { type HolePuncher, type HolePuncherOptions, holePuncher } from "./punch.ts";

const MiB = 1024 * 1024;
let dir: string;
let puncher: HolePuncher | null = null;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ariel-punch-")));
});
afterEach(async () => {
  puncher?.close();
  puncher = null;
  // A helper told to end is gone before the next test counts its own (under load it can lag).
  await until(() => perlChildren().length === 0);
  rmSync(dir, { recursive: true, force: true });
});

/** A puncher whose fallback and log are recorded. */
function recorded(options: HolePuncherOptions = {}) {
  const fallbacks: [string, number, number][] = [];
  const logs: string[] = [];
  const fallback: PunchHole = async (path, offset, length) => {
    fallbacks.push([path, offset, length]);
  };
  puncher = holePuncher({ fallback, log: (m) => logs.push(m), ...options });
  return { punch: puncher.punch, fallbacks, logs };
}

/** A file of `n` bytes, none zero, still dirty in the page cache (just written). */
function file(name: string, n: number): string {
  const p = join(dir, name);
  writeFileSync(p, Buffer.alloc(n, 0x61));
  return p;
}

/** Pids of this process's live children running perl. */
const perlChildren = () => childrenOf(process.pid, "perl");

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  return ok();
};

describe("holePuncher with the perl helper", () => {
  it("punches real holes (zeros, space freed, length kept) for requests in flight together", async () => {
    const { punch, fallbacks, logs } = recorded();
    const a = file("a", 4 * MiB);
    const b = file("b", 4 * MiB);
    const blocks = statSync(a).blocks;
    await Promise.all([punch(a, 0, MiB), punch(b, MiB, 2 * MiB), punch(a, 2 * MiB, MiB)]);
    for (const [p, holes] of [
      [a, [0, 2]],
      [b, [1, 2]],
    ] as const) {
      const data = readFileSync(p);
      expect(data.length).toBe(4 * MiB);
      for (let m = 0; m < 4; m++) {
        const zero = (holes as readonly number[]).includes(m);
        expect([p, m, data.subarray(m * MiB, (m + 1) * MiB).every((x) => x === (zero ? 0 : 0x61))]).toEqual([
          p,
          m,
          true,
        ]);
      }
      expect(statSync(p).blocks).toBe(blocks / 2);
    }
    expect([fallbacks, logs]).toEqual([[], []]);
    expect(perlChildren()).toHaveLength(1); // one helper served all three
  });

  it.each([
    ["a missing file", "missing", "open: No such file or directory"],
    ["a directory", ".", "open: Is a directory"],
  ])("the kernel's answer about %s is the error, not a reason to fall back", async (_, name, message) => {
    const { punch, fallbacks, logs } = recorded();
    await expect(punch(join(dir, name), 0, 4096)).rejects.toThrow(new Error(message));
    const ok = file("ok", 8192);
    await punch(ok, 0, 4096); // the helper still serves
    expect(
      readFileSync(ok)
        .subarray(0, 4096)
        .every((x) => x === 0),
    ).toBe(true);
    expect([fallbacks, logs]).toEqual([[], []]);
  });

  it("ends the helper after the idle time; the next hole starts a new one", async () => {
    const { punch, fallbacks } = recorded({ idleMs: 50 });
    const p = file("f", 3 * 4096);
    await punch(p, 0, 4096);
    expect(await until(() => perlChildren().length === 0)).toBe(true);
    await punch(p, 4096, 4096);
    expect(
      readFileSync(p)
        .subarray(0, 8192)
        .every((x) => x === 0),
    ).toBe(true);
    expect(fallbacks).toEqual([]);
  });

  it("close() ends the helper", async () => {
    const { punch } = recorded();
    await punch(file("f", 8192), 0, 4096);
    expect(perlChildren()).toHaveLength(1);
    puncher!.close();
    expect(await until(() => perlChildren().length === 0)).toBe(true);
  });
});

describe("holePuncher's idle time", () => {
  /**
   * A stand-in helper (named perl, run by node) that notes each start in `starts` and answers
   * every request it has after 30 ms of quiet, all in one write: two replies in one chunk.
   */
  function batchingHelper(): { path: string; starts: () => number } {
    const bin = join(dir, "bin");
    const log = join(dir, "starts");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "perl"),
      `#!/usr/bin/env node
require("node:fs").appendFileSync(${JSON.stringify(log)}, "start\\n");
let n = 0, t;
const answer = () => { process.stdout.write("ok\\n".repeat(n)); n = 0; };
process.stdin.on("data", (d) => { n += d.toString().split("\\0").length - 1; clearTimeout(t); t = setTimeout(answer, 30); });
process.stdin.on("end", () => { clearTimeout(t); answer(); });
`,
      { mode: 0o755 },
    );
    const starts = () => readFileSync(log, "utf8").split("\n").filter(Boolean).length;
    return { path: `${bin}:${dirname(process.execPath)}`, starts };
  }

  it("two replies in one chunk arm one idle timer: a hole within the idle time of the last keeps the helper", async () => {
    const helper = batchingHelper();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const { punch, fallbacks, logs } = recorded({ path: helper.path, idleMs: 1000 });
      const p = file("f", 4 * 4096);
      await Promise.all([punch(p, 0, 4096), punch(p, 4096, 4096)]);
      vi.advanceTimersByTime(500);
      await punch(p, 8192, 4096); // its idle time starts again
      vi.advanceTimersByTime(600); // past the first two's idle time, not the third's
      await punch(p, 12288, 4096);
      expect(helper.starts()).toBe(1);
      expect([fallbacks, logs]).toEqual([[], []]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("holePuncher without a usable helper falls back, and says so once", () => {
  const fake = (name: string, body: string) => {
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return bin;
  };
  it.each([
    ["no perl at all", () => ({ perl: "/nonexistent/perl" }), "/nonexistent/perl: ENOENT"],
    ["no perl on PATH", () => ({ path: join(dir, "empty") }), "perl: ENOENT"],
    [
      "an architecture without a known number",
      () => ({ arch: "mips" }),
      "no fallocate(2) number known for mips",
    ],
    [
      "a helper that dies before answering",
      () => ({ path: fake("perl", "echo 'perl without 64-bit integers' >&2; exit 2") }),
      "perl without 64-bit integers",
    ],
    ["a helper that exits silently", () => ({ path: fake("perl", "exit 0") }), "perl exited with 0"],
    [
      "a helper that answers nonsense",
      () => ({ path: fake("perl", "echo hello; exec sleep 30") }),
      'perl: unexpected reply "hello"',
    ],
  ])("%s", async (_, options, why) => {
    const { punch, fallbacks, logs } = recorded(options());
    const p = join(dir, "f");
    await punch(p, 0, 4096);
    await punch(p, 4096, 8192);
    expect(fallbacks).toEqual([
      [p, 0, 4096],
      [p, 4096, 8192],
    ]);
    expect(logs).toEqual([`hole punch helper unavailable (${why}): using fallocate(1)`]);
  });

  it("the fallback's own error is the punch's error", async () => {
    puncher = holePuncher({
      perl: "/nonexistent/perl",
      fallback: async () => {
        throw new Error("fallocate: ENOENT");
      },
    });
    await expect(puncher.punch(join(dir, "f"), 0, 4096)).rejects.toThrow(new Error("fallocate: ENOENT"));
  });
});
