import { describe, expect, it } from "vitest";
import { diskLowError, type FreeSpace } from "./guard.ts";

const GIB = 1024 ** 3;

function space(free: number): FreeSpace {
  return { path: "/w/.ariel/worktrees", free, size: 100 * GIB };
}

describe("diskLowError", () => {
  it("is ERR_DISK_LOW naming the free space, the floor and what reclaims it", () => {
    const err = diskLowError(space(1.5 * GIB), 5 * GIB, "add");
    expect(err?.toRecord()).toEqual({
      v: 1,
      type: "error",
      code: "ERR_DISK_LOW",
      message: "add: only 1.5 GiB free on /w/.ariel/worktrees, under the floor of 5 GiB",
      hint: "free space first: ariel-worktree du shows what tasks cost, ariel-worktree gc -n plans what to reclaim (1.5 GiB free; lower --min-free or config minFreeBytes to go on); nothing was changed",
      exit: 75,
      path: "/w/.ariel/worktrees",
      free: 1.5 * GIB,
      minFreeBytes: 5 * GIB,
    });
  });

  it("is an error one byte under the floor", () => {
    expect(diskLowError(space(GIB - 1), GIB, "add")?.code).toBe("ERR_DISK_LOW");
  });

  it("is an error for a floor of one byte and nothing free", () => {
    expect(diskLowError(space(0), 1, "add")?.code).toBe("ERR_DISK_LOW");
  });

  it.each([
    ["exactly at the floor", GIB, GIB],
    ["over the floor", 2 * GIB, GIB],
    ["with a floor of 0", 0, 0],
    ["with a negative floor", 0, -1],
  ])("is null %s", (_, free, floor) => {
    expect(diskLowError(space(free), floor, "add")).toBeNull();
  });
});
