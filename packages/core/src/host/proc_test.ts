import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isProcessAlive, processStartTime, selfIdentity } from "./proc.ts";

const linux = process.platform === "linux";

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

describe("processStartTime", () => {
  it.runIf(linux)("reads field 22 of /proc/<pid>/stat as digits", () => {
    expect(processStartTime(process.pid)).toMatch(/^\d+$/);
  });
  it("is null for a process that is gone", () => {
    expect(processStartTime(deadPid())).toBeNull();
  });
});

describe("isProcessAlive", () => {
  const me = selfIdentity();
  it.each([
    ["this process", () => me, true],
    ["a dead pid", () => ({ ...me, pid: deadPid() }), false],
    ["pid 0", () => ({ ...me, pid: 0 }), false],
    [
      "another host (cannot tell: alive)",
      () => ({ ...me, pid: deadPid(), host: `${me.host}-elsewhere` }),
      true,
    ],
    ["unknown start time, live pid", () => ({ ...me, processStart: null }), true],
  ])("%s → %s", (_n, id, expected) => {
    expect(isProcessAlive(id())).toBe(expected);
  });
  it.runIf(linux)("a live pid with another start time is a reused pid: dead", () => {
    expect(isProcessAlive({ ...me, processStart: "1" })).toBe(false);
  });
});
