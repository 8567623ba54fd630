/**
 * The disk guard with detached runs: `ariel-spawn --detach --min-free` refuses before anything is
 * written, and the monitor writes `disk.low` to a running run's history when the free space
 * falls under config minFreeBytes. And `ariel-worktree gc` leaves a run alone while its monitor
 * still settles it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { records } from "./helpers/cli.ts";
import {
  alive,
  cleanUp,
  countedHooks,
  finishedHistory,
  NODE,
  passes,
  readJson,
  runDir,
  runs,
  runsWorkspace,
  spawnD,
  until,
} from "./runs_helpers.ts";
import { errors, wt } from "./worktree-fixtures.ts";

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
    // Each completed disk check is a line in monitor.log: the test counts checks, not milliseconds.
    const started = await spawnD(root, ["--json", "--", NODE, "-e", "setTimeout(() => {}, 30000)"], {
      env: { ARIEL_DISK_POLL_MS: "100", ...countedHooks(root, "monitor:disk-checked") },
    });
    expect(started.code).toBe(0);
    const runId = records(started.stdout)[0]!.runId as string;
    // The floor rises above the free space while the run goes on.
    writeFileSync(join(root, "ariel.config.json"), JSON.stringify({ minFreeBytes: 1024 ** 5 }));
    const history = join(root, ".ariel/runs", `${runId}.ndjson`);
    const lows = () =>
      existsSync(history) ? records(readFileSync(history, "utf8")).filter((e) => e.event === "disk.low") : [];
    await until(() => lows().length > 0);
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
    // Once, not every poll: at least three more whole checks under the floor (four lines: the
    // first may be the check that wrote the event), and still one event.
    const checks = () => passes(root, "monitor:disk-checked");
    const seen = checks();
    await until(() => checks() >= seen + 4);
    expect(lows()).toHaveLength(1);
    expect((await runs(root, ["kill", runId])).code).toBe(0);
  });

  it("gc skips a run its monitor is still settling (exit.json written), then drops it once settled", async () => {
    const root = runsWorkspace();
    const release = join(root, ".ariel-test-release");
    const started = await spawnD(
      root,
      ["--json", "--isolate", "--task", "settle-t", "--", "sh", "-c", "echo work > new.txt"],
      {
        env: {
          ARIEL_TEST_HOOKS: "1",
          ARIEL_TEST_PAUSE_AT: "monitor:before-settle",
          ARIEL_TEST_RELEASE_FILE: release,
        },
      },
    );
    expect(started.code, started.stderr).toBe(0);
    const rec = records(started.stdout)[0]!;
    const runId = rec.runId as string;
    const monitor = (rec.monitor as { pid: number }).pid;
    await until(() =>
      readFileSync(join(root, ".ariel/monitor.log"), "utf8").includes(
        `ariel-test-paused monitor:before-settle ${monitor}`,
      ),
    );
    const dir = runDir(root, runId);
    expect(readJson(join(dir, "exit.json")).state).toBe("exited");
    expect(readJson(join(dir, "run.json")).worktreeOutcome).toBe(null);
    const skip = {
      v: 1,
      type: "gc.skip",
      run: runId,
      reason: "settling",
      detail: "its monitor is still settling it",
    };
    // The plan: nothing to do, the run skipped.
    const plan = await wt(root, ["gc", "-n", "--detailed-exitcode", "--older-than", "0", "--json"]);
    expect([plan.code, records(plan.stdout)]).toEqual([0, [skip]]);
    const applied = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect([applied.code, records(applied.stdout)]).toEqual([0, [skip]]);
    const text = await wt(root, ["gc", "--older-than", "0"]);
    expect([text.code, text.stdout]).toEqual([0, ""]);
    expect(text.stderr).toContain(`skip ${runId}: settling (its monitor is still settling it)`);
    expect(existsSync(join(dir, "run.json"))).toBe(true);
    expect(existsSync(join(root, ".ariel/runs", `${runId}.ndjson`))).toBe(true);
    expect(alive(monitor)).toBe(true);

    writeFileSync(release, "");
    const w = await runs(root, ["wait", runId, "--json"]);
    expect(w.code, w.stderr).toBe(0);
    expect(readJson(join(dir, "run.json")).worktreeOutcome?.outcome).toBe("kept");
    await finishedHistory(root, runId);
    const later = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect(later.code, later.stderr).toBe(0);
    expect(records(later.stdout)).toEqual([
      {
        v: 1,
        type: "gc",
        action: "gc.run.drop",
        run: runId,
        paths: [dir, join(root, ".ariel/runs", `${runId}.ndjson`)],
        bytes: expect.any(Number),
        outcome: "done",
      },
    ]);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(join(root, ".ariel/runs", `${runId}.ndjson`))).toBe(false);
    // The kept worktree's work is untouched.
    expect(readFileSync(join(rec.worktree as string, "new.txt"), "utf8")).toBe("work\n");
  });
});
