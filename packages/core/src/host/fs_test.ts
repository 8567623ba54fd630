/**
 * nodeFs and blockingFs on a real disk, with node:fs wrapped so a test can plant one error at a
 * named call (open, fsync, writeFile of a path), count every file left open, and play a platform
 * without O_NOFOLLOW: exact results, errors and files left behind of the durable writes and reads.
 */

import { spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FsPort, NoFollowRead } from "../ports.ts";
import { removeDir, tempDir } from "./_fixture.ts";
import { blockingFs, nodeFs } from "./fs.ts";

type Op = "open" | "fsync" | "writeFile" | "lstat";

const hooks = vi.hoisted(() => ({
  /** One planted error each: thrown once, at the first matching call. */
  faults: [] as { op: string; path: string | RegExp; code: string }[],
  /** Files opened through the wrapped calls and not closed yet (fds and handles). */
  open: new Map<unknown, string>(),
  /** False: constants.O_NOFOLLOW is undefined, as on Windows. */
  noFollow: true,
}));

vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const fault = (op: string, path: unknown) => {
    const i = hooks.faults.findIndex(
      (f) => f.op === op && (typeof f.path === "string" ? f.path === path : f.path.test(String(path))),
    );
    const f = hooks.faults[i];
    if (!f) return;
    hooks.faults.splice(i, 1);
    throw Object.assign(new Error(`${f.code}: planted, ${op} '${String(path)}'`), { code: f.code });
  };
  const constants = Object.defineProperty({ ...real.constants }, "O_NOFOLLOW", {
    get: () => (hooks.noFollow ? real.constants.O_NOFOLLOW : undefined),
  });
  const openSync = ((path: string, ...rest: [never]) => {
    fault("open", path);
    const fd = real.openSync(path, ...rest);
    hooks.open.set(fd, path);
    return fd;
  }) as typeof real.openSync;
  const closeSync = (fd: number) => {
    hooks.open.delete(fd);
    real.closeSync(fd);
  };
  const fsyncSync = (fd: number) => {
    fault("fsync", hooks.open.get(fd));
    real.fsyncSync(fd);
  };
  const writeFileSync = ((file: unknown, ...rest: [never]) => {
    if (typeof file === "number") fault("writeFile", hooks.open.get(file));
    real.writeFileSync(file as string, ...rest);
  }) as typeof real.writeFileSync;
  const lstatSync = ((path: string, ...rest: [never]) => {
    fault("lstat", path);
    return real.lstatSync(path, ...rest);
  }) as typeof real.lstatSync;
  const lstat = async (path: string, ...rest: [never]) => {
    fault("lstat", path);
    return real.promises.lstat(path, ...rest);
  };
  const open = async (path: string, ...rest: [never]) => {
    fault("open", path);
    const fh = await real.promises.open(path, ...rest);
    hooks.open.set(fh, path);
    const [close, sync, writeFile] = [fh.close.bind(fh), fh.sync.bind(fh), fh.writeFile.bind(fh)];
    fh.close = () => {
      hooks.open.delete(fh);
      return close();
    };
    fh.sync = async () => {
      fault("fsync", path);
      return sync();
    };
    fh.writeFile = async (...a: Parameters<typeof writeFile>) => {
      fault("writeFile", path);
      return writeFile(...a);
    };
    return fh;
  };
  const promises = { ...real.promises, open, lstat };
  const wrapped = { constants, openSync, closeSync, fsyncSync, writeFileSync, lstatSync, promises };
  return { ...real, ...wrapped, default: { ...real, ...wrapped } };
});

let dir = "";
beforeEach(() => {
  dir = tempDir("ariel-fs-");
});
afterEach(() => {
  const left = { faults: hooks.faults.map((f) => `${f.op} ${f.path}`), open: [...hooks.open.values()] };
  hooks.faults = [];
  hooks.open.clear();
  hooks.noFollow = true;
  removeDir(dir);
  expect(left).toEqual({ faults: [], open: [] }); // every planted error was hit, nothing left open
});

function plant(op: Op, path: string | RegExp, code: string): void {
  hooks.faults.push({ op, path, code });
}

const TEMP = /\/\.[^/]+\.\d+\.[0-9a-f]+\.tmp$/;
const impls: [string, FsPort][] = [
  ["nodeFs", nodeFs],
  ["blockingFs", blockingFs],
];
const umask = process.umask();

