import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { info, kindOf, syncFs, syncReadFs } from "./sync_fs.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ariel-syncfs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fake = (link: boolean, d: boolean, f: boolean) => ({
  isSymbolicLink: () => link,
  isDirectory: () => d,
  isFile: () => f,
});

describe("kindOf", () => {
  it("a link before a directory before a file; anything else is other", () => {
    expect(kindOf(fake(true, true, true))).toBe("symlink");
    expect(kindOf(fake(false, true, true))).toBe("dir");
    expect(kindOf(fake(false, false, true))).toBe("file");
    expect(kindOf(fake(false, false, false))).toBe("other");
  });
});

describe("info", () => {
  it("carries kind, size, mtime, mode, dev and inode", () => {
    writeFileSync(join(dir, "f"), "12345");
    const s = statSync(join(dir, "f"));
    expect(info(s)).toEqual({
      kind: "file",
      size: 5,
      mtimeMs: s.mtimeMs,
      mode: s.mode,
      dev: s.dev,
      ino: s.ino,
    });
  });
});

describe("syncReadFs", () => {
  it("reads a small file whole, and one larger than its buffer whole too", () => {
    writeFileSync(join(dir, "small"), "ref: refs/heads/main\n");
    const exact = "x".repeat(16 * 1024);
    const big = `${"y".repeat(40 * 1024)}end`;
    writeFileSync(join(dir, "exact"), exact);
    writeFileSync(join(dir, "big"), big);
    writeFileSync(join(dir, "empty"), "");
    expect(syncReadFs.readText(join(dir, "small"))).toBe("ref: refs/heads/main\n");
    expect(syncReadFs.readText(join(dir, "exact"))).toBe(exact);
    expect(syncReadFs.readText(join(dir, "big"))).toBe(big);
    expect(syncReadFs.readText(join(dir, "empty"))).toBe("");
    // the shared buffer does not leak an earlier, longer read into a shorter one
    expect(syncReadFs.readText(join(dir, "small"))).toBe("ref: refs/heads/main\n");
  });

  it("reads UTF-8", () => {
    writeFileSync(join(dir, "u"), "größe ✓");
    expect(syncReadFs.readText(join(dir, "u"))).toBe("größe ✓");
  });

  it("lists a directory with each entry's kind, links not followed", () => {
    writeFileSync(join(dir, "f"), "");
    mkdirSync(join(dir, "d"));
    symlinkSync("f", join(dir, "l"));
    const entries = syncReadFs.readDir(dir).sort((a, b) => a.name.localeCompare(b.name));
    expect(entries).toEqual([
      { name: "d", kind: "dir" },
      { name: "f", kind: "file" },
      { name: "l", kind: "symlink" },
    ]);
  });

  it("stat follows links and is null for a missing path; realpath resolves links", () => {
    writeFileSync(join(dir, "f"), "abc");
    symlinkSync("f", join(dir, "l"));
    expect(syncReadFs.stat(join(dir, "l"))).toMatchObject({ kind: "file", size: 3 });
    expect(syncReadFs.stat(join(dir, "missing"))).toBeNull();
    expect(syncReadFs.realpath(join(dir, "l"))).toBe(join(syncReadFs.realpath(dir), "f"));
  });

  it("throws the system error of a missing file", () => {
    expect(() => syncReadFs.readText(join(dir, "missing"))).toThrow(/ENOENT/);
  });
});

describe("syncFs", () => {
  it("answers the read calls as promises", async () => {
    writeFileSync(join(dir, "f"), "abc");
    symlinkSync("f", join(dir, "l"));
    expect(await syncFs.readText(join(dir, "f"))).toBe("abc");
    expect([...(await syncFs.readBytes(join(dir, "f")))]).toEqual([97, 98, 99]);
    expect(await syncFs.stat(join(dir, "l"))).toMatchObject({ kind: "file", size: 3 });
    expect(await syncFs.lstat(join(dir, "l"))).toMatchObject({ kind: "symlink" });
    expect(await syncFs.lstat(join(dir, "missing"))).toBeNull();
    expect(await syncFs.stat(join(dir, "missing"))).toBeNull();
    // under a file (ENOTDIR): nothing there, as nodeFs says
    expect(await syncFs.stat(join(dir, "f", "x"))).toBeNull();
    expect(await syncFs.lstat(join(dir, "f", "x"))).toBeNull();
    expect(syncReadFs.stat(join(dir, "f", "x"))).toBeNull();
    expect(await syncFs.readLink(join(dir, "l"))).toBe("f");
    expect(await syncFs.realpath(join(dir, "l"))).toBe(join(syncReadFs.realpath(dir), "f"));
    expect((await syncFs.readDir(dir)).map((e) => e.name).sort()).toEqual(["f", "l"]);
  });

  it("rejects (does not throw) a failed read", async () => {
    const p = syncFs.readText(join(dir, "missing"));
    expect(p).toBeInstanceOf(Promise);
    await expect(p).rejects.toMatchObject({ code: "ENOENT" });
    await expect(syncFs.readDir(join(dir, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses every write with a TypeError and writes nothing", async () => {
    const writes = [
      syncFs.mkdirp(join(dir, "a")),
      syncFs.writeAtomic(join(dir, "b"), "x"),
      syncFs.remove(join(dir, "c")),
      syncFs.rename(join(dir, "c"), join(dir, "d")),
      syncFs.createExclusive(join(dir, "e"), "x"),
      syncFs.unlink(join(dir, "f")),
      syncFs.rmdir(join(dir, "g")),
      syncFs.syncDir(dir),
      syncFs.readFileNoFollow(join(dir, "h"), 1024),
    ];
    for (const w of writes)
      await expect(w).rejects.toThrow(new TypeError("syncFs is read-only; write through nodeFs"));
    expect(readdirSync(dir)).toEqual([]);
  });
});
