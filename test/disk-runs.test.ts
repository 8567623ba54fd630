/**
 * The disk guard with detached runs: `ariel-spawn --detach --min-free` refuses before anything is
 * written, and the monitor writes `disk.low` to a running run's history when the free space
 * falls under config minFreeBytes.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { records } from "./helpers/cli.ts";
import { cleanUp, NODE, runs, runsWorkspace, spawnD } from "./runs_helpers.ts";
import { errors } from "./worktree-fixtures.ts";

afterEach(cleanUp);

describe("disk guard and detached runs", () => {
  it("spawn --detach --min-free refuses with ERR_DISK_LOW (75), no run made", async () => {
    const root = runsWorkspace();
    const r = await spawnD(root, ["--min-free", "1024T", "--json", "--", NODE, "-e", "0"]);
    expect(r.code).toBe(75);
    expect(r.stdout).toBe("");
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_DISK_LOW",
      message: expect.stringMatching(/^spawn --detach: only /),
    });
    expect(existsSync(join(root, ".ariel/runs"))).toBe(false);
  });

  it("the monitor writes one disk.low event when free space falls under minFreeBytes", async () => {
    const root = runsWorkspace();
    const started = await spawnD(root, ["--json", "--", NODE, "-e", "setTimeout(() => {}, 8000)"], {
      env: { ARIEL_DISK_POLL_MS: "100" },
    });
    expect(started.code).toBe(0);
    const runId = records(started.stdout)[0]!.runId as string;
    // The floor rises above the free space while the run goes on.
    writeFileSync(join(root, "ariel.config.json"), JSON.stringify({ minFreeBytes: 1024 ** 5 }));
    const history = join(root, ".ariel/runs", `${runId}.ndjson`);
    const lows = () =>
      existsSync(history) ? records(readFileSync(history, "utf8")).filter((e) => e.event === "disk.low") : [];
    for (let i = 0; i < 100 && lows().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(lows()).toEqual([
      expect.objectContaining({
        type: "event",
        event: "disk.low",
        runId,
        source: null,
        minFreeBytes: 1024 ** 5,
        free: expect.any(Number),
        path: expect.stringContaining(root),
      }),
    ]);
    // Once, not every poll.
    await new Promise((r) => setTimeout(r, 500));
    expect(lows()).toHaveLength(1);
    expect((await runs(root, ["kill", runId])).code).toBe(0);
  });
});