/** Every entry of `dir` with its kind and, for a file, its permission bits and text. */
function listing(d = dir): string[] {
  return readdirSync(d)
    .map((name) => {
      const st = lstatSync(join(d, name));
      if (!st.isFile()) return `${name} ${st.isDirectory() ? "dir" : "other"}`;
      return `${name} ${(st.mode & 0o777).toString(8)} ${readFileSync(join(d, name), "utf8")}`;
    })
    .sort();
}

/** The error code a promise rejects with, or its value when it does not. */
async function codeOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (value) => ({ value }),
    (e: NodeJS.ErrnoException) => e.code ?? String(e),
  );
}

const perm = (mode: number) => (mode & ~umask).toString(8);

describe.each(impls)("%s.writeAtomic", (_name, fs) => {
  it("writes a new file with the mode given (default 0644), resolves undefined, leaves no temp file", async () => {
    expect(await fs.writeAtomic(join(dir, "a"), "alpha\n", 0o600)).toBeUndefined();
    await fs.writeAtomic(join(dir, "b"), new Uint8Array([104, 105]));
    expect(listing()).toEqual([`a ${perm(0o600)} alpha\n`, `b ${perm(0o644)} hi`]);
  });

  it("replaces a file whole: the new content and mode, the old inode gone", async () => {
    writeFileSync(join(dir, "f"), "old content that is longer\n", { mode: 0o644 });
    const before = lstatSync(join(dir, "f")).ino;
    await fs.writeAtomic(join(dir, "f"), "new\n", 0o600);
    expect(listing()).toEqual([`f ${perm(0o600)} new\n`]);
    expect(lstatSync(join(dir, "f")).ino).not.toBe(before);
  });

  it("a failed fsync of the temp file rejects with its code; the old file stays, no temp file", async () => {
    writeFileSync(join(dir, "f"), "old\n");
    plant("fsync", TEMP, "EIO");
    expect(await codeOf(fs.writeAtomic(join(dir, "f"), "new\n"))).toBe("EIO");
    expect(listing()).toEqual([`f ${perm(0o666)} old\n`]);
  });

  it("a failed write of the temp file rejects with its code and leaves nothing", async () => {
    plant("writeFile", TEMP, "ENOSPC");
    expect(await codeOf(fs.writeAtomic(join(dir, "f"), "new\n"))).toBe("ENOSPC");
    expect(listing()).toEqual([]);
  });

  it("a failed rename (a directory is there) rejects with its code; the directory stays, no temp file", async () => {
    mkdirSync(join(dir, "d"));
    writeFileSync(join(dir, "d", "inner"), "x");
    expect(await codeOf(fs.writeAtomic(join(dir, "d"), "new\n"))).toBe("EISDIR");
    expect([listing(), listing(join(dir, "d"))]).toEqual([["d dir"], [`inner ${perm(0o666)} x`]]);
  });

  it("fsyncs the temp file and then the directory", async () => {
    plant("fsync", dir, "EIO");
    expect(await codeOf(fs.writeAtomic(join(dir, "f"), "new\n"))).toBe("EIO");
    expect(listing()).toEqual([`f ${perm(0o644)} new\n`]); // the rename was done before
    plant("fsync", TEMP, "EIO");
    expect(await codeOf(fs.writeAtomic(join(dir, "g"), "new\n"))).toBe("EIO");
    expect(listing()).toEqual([`f ${perm(0o644)} new\n`]);
  });

  it("into a missing directory: ENOENT, nothing made", async () => {
    expect(await codeOf(fs.writeAtomic(join(dir, "nope", "f"), "x"))).toBe("ENOENT");
    expect(listing()).toEqual([]);
  });
});

describe.each(impls)("%s.syncDir", (_name, fs) => {
  it.each(["EISDIR", "EINVAL", "EPERM", "EBADF"])(
    "%s from the directory fsync (unsupported there) is ignored",
    async (code) => {
      plant("fsync", dir, code);
      expect(await codeOf(fs.syncDir(dir))).toEqual({ value: undefined });
    },
  );

  it.each(["EIO", "ENOSPC"])("%s from the directory fsync rejects", async (code) => {
    plant("fsync", dir, code);
    expect(await codeOf(fs.syncDir(dir))).toBe(code);
  });

  it("an ignored code from a write's directory fsync: the write resolves", async () => {
    plant("fsync", dir, "EINVAL");
    expect(await codeOf(fs.writeAtomic(join(dir, "f"), "x"))).toEqual({ value: undefined });
    expect(listing()).toEqual([`f ${perm(0o644)} x`]);
  });

  it("a directory that cannot be opened: its code", async () => {
    plant("open", dir, "EACCES");
    expect(await codeOf(fs.syncDir(dir))).toBe("EACCES");
    expect(await codeOf(fs.syncDir(join(dir, "nope")))).toBe("ENOENT");
  });
});

