import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runPaths } from "../../runs/paths.ts";
import { readOutputAt } from "./output.ts";

// What a reader does when the file moves under it, which a regular file on a quiet machine never
// shows: node:fs's openSync, readSync and closeSync are wrapped so a test can see every call and
// make a read short, come up empty, fail, or record a drop while it reads (the monitor's cap
// running between a reader's two looks at `<stream>.dropped`).

type ReadSync = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => number;

const fsHooks = vi.hoisted(() => ({
  read: null as null | ((real: ReadSync, ...args: Parameters<ReadSync>) => number),
  reads: [] as [offset: number, length: number, position: number][],
  opened: [] as number[],
  closed: [] as number[],
}));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const realRead = real.readSync as unknown as ReadSync;
  return {
    ...real,
    openSync: (...a: Parameters<typeof real.openSync>) => {
      const fd = real.openSync(...a);
      fsHooks.opened.push(fd);
      return fd;
    },
    closeSync: (fd: number) => {
      fsHooks.closed.push(fd);
      real.closeSync(fd);
    },
    readSync: (...a: Parameters<ReadSync>) => {
      const [, , offset, length, position] = a;
      fsHooks.reads.push([offset, length, position]);
      if (fsHooks.reads.length > 20) throw new Error("the read loop did not stop");
      return fsHooks.read ? fsHooks.read(realRead, ...a) : realRead(...a);
    },
  };
});

const RUN = "20261202T000000Z-abcdef";
// "first\n" is 0..5, "second\n" 6..12, "third\n" 13..18.
const TEXT = "first\nsecond\nthird\n";
let root: string;
let paths: ReturnType<typeof runPaths>;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-output-reads-")));
  paths = runPaths(root, RUN);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.stdout, TEXT);
  Object.assign(fsHooks, { read: null, reads: [], opened: [], closed: [] });
});
afterEach(() => {
  fsHooks.read = null;
  rmSync(root, { recursive: true, force: true });
});

function read(from: number, max: number) {
  const r = readOutputAt(paths, "stdout", from, max);
  return { start: r.start, text: Buffer.from(r.bytes).toString(), size: r.size };
}

describe("readOutputAt's reads", () => {
  it("one read of exactly what is asked, from where it is asked, and the file closed", () => {
    expect(read(2, 100)).toEqual({ start: 2, text: TEXT.slice(2), size: 19 });
    expect(fsHooks.reads).toEqual([[0, 17, 2]]);
    expect(fsHooks.closed).toEqual(fsHooks.opened);
    expect(fsHooks.opened).toHaveLength(1);
  });

  it("short reads are continued where each one stopped", () => {
    fsHooks.read = (real, fd, buf, off, len, pos) => real(fd, buf, off, Math.min(len, 7), pos);
    expect(read(2, 100)).toEqual({ start: 2, text: TEXT.slice(2), size: 19 });
    expect(fsHooks.reads).toEqual([
      [0, 17, 2],
      [7, 10, 9],
      [14, 3, 16],
    ]);
  });

  it("a file shorter than its size said (nothing more to read) gives what was read", () => {
    fsHooks.read = (real, fd, buf, off, _len, pos) => (off === 0 ? real(fd, buf, off, 4, pos) : 0);
    expect(read(0, 100)).toEqual({ start: 0, text: "firs", size: 19 });
    expect(fsHooks.reads).toEqual([
      [0, 19, 0],
      [4, 15, 4],
    ]);
  });

  it("a read that fails: the error, and the file closed", () => {
    fsHooks.read = () => {
      throw Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" });
    };
    expect(() => read(0, 100)).toThrow(expect.objectContaining({ code: "EIO" }));
    expect(fsHooks.closed).toEqual(fsHooks.opened);
    expect(fsHooks.opened).toHaveLength(1);
  });
});

describe("a drop recorded while a reader reads", () => {
  /** Make the next read record a drop at 8 (inside "second\n"), whose line resume is 13. */
  function dropDuringRead(): void {
    fsHooks.read = (real, ...a) => {
      fsHooks.read = null;
      const got = real(...a);
      writeFileSync(`${paths.stdout}.dropped`, '{"dropped":8,"resume":13}\n');
      return got;
    };
  }

  it("what was read below the drop's line resume is cut off", () => {
    dropDuringRead();
    expect(read(0, 100)).toEqual({ start: 13, text: "third\n", size: 19 });
  });

  it("everything read was dropped: nothing, from the resume", () => {
    dropDuringRead();
    expect(read(0, 5)).toEqual({ start: 13, text: "", size: 19 });
  });

  it("a read starting past the drop keeps all it read", () => {
    dropDuringRead();
    expect(read(14, 100)).toEqual({ start: 14, text: "hird\n", size: 19 });
  });
});
