import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processAlive } from "./_alive.ts";

describe("processAlive", () => {
  it("a live process is alive; one that has ended, and no pid at all, are not", () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(process.ppid)).toBe(true);
    const ended = spawnSync(process.execPath, ["-e", "0"]).pid;
    expect(processAlive(ended)).toBe(false);
    expect(processAlive(0)).toBe(false);
    expect(processAlive(-1)).toBe(false);
  });
});