describe.each(impls)("%s.createExclusive", (_name, fs) => {
  it("creates a new file (0644) with the data: true; something there: false, left as it was", async () => {
    expect(await fs.createExclusive(join(dir, "lock"), "me\n")).toBe(true);
    expect(await fs.createExclusive(join(dir, "lock"), "you\n")).toBe(false);
    symlinkSync("nowhere", join(dir, "dangling"));
    expect(await fs.createExclusive(join(dir, "dangling"), "you\n")).toBe(false);
    expect(listing()).toEqual(["dangling other", `lock ${perm(0o644)} me\n`]);
  });

  it("any other error rejects with its code (a missing directory: ENOENT)", async () => {
    expect(await codeOf(fs.createExclusive(join(dir, "nope", "lock"), "me"))).toBe("ENOENT");
    plant("open", join(dir, "lock"), "EACCES");
    expect(await codeOf(fs.createExclusive(join(dir, "lock"), "me"))).toBe("EACCES");
    expect(listing()).toEqual([]);
  });

  it("a failed write rejects with its code and removes the file it made", async () => {
    plant("writeFile", join(dir, "lock"), "ENOSPC");
    expect(await codeOf(fs.createExclusive(join(dir, "lock"), "me"))).toBe("ENOSPC");
    expect(listing()).toEqual([]);
  });
});

/** A read's kind, size and text (null when not read). */
function shape(r: NoFollowRead | null) {
  return r && { kind: r.info.kind, size: r.info.size, text: r.bytes && new TextDecoder().decode(r.bytes) };
}

describe.each(impls)("%s.readFileNoFollow", (_name, fs) => {
  it("reads a file of up to maxBytes bytes; one byte more is reported unread", async () => {
    writeFileSync(join(dir, "f"), "12345");
    const r = await fs.readFileNoFollow(join(dir, "f"), 5);
    const st = lstatSync(join(dir, "f"));
    expect(r?.info).toEqual({
      kind: "file",
      size: 5,
      mtimeMs: st.mtimeMs,
      mode: st.mode,
      dev: st.dev,
      ino: st.ino,
    });
    expect(shape(r)).toEqual({ kind: "file", size: 5, text: "12345" });
    expect(shape(await fs.readFileNoFollow(join(dir, "f"), 4))).toEqual({
      kind: "file",
      size: 5,
      text: null,
    });
  });

  it("absent, or under a file: null", async () => {
    writeFileSync(join(dir, "f"), "x");
    expect(await fs.readFileNoFollow(join(dir, "nope"), 100)).toBeNull();
    expect(await fs.readFileNoFollow(join(dir, "f", "x"), 100)).toBeNull();
  });

  it("a link, a directory, a FIFO: what is there, never read through (a FIFO does not block)", async () => {
    writeFileSync(join(dir, "f"), "secret");
    symlinkSync("f", join(dir, "link"));
    mkdirSync(join(dir, "d"));
    expect(spawnSync("mkfifo", [join(dir, "fifo")]).status).toBe(0);
    const big = 1 << 20;
    expect(shape(await fs.readFileNoFollow(join(dir, "link"), big))).toEqual({
      kind: "symlink",
      size: 1,
      text: null,
    });
    const d = await fs.readFileNoFollow(join(dir, "d"), big);
    expect(shape(d)).toEqual({ kind: "dir", size: lstatSync(join(dir, "d")).size, text: null });
    expect(shape(await fs.readFileNoFollow(join(dir, "fifo"), big))).toEqual({
      kind: "other",
      size: 0,
      text: null,
    });
  });

  it("a socket (ENXIO on open): what is there", async () => {
    const server = await listen(join(dir, "sock"));
    try {
      const r = await fs.readFileNoFollow(join(dir, "sock"), 100);
      expect(shape(r)).toEqual({ kind: "other", size: 0, text: null });
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it("EMLINK on open (FreeBSD's answer for a link): the link, from lstat", async () => {
    symlinkSync("nowhere", join(dir, "link"));
    plant("open", join(dir, "link"), "EMLINK");
    expect(shape(await fs.readFileNoFollow(join(dir, "link"), 100))).toEqual({
      kind: "symlink",
      size: "nowhere".length,
      text: null,
    });
  });

  it("any other error on open rejects with its code", async () => {
    writeFileSync(join(dir, "f"), "x");
    plant("open", join(dir, "f"), "EIO");
    expect(await codeOf(fs.readFileNoFollow(join(dir, "f"), 100))).toBe("EIO");
  });

  it("a link whose lstat then fails: that error; gone by then: null", async () => {
    symlinkSync("f", join(dir, "link"));
    plant("lstat", join(dir, "link"), "EIO");
    expect(await codeOf(fs.readFileNoFollow(join(dir, "link"), 100))).toBe("EIO");
    plant("lstat", join(dir, "link"), "ENOENT");
    expect(await fs.readFileNoFollow(join(dir, "link"), 100)).toBeNull();
  });

  it.skipIf(!existsSync("/proc/self/status"))(
    "a file that reads longer than its stat said: the size read, no bytes past the bound",
    async () => {
      const r = await fs.readFileNoFollow("/proc/self/status", 10); // stat size 0
      expect(r?.bytes).toBeNull();
      expect(r?.info.kind).toBe("file");
      expect(r?.info.size).toBeGreaterThan(10);
      expect(r?.info.ino).toBe(lstatSync("/proc/self/status").ino);
      const whole = await fs.readFileNoFollow("/proc/self/status", 1 << 20);
      expect(whole && new TextDecoder().decode(whole.bytes ?? undefined)).toMatch(/^Name:/);
    },
  );
});

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(path, () => resolve(server));
  });
}

