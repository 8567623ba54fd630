import { describe, expect, it } from "vitest";
import { runPool } from "./pool.ts";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("runPool", () => {
  it.each([
    [5, 1, 1],
    [5, 2, 2],
    [3, 8, 3],
  ])("%i items with %i jobs run at most %i at once, in order, each once", async (count, jobs, peak) => {
    let live = 0;
    let max = 0;
    const started: number[] = [];
    await runPool(
      count,
      jobs,
      async (i) => {
        started.push(i);
        max = Math.max(max, ++live);
        await tick();
        live--;
      },
      () => false,
    );
    expect(started).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(max).toBe(peak);
  });

  it("starts nothing new once shouldStop turns true, and waits for the running ones", async () => {
    let stop = false;
    const done: number[] = [];
    await runPool(
      6,
      2,
      async (i) => {
        if (i === 1) stop = true;
        await tick();
        done.push(i);
      },
      () => stop,
    );
    expect(done.sort()).toEqual([0, 1]);
  });
});
