import { describe, expect, it } from "vitest";
import { createLimiter, mapLimit } from "./limit.ts";

describe("createLimiter", () => {
  it("never runs more than n at once, and runs them all in order of arrival", async () => {
    const limit = createLimiter(2);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const job = (i: number) => async () => {
      started.push(i);
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 2));
      active--;
      return i * 10;
    };
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => limit(job(i))));
    expect(results).toEqual([0, 10, 20, 30, 40]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it("passes rejections through and keeps going", async () => {
    const limit = createLimiter(1);
    const a = limit(() => Promise.reject(new Error("boom")));
    const b = limit(() => Promise.resolve("ok"));
    await expect(a).rejects.toThrow("boom");
    await expect(b).resolves.toBe("ok");
  });

  it("rejects a bad n", () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
    expect(() => createLimiter(1.5)).toThrow(new RangeError("concurrency must be an integer >= 1, got 1.5"));
  });

  it("mapLimit keeps the order of the input", async () => {
    expect(await mapLimit([3, 1, 2], 2, async (x) => x * 2)).toEqual([6, 2, 4]);
  });
});
