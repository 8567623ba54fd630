import { mkdtempSync, rmSync, statfsSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isArielError } from "../errors.ts";
import { checkMinFree, freeSpace } from "./free_space.ts";

const dir = mkdtempSync(join(tmpdir(), "ariel-guard-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fs = statfsSync(dir);
const [free, size] = [fs.bavail * fs.bsize, fs.blocks * fs.bsize];

/** What checkMinFree did: "ok", or the error's code and context. */
async function outcome(floor: number | undefined): Promise<unknown> {
  try {
    await checkMinFree(join(dir, "not/yet/there"), floor, "add");
    return "ok";
  } catch (e) {
    if (!isArielError(e)) throw e;
    return { code: e.code, exit: e.exit, minFreeBytes: e.context.minFreeBytes, path: e.context.path };
  }
}

describe("checkMinFree (the disk floor on the real filesystem)", () => {
  it("measures the nearest existing parent: the free space and size statfs reports", async () => {
    const s = await freeSpace(join(dir, "not/yet/there"));
    expect(s.path).toBe(dir);
    // Free space moves with other work on the machine: within 64 MiB of the statfs above.
    expect(Math.abs(s.free - free)).toBeLessThan(64 * 1024 ** 2);
    expect(s.size).toBe(size);
  });

  const between = Math.round((free + size) / 2);
  it.each([
    ["no floor", undefined, "ok"],
    ["a zero floor", 0, "ok"],
    ["a negative floor", -1, "ok"],
    ["a floor under the free space", 1024, "ok"],
    [
      "a floor between the free space and the disk's size",
      between,
      { code: "ERR_DISK_LOW", exit: 75, minFreeBytes: between, path: dir },
    ],
    [
      "a floor over the disk's size",
      size * 2,
      { code: "ERR_DISK_LOW", exit: 75, minFreeBytes: size * 2, path: dir },
    ],
  ])("%s", async (_n, floor, want) => {
    expect(size - free).toBeGreaterThan(128 * 1024 ** 2); // room for a floor clear of both
    expect(await outcome(floor)).toEqual(want);
  });
});

describe("freeSpace walks up to what exists", () => {
  it("a path under a regular file (ENOTDIR) is measured at the file", async () => {
    writeFileSync(join(dir, "file"), "x");
    expect((await freeSpace(join(dir, "file/below"))).path).toBe(join(dir, "file"));
  });

  it("a missing top-level directory is measured at /", async () => {
    expect((await freeSpace("/ariel-no-such-dir-here/a/b")).path).toBe("/");
  });

  it("any other error (a symlink loop: ELOOP) is thrown, not walked past", async () => {
    symlinkSync("loop", join(dir, "loop"));
    await expect(freeSpace(join(dir, "loop/x"))).rejects.toMatchObject({ code: "ELOOP" });
  });

  it("no floor never looks at the filesystem: a path that cannot be measured is no error", async () => {
    const loop = join(dir, "loop2");
    symlinkSync("loop2", loop);
    for (const floor of [undefined, 0, -1])
      await expect(checkMinFree(join(loop, "x"), floor, "add")).resolves.toBeUndefined();
    await expect(checkMinFree(join(loop, "x"), 1, "add")).rejects.toMatchObject({ code: "ELOOP" });
  });
});
