import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// Past 100 directory entries read, a discovery is big enough that V8's baseline JIT pays
// (host/jit.ts): the switch is made once the listings pass that count, never before.
const jit = vi.hoisted(() => ({ calls: 0 }));
vi.mock("@ariel/core/host", async (original) => ({
  ...(await original<typeof import("@ariel/core/host")>()),
  preferBaselineJit: () => void jit.calls++,
}));

let ws: string | undefined;
afterEach(() => {
  if (ws) removeDir(ws);
  jit.calls = 0;
});

describe("ariel-discover switches to the baseline JIT only for a big workspace", () => {
  it.each([
    ["100 entries: not big", 100, 0],
    ["101 entries: big", 101, 1],
    ["150 entries in one listing: one switch", 150, 1],
  ])("%s", async (_name, entries, calls) => {
    ws = tempDir("ariel-discover-jit-");
    for (let i = 0; i < entries; i++) mkdirSync(join(ws, `d${i}`));
    const r = await runInProcess(command, ["-C", ws], { cwd: ws });
    expect([r.code, r.stdout, jit.calls]).toEqual([0, "", calls]);
  });
});
