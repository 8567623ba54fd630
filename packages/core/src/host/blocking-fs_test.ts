import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FsPort } from "../ports.ts";
import { blockingFs, nodeFs } from "./fs.ts";

// blockingFs must answer exactly as nodeFs does (values, error codes, what is left on disk), only
// synchronously.
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

/** A fresh directory for one write case, made the same way for both implementations. */
function scratch(tag: string): string {
  const d = join(dir, tag);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "file"), "old\n");
  writeFileSync(join(d, "big"), "x".repeat(5000));
  mkdirSync(join(d, "emptydir"));
  mkdirSync(join(d, "fulldir"));
  writeFileSync(join(d, "fulldir", "f"), "f");
  symlinkSync("file", join(d, "link"));
  return d;
}

/** What a write left behind: every entry, its kind and mode, and a file's text. */
function tree(d: string): string[] {
  return readdirSync(d, { withFileTypes: true })
    .map((e) => {
      const p = join(d, e.name);
      const st = lstatSync(p);
      const text = e.isFile() ? readFileSync(p, "utf8") : "";
      return `${e.name} ${st.mode.toString(8)} ${text}`;
    })
    .sort();
}

const writes: [string, (fs: FsPort, d: string) => Promise<unknown>][] = [
  ["writeAtomic over a file", (fs, d) => fs.writeAtomic(join(d, "file"), "new\n")],
  ["writeAtomic of a new file with a mode", (fs, d) => fs.writeAtomic(join(d, "new"), "n", 0o600)],
  ["writeAtomic of bytes", (fs, d) => fs.writeAtomic(join(d, "bytes"), new Uint8Array([104, 105]))],
  ["writeAtomic into a missing directory", (fs, d) => fs.writeAtomic(join(d, "nope/x"), "x")],
  ["createExclusive of a new file", (fs, d) => fs.createExclusive(join(d, "lock"), "me\n")],
  ["createExclusive over a file", (fs, d) => fs.createExclusive(join(d, "file"), "me\n")],
  ["createExclusive over a link", (fs, d) => fs.createExclusive(join(d, "link"), "me\n")],
  ["readFileNoFollow of a file", (fs, d) => fs.readFileNoFollow(join(d, "file"), 100).then(noTimes)],
  ["readFileNoFollow over the bound", (fs, d) => fs.readFileNoFollow(join(d, "big"), 100).then(noTimes)],
  ["readFileNoFollow of a link", (fs, d) => fs.readFileNoFollow(join(d, "link"), 100).then(noTimes)],
  ["readFileNoFollow of a directory", (fs, d) => fs.readFileNoFollow(join(d, "emptydir"), 100).then(noTimes)],
  ["readFileNoFollow of a missing file", (fs, d) => fs.readFileNoFollow(join(d, "nope"), 100)],
  ["unlink of a file", (fs, d) => fs.unlink(join(d, "file"))],
  ["unlink of a link (not its target)", (fs, d) => fs.unlink(join(d, "link"))],
  ["unlink of a missing file", (fs, d) => fs.unlink(join(d, "nope"))],
  ["unlink of a directory", (fs, d) => fs.unlink(join(d, "emptydir"))],
  ["rmdir of an empty directory", (fs, d) => fs.rmdir(join(d, "emptydir"))],
  ["rmdir of a full directory", (fs, d) => fs.rmdir(join(d, "fulldir"))],
  ["rmdir of a missing directory", (fs, d) => fs.rmdir(join(d, "nope"))],
  ["rename", (fs, d) => fs.rename(join(d, "file"), join(d, "moved"))],
  ["rename of a missing file", (fs, d) => fs.rename(join(d, "nope"), join(d, "moved"))],
  ["remove of a full directory", (fs, d) => fs.remove(join(d, "fulldir"))],
  ["remove of a missing path", (fs, d) => fs.remove(join(d, "nope"))],
  ["syncDir", (fs, d) => fs.syncDir(d)],
  ["syncDir of a missing directory", (fs, d) => fs.syncDir(join(d, "nope"))],
];

/** readFileNoFollow's info without the times and inode numbers, which differ between scratch dirs. */
function noTimes(r: Awaited<ReturnType<FsPort["readFileNoFollow"]>>) {
  return (
    r && { kind: r.info.kind, size: r.info.size, mode: r.info.mode, bytes: r.bytes && Array.from(r.bytes) }
  );
}

describe("blockingFs writes as nodeFs does", () => {
  it.each(writes.map(([name, call], i) => [name, call, i] as const))("%s", async (_name, call, i) => {
    const a = scratch(`w${i}-node`);
    const b = scratch(`w${i}-blocking`);
    const want = await outcome(() => call(nodeFs, a));
    expect(await outcome(() => call(blockingFs, b))).toEqual(want);
    expect(tree(b)).toEqual(tree(a)); // no temp file left behind, the same modes and texts
  });
});
