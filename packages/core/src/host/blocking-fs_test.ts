import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FsPort } from "../ports.ts";
import { blockingFs, nodeFs } from "./fs.ts";

// blockingFs must answer exactly as nodeFs does (values and error codes), only synchronously.
let dir: string;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ariel-blocking-fs-")));
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "sub", "file.txt"), "héllo\n");
  writeFileSync(join(dir, "big.txt"), "x".repeat(40_000)); // more than one read's buffer
  symlinkSync("sub", join(dir, "link"));
  symlinkSync("loop", join(dir, "loop"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The value, or the error code, of one call. */
async function outcome<T>(fn: () => Promise<T>): Promise<{ value: T } | { code: string }> {
  try {
    return { value: await fn() };
  } catch (e) {
    return { code: (e as NodeJS.ErrnoException).code ?? String(e) };
  }
}

const calls: [string, (fs: FsPort) => Promise<unknown>][] = [
  ["readText of a file", (fs) => fs.readText(join(dir, "sub/file.txt"))],
  ["readText of a large file", (fs) => fs.readText(join(dir, "big.txt")).then((t) => t.length)],
  ["readText of a missing file", (fs) => fs.readText(join(dir, "nope"))],
  ["readText of a directory", (fs) => fs.readText(join(dir, "sub"))],
  ["readBytes", (fs) => fs.readBytes(join(dir, "sub/file.txt")).then((b) => Array.from(b))],
  ["readDir", (fs) => fs.readDir(dir).then((es) => es.sort((a, b) => (a.name < b.name ? -1 : 1)))],
  ["readDir of a file", (fs) => fs.readDir(join(dir, "big.txt"))],
  ["stat through a link", (fs) => fs.stat(join(dir, "link")).then((s) => s?.kind)],
  ["stat of a missing path", (fs) => fs.stat(join(dir, "nope"))],
  ["lstat of a link", (fs) => fs.lstat(join(dir, "link")).then((s) => s?.kind)],
  ["lstat of a missing path", (fs) => fs.lstat(join(dir, "nope"))],
  ["realpath through a link", (fs) => fs.realpath(join(dir, "link/file.txt"))],
  ["realpath of a missing path", (fs) => fs.realpath(join(dir, "nope"))],
  ["realpath of a link loop", (fs) => fs.realpath(join(dir, "loop"))],
  ["realpath through a file", (fs) => fs.realpath(join(dir, "big.txt/x"))],
  ["readLink", (fs) => fs.readLink(join(dir, "link"))],
];

describe("blockingFs answers as nodeFs does", () => {
  it.each(calls)("%s", async (_name, call) => {
    const want = await outcome(() => call(nodeFs));
    expect(await outcome(() => call(blockingFs))).toEqual(want);
  });
});

describe("blockingFs.mkdirp", () => {
  it("makes every missing parent and accepts an existing directory", async () => {
    const deep = join(dir, "a/b/c");
    await blockingFs.mkdirp(deep);
    await blockingFs.mkdirp(deep);
    expect((await nodeFs.stat(deep))?.kind).toBe("dir");
  });
  it("rejects (does not throw) under a file, with the same code as nodeFs", async () => {
    const p = blockingFs.mkdirp(join(dir, "big.txt/x"));
    expect(p).toBeInstanceOf(Promise);
    const got = await outcome(() => p);
    expect(got).toEqual(await outcome(() => nodeFs.mkdirp(join(dir, "big.txt/y"))));
    expect(got).toEqual({ code: "ENOTDIR" });
  });
});

describe("blockingFs writes are nodeFs's", () => {
  it("writeAtomic, createExclusive, unlink and syncDir are the same functions", () => {
    for (const k of ["writeAtomic", "createExclusive", "unlink", "syncDir", "remove", "rename"] as const) {
      expect(blockingFs[k]).toBe(nodeFs[k]);
    }
  });
});
