import { mkdtempSync, rmSync, statfsSync } from "node:fs";
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
