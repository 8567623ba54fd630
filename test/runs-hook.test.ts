/**
 * `--on-exit` hooks are bounded: `--on-exit-timeout` (default 60 s), then SIGTERM and, after
 * `--grace`, SIGKILL to the hook's process group; `run.finished` says what became of it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { hangingHookIsStopped, quickHookEnds, termProofHookIsKilled } from "./e2e/runs_hook_cases.ts";
import { cleanUp, readJson, runDir, runsWorkspace, spawnD, startRun } from "./runs_helpers.ts";

afterEach(cleanUp);

describe("--on-exit-timeout", () => {
  it(
    "a hook sleeping for a day is stopped after 2 s; run.finished is written and rm works",
    hangingHookIsStopped,
  );
  it("a hook that ignores SIGTERM is killed after --grace", termProofHookIsKilled);
  it("a hook that ends in time is left alone", quickHookEnds);

  it("the bound is recorded in run.json: 60 s by default", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--on-exit", "true", "--", "true"]);
    expect(rec.onExitTimeoutMs).toBe(60_000);
    expect(readJson(`${runDir(root, rec.runId as string)}/run.json`).onExitTimeoutMs).toBe(60_000);
    const plain = await startRun(root, ["--", "true"]);
    expect(plain).not.toHaveProperty("onExitTimeoutMs");
  });

  it.each([
    [["--on-exit-timeout", "2s", "--", "true"], "--on-exit-timeout needs --on-exit"],
    [["--on-exit", "true", "--on-exit-timeout", "soon", "--", "true"], "--on-exit-timeout"],
  ])("%j is a usage error (64), nothing started", async (args, message) => {
    const root = runsWorkspace();
    const r = await spawnD(root, args);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain(message);
  });
});
