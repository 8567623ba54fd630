/**
 * A run's `--notify` command as a real process: run in the workspace root with the run's env and
 * what happened (waiting, or the exit and final state), its output appended to the run's
 * notify.log, killed with its group past its time, a command that cannot start said in the log.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runPaths } from "../../runs/paths.ts";
import type { RunRecord } from "../../runs/record.ts";
import { processGone, removeDir, tempDir } from "../_fixture.ts";
import { runNotify } from "./notify.ts";

let root: string;
beforeEach(() => {
  root = realpathSync(tempDir("ariel-notify-"));
  mkdirSync(runPaths(root, "r1").dir, { recursive: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
  removeDir(root);
});

const rec = (notify: string[] | null, name?: string) =>
  ({ runId: "r1", notify, ...(name ? { name } : {}) }) as RunRecord;
const log = () => readFileSync(runPaths(root, "r1").notify, "utf8");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ARIEL_RUN_ID: "r1" };
const show = [
  "sh",
  "-c",
  'pwd; echo "$ARIEL_RUN_ID $ARIEL_NOTIFY [$ARIEL_ACTIVITY] [$ARIEL_EXIT_CODE] [$ARIEL_RUN_STATE] [$ARIEL_RUN_NAME]"',
];

describe("runNotify", () => {
  it("waiting: in the root, with the run's env, ARIEL_NOTIFY and ARIEL_ACTIVITY; output to notify.log", async () => {
    const fds = () => readdirSync("/proc/self/fd").length;
    const before = fds();
    await runNotify(root, rec(show), env, { event: "waiting" });
    expect(fds()).toBe(before); // the log's descriptor is closed again
    expect(log()).toBe(`${root}\nr1 waiting [waiting] [] [] []\n`);
  });

  it("exit: the exit code and the final state; the run's name when it has one; appended", async () => {
    await runNotify(root, rec(show), env, { event: "waiting" });
    await runNotify(root, rec(show, "build"), env, { event: "exit", status: 3, state: "failed" });
    expect(log().split("\n").slice(2)).toEqual([root, "r1 exit [] [3] [failed] [build]", ""]);
  });

  it("no --notify: nothing runs, no log is made", async () => {
    await runNotify(root, rec(null), env, { event: "waiting" });
    await runNotify(root, rec([]), env, { event: "waiting" });
    expect(existsSync(runPaths(root, "r1").notify)).toBe(false);
  });

  it("takes its argv as it is: no shell reads it", async () => {
    await runNotify(root, rec(["echo", "$HOME", "a;b"]), env, { event: "waiting" });
    expect(log()).toBe("$HOME a;b\n");
  });

  it("a command that cannot start is said in the log; the call still resolves", async () => {
    await runNotify(root, rec(["ariel-no-such-notify"]), env, { event: "waiting" });
    expect(log()).toBe("ariel: --notify: ENOENT: ariel-no-such-notify\n");
  });

  it("past its time its process group is killed and the log says so", { timeout: 20_000 }, async () => {
    vi.stubEnv("ARIEL_NOTIFY_TIMEOUT_MS", "1500");
    const pid = join(root, "bg.pid");
    await runNotify(root, rec(["sh", "-c", `sleep 600 & echo $! > '${pid}'; echo started; wait`]), env, {
      event: "waiting",
    });
    expect(log()).toBe("started\nariel: --notify sh killed after 1500 ms\n");
    const bg = Number(readFileSync(pid, "utf8"));
    expect(await processGone(bg)).toBe(true);
  });

  it("a run dir that is gone: the command still runs, its output dropped", async () => {
    const marker = join(root, "ran");
    removeDir(runPaths(root, "r1").dir);
    await runNotify(root, rec(["touch", marker]), env, { event: "waiting" });
    expect(existsSync(marker)).toBe(true);
    expect(existsSync(runPaths(root, "r1").notify)).toBe(false);
  });
});