describe.each(impls)("%s.readFileNoFollow without O_NOFOLLOW (Windows): lstat first", (_name, fs) => {
  beforeEach(() => {
    hooks.noFollow = false;
  });

  it("a file: its bytes; over the bound: none", async () => {
    writeFileSync(join(dir, "f"), "abc");
    expect(shape(await fs.readFileNoFollow(join(dir, "f"), 3))).toEqual({
      kind: "file",
      size: 3,
      text: "abc",
    });
    expect(shape(await fs.readFileNoFollow(join(dir, "f"), 2))).toEqual({
      kind: "file",
      size: 3,
      text: null,
    });
  });

  it("a link to a file is not followed; a directory is what it is", async () => {
    writeFileSync(join(dir, "f"), "secret");
    symlinkSync("f", join(dir, "link"));
    mkdirSync(join(dir, "d"));
    const r = await fs.readFileNoFollow(join(dir, "link"), 100);
    expect(r?.info).toEqual({ ...pick(join(dir, "link")), kind: "symlink" });
    expect(r?.bytes).toBeNull();
    const d = await fs.readFileNoFollow(join(dir, "d"), 100);
    expect(shape(d)).toEqual({ kind: "dir", size: lstatSync(join(dir, "d")).size, text: null });
  });

  it("absent, or under a file: null; any other lstat error rejects with its code", async () => {
    writeFileSync(join(dir, "f"), "x");
    expect(await fs.readFileNoFollow(join(dir, "nope"), 100)).toBeNull();
    expect(await fs.readFileNoFollow(join(dir, "f", "x"), 100)).toBeNull();
    plant("lstat", join(dir, "f"), "EACCES");
    expect(await codeOf(fs.readFileNoFollow(join(dir, "f"), 100))).toBe("EACCES");
  });
});

/** The StatInfo fields of an lstat. */
function pick(path: string) {
  const st = lstatSync(path);
  return { size: st.size, mtimeMs: st.mtimeMs, mode: st.mode, dev: st.dev, ino: st.ino };
}

describe.each(impls)("%s.stat and lstat", (_name, fs) => {
  it("absent: null; a link loop: ELOOP from stat, the link from lstat", async () => {
    symlinkSync("loop", join(dir, "loop"));
    expect(await fs.stat(join(dir, "nope"))).toBeNull();
    expect(await fs.lstat(join(dir, "nope"))).toBeNull();
    expect(await codeOf(fs.stat(join(dir, "loop")))).toBe("ELOOP");
    expect((await fs.lstat(join(dir, "loop")))?.kind).toBe("symlink");
  });
});

describe("nodeFs.stat and lstat", () => {
  it("under a file (ENOTDIR): null", async () => {
    writeFileSync(join(dir, "f"), "x");
    expect(await nodeFs.stat(join(dir, "f", "x"))).toBeNull();
    expect(await nodeFs.lstat(join(dir, "f", "x"))).toBeNull();
  });
});
