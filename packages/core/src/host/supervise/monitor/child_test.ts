/**
 * A run's child as the monitor starts it (child.ts), served in this process: piped (its own
 * process group, its argv never read by a shell, stdin only for an interactive run, stdout and
 * stderr in the run's files, its env), and a command that cannot start (not found 127, not
 * executable 126, its working directory missing 125): said in its stderr file, the run recorded
 * and ended without a process, a run started by `start` answered only once it is ended.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { tempDir } from "../../_fixture.ts";
import { createRun } from "../../runs/store.ts";
import { connectAndRequest } from "../client.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import {
  CHILD_PATH,
  ended,
  eventNames,
  json,
  type LiveMonitor,
  newRunId,
  pinned,
  plannedRun,
  runToEnd as runToEndIn,
  startRuns,
  until,
  useServedMonitor,
} from "./_monitor_fixture.ts";

let l: LiveMonitor;
const logged = captureMonitorLog();
useServedMonitor(
  () => tempDir("ariel-child-"),
  (m) => {
    l = m;
  },
);

const out = (runId: string, stream: "stdout" | "stderr" = "stdout") =>
  readFileSync(runPaths(l.root, runId)[stream], "utf8");

/** Start one run of `over`, wait for its end; its id and result. */
const runToEnd = (over: Partial<PlannedRun>) => runToEndIn(l, over);

describe("spawnChild: a piped child", () => {
  it("its argv as it is (no shell), its env, its output in the run's files", async () => {
    const { runId } = await runToEnd({
      argv: ["sh", "-c", 'echo "$ARIEL_RUN_ID" "$1"; echo e >&2', "x", "$HOME;"],
    });
    expect([out(runId), out(runId, "stderr")]).toEqual([`${runId} $HOME;\n`, "e\n"]);
  });

  it("a process group of its own", async () => {
    const runId = newRunId();
    const [result] = await startRuns(l, [plannedRun(l, runId, { argv: ["sleep", "5"] })]);
    const pid = (result as { child: { pid: number } }).child.pid;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    expect(pgrp).toBe(pid);
  });

  it("not interactive: stdin is nothing (read at once to its end)", async () => {
    const { runId } = await runToEnd({ argv: ["sh", "-c", "cat; echo done"] });
    expect(out(runId)).toBe("done\n");
  });

  it("interactive: stdin is a pipe, open until the client ends it", async () => {
    const runId = newRunId();
    await startRuns(l, [plannedRun(l, runId, { argv: ["sh", "-c", "cat; echo done"], interactive: true })]);
    expect(l.m.active.get(runId)?.child?.stdin === null).toBe(false);
    const { sock } = await connectAndRequest(l.root, l.hash, { v: 1, op: "input", runId, data: "" });
    sock.destroy();
    expect(await ended(l, runId)).toBe(true);
    expect(out(runId)).toBe("done\n");
  });
});

describe("startFailed: a command that cannot start", () => {
  it("not found: 127, said in its stderr file, run.json and exit.json written, no process event", async () => {
    const { runId, result } = await runToEnd({ argv: ["ariel-no-such-command", "a"] });
    const message = "command not found: ariel-no-such-command";
    expect(result).toEqual({ runId, ok: false, status: 127, code: "ERR_COMMAND_NOT_FOUND", message });
    expect([out(runId), out(runId, "stderr")]).toEqual(["", `ariel: ${message}\n`]);
    expect(eventNames(l.root, runId)).toEqual(["run.started", "run.finished"]);
    const rec = json(runPaths(l.root, runId).record);
    expect([rec.monitor, rec.child]).toEqual([l.m.me, null]);
    expect(pinned(json(runPaths(l.root, runId).exit))).toEqual({
      v: 1,
      type: "exit",
      runId,
      code: null,
      signal: null,
      status: 127,
      endedAt: "<time>",
      state: "failed",
      reason: "spawn",
    });
  });

  it("not executable: 126", async () => {
    const file = join(l.root, "script");
    writeFileSync(file, "#!/bin/sh\n");
    chmodSync(file, 0o644);
    const { runId, result } = await runToEnd({ argv: [file] });
    expect(result).toEqual({
      runId,
      ok: false,
      status: 126,
      code: "ERR_NOT_EXECUTABLE",
      message: `command not executable: ${file}`,
    });
    expect(json(runPaths(l.root, runId).exit).status).toBe(126);
  });

  it.each([
    ["missing", (dir: string) => dir],
    [
      "a file",
      (dir: string) => {
        writeFileSync(dir, "");
        return dir;
      },
    ],
  ])("its working directory %s: 125, ERR_SPAWN", async (_name, make) => {
    const cwd = make(join(l.root, "wd"));
    const { runId, result } = await runToEnd({ argv: ["true"], cwd });
    const message = `working directory missing: ${cwd}`;
    expect(result).toEqual({ runId, ok: false, status: 125, code: "ERR_SPAWN", message });
    expect(out(runId, "stderr")).toBe(`ariel: ${message}\n`);
    expect(json(runPaths(l.root, runId).exit)).toMatchObject({ status: 125, reason: "spawn" });
  });
});

describe("startFailed: its answer, and a run dir gone", () => {
  it("a run started by `start` (its run.json the client's): answered once it is ended", async () => {
    const runId = newRunId();
    mkdirSync(runPaths(l.root, runId).dir, { recursive: true });
    await createRun(l.root, plannedRun(l, runId, { argv: ["ariel-no-such-command"] }));
    const { sock, reply } = await connectAndRequest(l.root, l.hash, {
      v: 1,
      op: "start",
      runs: [{ runId, env: { PATH: CHILD_PATH } }],
    });
    sock.destroy();
    expect(json(runPaths(l.root, runId).exit).status).toBe(127); // before the reply
    expect(reply).toEqual({
      v: 1,
      ok: true,
      pid: process.pid,
      results: [
        {
          runId,
          ok: false,
          status: 127,
          code: "ERR_COMMAND_NOT_FOUND",
          message: "command not found: ariel-no-such-command",
        },
      ],
    });
    expect(json(runPaths(l.root, runId).record).monitor).toBe(null); // not taken over: never started
    expect(await until(() => l.m.active.size === 0)).toBe(true);
  });

  it("a run dir that goes before its end: said once in monitor.log (step end, its code), not supervised any more", async () => {
    const runId = newRunId();
    const [result] = await startRuns(l, [plannedRun(l, runId, { argv: ["sleep", "5"] })]);
    rmSync(runPaths(l.root, runId).dir, { recursive: true, force: true });
    process.kill(-(result as { child: { pid: number } }).child.pid, "SIGKILL");
    expect(await ended(l, runId)).toBe(true);
    const lock = `${runPaths(l.root, runId).lock}`;
    expect(logged.map((line) => line.replace(/^\S+ monitor \d+: /, ""))).toEqual([
      `run ${runId}: end failed [ENOENT] (ENOENT: no such file or directory, open '${lock}')\n`,
    ]);
  });
});
