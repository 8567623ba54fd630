/**
 * diskBytes (the `bytes` of `ariel-worktree list`, for legs and orphaned entries) on real trees:
 * allocated bytes (st_blocks × 512) of every directory and entry, links not followed, a file with
 * several links counted once per call, 0 for a path that is gone.
 */
import { linkSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts } from "./_fixture.ts";
import { diskBytes } from "./du.ts";

let dir: string;
beforeEach(() => {
  dir = tempDir("ariel-du-");
});
afterEach(() => removeDir(dir));

/** What `du -s` counts: st_blocks × 512 of `path` and all under it, each inode once, links not followed. */
function expected(path: string, seen = new Set<string>()): number {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  const id = `${st.dev}:${st.ino}`;
  if (seen.has(id)) return 0;
  seen.add(id);
  let total = st.blocks * 512;
  if (st.isDirectory()) for (const name of readdirSync(path)) total += expected(join(path, name), seen);
  return total;
}

const bytes = (path: string) => diskBytes(faultyPorts(), path);
const blocks = (path: string) => lstatSync(path).blocks * 512;

/** A small leg-like tree: files of a few sizes in nested directories, one empty directory. */
function tree(top: string): void {
  writeFile(join(top, "README.md"), "# api\n");
  writeFile(join(top, "src/main.ts"), "x".repeat(10_000));
  writeFile(join(top, "src/lib/util.ts"), "y".repeat(70_000));
  writeFile(join(top, ".git"), "gitdir: /elsewhere\n");
  mkdirSync(join(top, "empty"));
}

describe("diskBytes: what is counted", () => {
  it("files and directories, nested: the allocated bytes of each", async () => {
    const top = join(dir, "leg");
    tree(top);
    const total = expected(top);
    expect(total).toBeGreaterThan(80_000); // the two larger files alone
    expect(await bytes(top)).toBe(total);
  });

  it("a file with a second link in the tree: counted once", async () => {
    const top = join(dir, "leg");
    tree(top);
    const before = await bytes(top);
    linkSync(join(top, "src/lib/util.ts"), join(top, "util-copy.ts"));
    expect([await bytes(top), expected(top)]).toEqual([before, before]);
  });

  it("a link to a large file elsewhere: the link's own bytes, not the file's", async () => {
    const top = join(dir, "leg");
    tree(top);
    writeFile(join(dir, "big.bin"), "z".repeat(200_000));
    const before = await bytes(top);
    symlinkSync(join(dir, "big.bin"), join(top, "big.bin"));
    symlinkSync(join(dir), join(top, "parent"));
    expect(await bytes(top)).toBe(before + blocks(join(top, "big.bin")) + blocks(join(top, "parent")));
  });

  it("each call on its own: a file linked into two trees counts in both", async () => {
    const [a, b] = [join(dir, "a"), join(dir, "b")];
    tree(a);
    mkdirSync(b);
    linkSync(join(a, "src/lib/util.ts"), join(b, "util.ts"));
    expect([await bytes(a), await bytes(b), await bytes(a)]).toEqual([
      expected(a),
      blocks(b) + blocks(join(b, "util.ts")),
      expected(a),
    ]);
  });

  it("a directory too full to list here (600 files, walked by find): the same count", async () => {
    const top = join(dir, "leg");
    for (let i = 0; i < 600; i++) writeFile(join(top, "node_modules/pkg", `f${i}.js`), "m".repeat(i * 10));
    writeFile(join(top, "index.ts"), "i\n");
    expect(await bytes(top)).toBe(expected(top));
  });
});

/** Each makes one entry in `dir` and returns its path. */
const ENTRIES: Record<string, () => string> = {
  "a file": () => {
    writeFile(join(dir, "f"), "q".repeat(50_000));
    return join(dir, "f");
  },
  "a link to a directory": () => {
    tree(join(dir, "t"));
    symlinkSync(join(dir, "t"), join(dir, "l"));
    return join(dir, "l");
  },
  "an empty directory": () => {
    mkdirSync(join(dir, "e"));
    return join(dir, "e");
  },
};

describe("diskBytes: entries that are not a leg", () => {
  // An orphaned entry may be a file, a link or an empty directory: its own allocated bytes only.
  it.each(Object.keys(ENTRIES))("%s: its own allocated bytes", async (name) => {
    const path = (ENTRIES[name] as () => string)();
    expect(await bytes(path)).toBe(blocks(path));
  });

  it("a path that is gone by the time it is measured: 0", async () => {
    expect(await bytes(join(dir, "gone"))).toBe(0);
  });
});
