/**
 * More of builtins.ts: which module each accessor returns (process.getBuiltinModule's answer,
 * else require's), that it asks once; and how randomBytes reads /dev/urandom (opened read-only,
 * read in pieces, always closed) and falls back to node:crypto.
 */
import { createRequire } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";

type Fs = typeof import("node:fs");
type Builtins = typeof import("./builtins.ts");

/** The calls builtins.ts makes to open/read/close, and what a test puts in their place. */
const io = vi.hoisted(() => ({
  calls: [] as unknown[][],
  open: undefined as ((path: string, flags: string) => number) | undefined,
  read: undefined as ((fd: number, buf: Uint8Array, off: number, len: number) => number) | undefined,
}));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<Fs>();
  const openSync = (path: string, flags: string) => {
    io.calls.push(["open", path, flags]);
    return io.open ? io.open(path, flags) : fs.openSync(path, flags);
  };
  const readSync = (fd: number, buf: Uint8Array, off: number, len: number, pos: null) => {
    io.calls.push(["read", off, len, pos]);
    return io.read ? io.read(fd, buf, off, len) : fs.readSync(fd, buf, off, len, pos);
  };
  const closeSync = (fd: number) => {
    io.calls.push(["close", fd]);
    fs.closeSync(fd);
  };
  return { ...fs, openSync, readSync, closeSync };
});

const nodeRequire = createRequire(import.meta.url);
const realGetBuiltin = process.getBuiltinModule;
const ACCESSORS = [
  ["nodeZlib", "node:zlib"],
  ["nodeNet", "node:net"],
  ["nodeCrypto", "node:crypto"],
  ["nodeChildProcess", "node:child_process"],
  ["nodeHttp", "node:http"],
  ["nodeHttps", "node:https"],
] as const;

/** builtins.ts loaded anew: nothing memoized yet. */
async function fresh(): Promise<Builtins> {
  vi.resetModules();
  return await import("./builtins.ts");
}

/** process.getBuiltinModule answering `answer(id)` for `only` (every id when not given), else node's. */
function stubGetBuiltin(answer: (id: string) => object | undefined, only?: string) {
  return vi
    .spyOn(process, "getBuiltinModule")
    .mockImplementation(((id: string) =>
      only === undefined || id === only ? answer(id) : realGetBuiltin(id)) as typeof realGetBuiltin);
}

/** node:crypto stood in for by one whose randomBytes fills with 0xab (or `bytes`). */
function fakeCrypto(bytes?: number[]) {
  const randomBytes = vi.fn((n: number) => Buffer.from(bytes ?? Array(n).fill(0xab)));
  stubGetBuiltin(() => ({ randomBytes }), "node:crypto");
  return randomBytes;
}

afterEach(() => {
  vi.restoreAllMocks();
  process.getBuiltinModule = realGetBuiltin;
  io.calls.length = 0;
  io.open = undefined;
  io.read = undefined;
});

describe("the builtin accessors", () => {
  it.each(ACCESSORS)("%s returns what process.getBuiltinModule(%j) gives, asking once", async (name, id) => {
    const sentinel = { id };
    const spy = stubGetBuiltin(() => sentinel);
    const m = await fresh();
    expect(m[name]()).toBe(sentinel);
    expect(m[name]()).toBe(sentinel);
    expect(spy.mock.calls).toEqual([[id]]);
  });

  it.each(ACCESSORS)("%s without process.getBuiltinModule (older Node): require(%j)", async (name, id) => {
    (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
    const m = await fresh();
    expect(m[name]()).toBe(nodeRequire(id));
  });

  it.each(ACCESSORS)("%s when process.getBuiltinModule has no answer: require(%j)", async (name, id) => {
    stubGetBuiltin(() => undefined);
    const m = await fresh();
    expect(m[name]()).toBe(nodeRequire(id));
  });
});

describe("randomBytes from /dev/urandom", () => {
  it("opens it read-only, reads n bytes at once, closes it; node:crypto is not asked", async () => {
    const crypto = fakeCrypto();
    const { randomBytes } = await fresh();
    const out = randomBytes(32);
    expect(out).toHaveLength(32);
    expect(out.every((b) => b === 0xab)).toBe(false);
    const fd = io.calls.find((c) => c[0] === "close")?.[1];
    expect(io.calls).toEqual([
      ["open", "/dev/urandom", "r"],
      ["read", 0, 32, null],
      ["close", fd],
    ]);
    expect(crypto).not.toHaveBeenCalled();
  });

  it("a device that gives a few bytes a read is read on until n are there", async () => {
    const crypto = fakeCrypto();
    const fs = await vi.importActual<Fs>("node:fs");
    io.read = (fd, buf, off, len) => fs.readSync(fd, buf, off, Math.min(len, 3), null);
    const { randomBytes } = await fresh();
    expect(randomBytes(8)).toHaveLength(8);
    expect(io.calls.filter((c) => c[0] === "read")).toEqual([
      ["read", 0, 8, null],
      ["read", 3, 5, null],
      ["read", 6, 2, null],
    ]);
    expect(io.calls.filter((c) => c[0] === "close")).toHaveLength(1);
    expect(crypto).not.toHaveBeenCalled();
  });

  it("a read of nothing (end of file): node:crypto's bytes instead, and the device closed", async () => {
    const crypto = fakeCrypto();
    const fs = await vi.importActual<Fs>("node:fs");
    let first = true;
    // only the first read gives nothing: code that read on would get the device's bytes
    io.read = (fd, buf, off, len) => {
      if (!first) return fs.readSync(fd, buf, off, len, null);
      first = false;
      return 0;
    };
    const { randomBytes } = await fresh();
    expect(randomBytes(4)).toEqual(new Uint8Array([0xab, 0xab, 0xab, 0xab]));
    expect(crypto.mock.calls).toEqual([[4]]);
    expect(io.calls.map((c) => c[0])).toEqual(["open", "read", "close"]);
  });

  it("no /dev/urandom: node:crypto's bytes, nothing to close", async () => {
    const crypto = fakeCrypto();
    io.open = () => {
      throw Object.assign(new Error("ENOENT: /dev/urandom"), { code: "ENOENT" });
    };
    const { randomBytes, randomHex } = await fresh();
    expect(randomBytes(3)).toEqual(new Uint8Array([0xab, 0xab, 0xab]));
    expect(randomHex(2)).toBe("abab");
    expect(crypto.mock.calls).toEqual([[3], [2]]);
    expect(io.calls.map((c) => c[0])).toEqual(["open", "open"]);
  });

  it("randomHex pads each byte to two digits", async () => {
    fakeCrypto([0x00, 0x0f, 0x10, 0xff]);
    io.open = () => {
      throw new Error("no device");
    };
    const { randomHex } = await fresh();
    expect(randomHex(4)).toBe("000f10ff");
  });
});
