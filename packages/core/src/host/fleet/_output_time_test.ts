import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPaths } from "../../runs/paths.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { outputTime } from "./_output_time.ts";

const ID = "20261202T110943Z-abc123";
let root: string;

beforeEach(() => {
  root = tempDir("ariel-fleet-output-time-");
  mkdirSync(runPaths(root, ID).dir, { recursive: true });
});
afterEach(() => removeDir(root));

/** `outputTime` and the clock's bounds around it. */
function timed(stream: "stdout" | "stderr"): { at: number; before: number; after: number } {
  const before = Date.now();
  const at = Date.parse(outputTime(root, ID, stream));
  return { at, before, after: Date.now() };
}

describe("outputTime", () => {
  it("the time the stream file last grew", () => {
    const p = runPaths(root, ID);
    writeFileSync(p.stdout, "a\n");
    utimesSync(p.stdout, new Date("2026-12-02T11:09:44.000Z"), new Date("2026-12-02T11:09:44.000Z"));
    writeFileSync(p.stderr, "b\n");
    utimesSync(p.stderr, new Date("2020-01-01T00:00:00.000Z"), new Date("2020-01-01T00:00:00.000Z"));
    expect(outputTime(root, ID, "stdout")).toBe("2026-12-02T11:09:44.000Z");
    expect(outputTime(root, ID, "stderr")).toBe("2020-01-01T00:00:00.000Z");
  });

  it("never later than now: a file dated in the future reads as now", () => {
    const p = runPaths(root, ID);
    writeFileSync(p.stdout, "a\n");
    utimesSync(p.stdout, new Date("2099-01-01T00:00:00Z"), new Date("2099-01-01T00:00:00Z"));
    const t = timed("stdout");
    expect(t.at).toBeGreaterThanOrEqual(t.before);
    expect(t.at).toBeLessThanOrEqual(t.after);
  });

  it("no such file, or not a file: now", () => {
    const missing = timed("stdout");
    expect(missing.at).toBeGreaterThanOrEqual(missing.before);
    expect(missing.at).toBeLessThanOrEqual(missing.after);
    const p = runPaths(root, ID);
    mkdirSync(p.stderr);
    utimesSync(p.stderr, new Date("2020-01-01T00:00:00Z"), new Date("2020-01-01T00:00:00Z"));
    const dir = timed("stderr");
    expect(dir.at).toBeGreaterThanOrEqual(dir.before);
    expect(dir.at).toBeLessThanOrEqual(dir.after);
  });
});
