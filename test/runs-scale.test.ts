import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { records } from "./helpers/cli.ts";
import { cleanUp, runDir, runs, runsWorkspace, startCli, startRun, until } from "./runs_helpers.ts";

afterEach(cleanUp);

const sh = (script: string) => ["--", "sh", "-c", script];

/** Start `ariel-runs attach ...` and collect its output. */
const attach = (root: string, args: readonly string[]) => startCli("runs", ["attach", "-C", root, ...args]);

describe("ariel-runs attach (case 9)", () => {
  it("late: replays from the start, goes live with no gap and no duplicate, forwards stdin to an --interactive run", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, [
      "--interactive",
      ...sh('echo start; read line; echo "got $line"; echo end'),
    ]);
    const runId = rec.runId as string;
    await until(() => readFileSync(join(runDir(root, runId), "stdout"), "utf8") === "start\n");
    const a = attach(root, [runId, "--stream", "stdout"]);
    await until(() => a.io.out === "start\n");
    a.p.stdin?.write("hello\n");
    expect(await a.done).toBe(0);
    expect(a.io.err).toBe("");
    expect(a.io.out).toBe("start\ngot hello\nend\n");
    const w = await runs(root, ["wait", runId]);
    expect(w.code).toBe(0);
  });

  it("--from SEQ replays from that sequence; Ctrl-C detaches and the run goes on", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, sh("echo one; echo two; sleep 30"));
    const runId = rec.runId as string;
    await until(() => readFileSync(join(runDir(root, runId), "stdout"), "utf8") === "one\ntwo\n");
    const a = attach(root, [runId, "--from", "4", "--json"]);
    await until(() => a.io.out.includes("two"));
    a.p.kill("SIGINT");
    expect(await a.done).toBe(0);
    expect(records(a.io.out).map((x) => [x.seq, x.stream, x.data])).toEqual([[4, "stdout", "two\n"]]);
    const list = records((await runs(root, ["list", "--json"])).stdout);
    expect(list.map((x) => [x.runId, x.state])).toEqual([[runId, "running"]]);
  });
});

describe("many runs (case 13)", () => {
  it("50 detached runs started by 50 separate calls: all tracked by one monitor, none lost, list correct", async () => {
    const root = runsWorkspace();
    const started: Record<string, unknown>[] = [];
    for (let batch = 0; batch < 5; batch++) {
      started.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            startRun(root, ["--name", `r${batch * 10 + i}`, ...sh("while [ ! -f go ]; do sleep 0.1; done")]),
          ),
        )),
      );
    }
    const ids = started.map((r) => r.runId as string);
    expect(new Set(ids).size).toBe(50);
    expect(new Set(started.map((r) => (r.monitor as { pid: number }).pid)).size).toBe(1);
    const list = records((await runs(root, ["list", "--json"])).stdout);
    expect(list.map((x) => x.runId).sort()).toEqual([...ids].sort());
    expect(list.every((x) => x.state === "running")).toBe(true);
    writeFileSync(join(root, "go"), "");
    const w = await runs(root, ["wait", ...ids], { timeoutMs: 60_000 });
    expect(w.code).toBe(0);
    const all = records((await runs(root, ["list", "--all", "--json"])).stdout);
    expect(all.filter((x) => x.state === "exited")).toHaveLength(50);
  });
});
