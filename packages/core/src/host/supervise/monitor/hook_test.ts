/**
 * A run's `--on-exit` hook as a real process: in the root with the run's env and how it ended,
 * its output in on-exit.log, bounded (SIGTERM to its group past its time, SIGKILL once the leader
 * is gone or after the grace), a command that cannot start said, a run dir gone not stopping it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPaths } from "../../../runs/paths.ts";
import type { ExitRecord, RunRecord } from "../../../runs/record.ts";
import { processGone, removeDir, tempDir } from "../../_fixture.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import { runHook } from "./hook.ts";

const RUN = "20261204T120000Z-abc123";
let root: string;
const logged = captureMonitorLog();
beforeEach(() => {
  root = realpathSync(tempDir("ariel-onexit-"));
  mkdirSync(runPaths(root, RUN).dir, { recursive: true });
});
afterEach(() => {
  removeDir(root);
});

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ARIEL_RUN_ID: RUN };
const exit = { status: 3, state: "failed" } as ExitRecord;
const rec = (onExit: string[], over: Partial<RunRecord> = {}) =>
  ({ runId: RUN, onExit, graceMs: 200, ...over }) as RunRecord;
const log = () => readFileSync(runPaths(root, RUN).onExit, "utf8");

describe("the --on-exit hook", () => {
  it("runs in the root with the run's env, its exit status and state; output to on-exit.log", async () => {
    const fds = () => readdirSync("/proc/self/fd").length;
    const before = fds();
    const end = await runHook(
      root,
      rec(
        [
          "sh",
          "-c",
          'pwd; echo "$ARIEL_RUN_ID $ARIEL_EXIT_CODE $ARIEL_RUN_STATE [$ARIEL_RUN_NAME]" >&2; exit 4',
        ],
        {
          name: "build",
        },
      ),
      env,
      exit,
    );
    expect(end).toEqual({ code: 4, signal: null, timedOut: false });
    expect(log()).toBe(`${root}\n${RUN} 3 failed [build]\n`);
    expect(fds()).toBe(before); // the log's descriptor is closed again
  });

  it("takes its argv as it is: no shell reads it", async () => {
    await runHook(root, rec(["echo", "$ARIEL_EXIT_CODE", "a;b"]), env, exit);
    expect(log()).toBe("$ARIEL_EXIT_CODE a;b\n");
  });

  it("past its time: SIGTERM to its group, then SIGKILL to what it left once it exited", {
    timeout: 20_000,
  }, async () => {
    const pid = join(root, "bg.pid");
    const end = await runHook(
      root,
      rec(["sh", "-c", `trap '' TERM; sleep 600 & echo $! > '${pid}'; trap - TERM; wait`], {
        onExitTimeoutMs: 1500,
      }),
      env,
      exit,
    );
    expect(end).toEqual({ code: null, signal: "SIGTERM", timedOut: true });
    expect(log()).toBe("ariel: on-exit hook still running after 1500 ms: SIGTERM to its process group\n");
    const bg = Number(readFileSync(pid, "utf8"));
    expect(await processGone(bg)).toBe(true);
  });

  it("a hook that ignores SIGTERM gets SIGKILL after the grace", { timeout: 20_000 }, async () => {
    const end = await runHook(
      root,
      rec(["sh", "-c", "trap '' TERM; echo up; while :; do sleep 0.05; done"], {
        onExitTimeoutMs: 1500,
        graceMs: 300,
      }),
      env,
      exit,
    );
    expect(end).toEqual({ code: null, signal: "SIGKILL", timedOut: true });
    expect(log()).toBe(
      "up\nariel: on-exit hook still running after 1500 ms: SIGTERM to its process group\n" +
        "ariel: on-exit hook still running 300 ms after SIGTERM: SIGKILL to its process group\n",
    );
  });

  it("a command that cannot start: said in the log, no code", async () => {
    const end = await runHook(root, rec(["ariel-no-such-hook"]), env, exit);
    expect(end).toEqual({ code: null, signal: null, timedOut: false });
    expect(log()).toBe("ariel: on-exit hook: ENOENT: ariel-no-such-hook\n");
  });

  it("a run dir that is gone: said in monitor.log, and the hook still runs", async () => {
    removeDir(runPaths(root, RUN).dir);
    const marker = join(root, "ran");
    const end = await runHook(root, rec(["touch", marker]), env, exit);
    expect(end).toEqual({ code: 0, signal: null, timedOut: false });
    expect(existsSync(marker)).toBe(true);
    expect(logged.join("")).toMatch(new RegExp(`run ${RUN}: on-exit\\.log failed \\[ENOENT\\]`));
  });
});
