/**
 * The hand-over between `ariel-spawn --detach`, the monitor and readers, with real processes:
 * the order of a run's first events, what a reader sees while the monitor takes a run over, and
 * `wait` on a run whose monitor died after `exit.json` but before the rest of its record.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { records } from "./helpers/cli.ts";
import {
  alive,
  cleanUp,
  finishedHistory,
  readJson,
  runDir,
  runs,
  runsWorkspace,
  startCli,
  startRun,
  until,
} from "./runs_helpers.ts";

afterEach(cleanUp);

/** This process's start time (field 22 of /proc/self/stat), as lock holders record it. */
function selfStart(): string {
  const t = readFileSync(`/proc/${process.pid}/stat`, "utf8");
  return t.slice(t.lastIndexOf(")") + 2).split(" ")[19]!;
}

describe("spawn --detach: the monitor takes a run over", () => {
  it("a child that exits at once: its history says process.started before process.exited", async () => {
    const root = runsWorkspace();
    for (const argv of [["true"], ["false"], ["sh", "-c", "exit 3"]]) {
      const rec = await startRun(root, ["--", ...argv]);
      const events = (await finishedHistory(root, rec.runId as string)).map((e) => e.event);
      expect(events).toEqual(["run.started", "process.started", "process.exited", "run.finished"]);
    }
  });

  it("while the monitor has not taken a run over, no reader sees it lost; once spawn returns it is running", async () => {
    const root = runsWorkspace();
    const first = await startRun(root, ["--", "sleep", "30"]);
    const monitor = (first.monitor as { pid: number }).pid;
    process.kill(monitor, "SIGSTOP"); // the monitor gets the request but cannot act on it yet
    let cli: ReturnType<typeof startCli>;
    try {
      cli = startCli("spawn", ["-C", root, "--detach", "--json", "--", "sleep", "30"]);
      // the CLI made the run's directory and wrote run.started: it now waits for the monitor
      const runsDir = join(root, ".ariel/runs");
      await until(() => readdirIds(runsDir).length === 2);
      const pending = readdirIds(runsDir).find((id) => id !== first.runId)!;
      await until(() => existsSync(join(runsDir, `${pending}.ndjson`)));
      const list = await runs(root, ["list", "--json", "--all"]);
      expect(list.code).toBe(0);
      expect(records(list.stdout).map((r) => [r.runId, r.state])).toEqual([[first.runId, "running"]]);
      const one = await runs(root, ["list", "--json", "--all", "--state", "lost"]);
      expect(records(one.stdout)).toEqual([]);
    } finally {
      process.kill(monitor, "SIGCONT");
    }
    expect(await cli.done).toBe(0);
    const [rec] = records(cli.io.out);
    expect(rec).toMatchObject({ state: "running", monitor: { pid: monitor } });
    const after = records((await runs(root, ["list", "--json"])).stdout);
    expect(after.map((r) => [r.runId, r.state])).toEqual([
      [rec!.runId, "running"],
      [first.runId, "running"],
    ]);
  });
});

describe("wait when the monitor dies between exit.json and the rest of run.json", () => {
  it("finishes with the status exit.json records instead of waiting for endedAt forever", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--", "sh", "-c", "sleep 0.5; exit 3"]);
    const runId = rec.runId as string;
    const monitor = (rec.monitor as { pid: number }).pid;
    // Hold run.json's record lock as a live process would: the monitor writes exit.json, then
    // waits for this lock to write endedAt; it is SIGKILLed while it waits.
    const lock = join(runDir(root, runId), "run.json.lock");
    writeFileSync(
      lock,
      JSON.stringify({
        pid: process.pid,
        processStart: selfStart(),
        host: hostname(),
        nonce: "test",
        acquiredAt: new Date().toISOString(),
      }),
    );
    await until(() => existsSync(join(runDir(root, runId), "exit.json")));
    process.kill(monitor, "SIGKILL");
    await until(() => !alive(monitor));
    rmSync(lock);
    const record = readJson(join(runDir(root, runId), "run.json"));
    expect([record.endedAt, record.exit]).toEqual([null, null]);
    expect(readJson(join(runDir(root, runId), "exit.json"))).toMatchObject({ status: 3, state: "failed" });
    const w = await runs(root, ["wait", runId, "--timeout", "20s", "--json"]);
    expect(w.code).toBe(3);
    expect(records(w.stdout).map((r) => [r.runId, r.state])).toEqual([[runId, "failed"]]);
  });
});

/** The run directories under `dir` (not the history files beside them). */
function readdirIds(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => !n.endsWith(".ndjson")) : [];
}
