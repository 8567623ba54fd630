import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRun } from "@ariel/core/host";
import { afterEach, describe, expect, it } from "vitest";
import type { StreamResult } from "./_subscriber.ts";
import { followShared } from "./run_hub.ts";

const RUN = "20261202T110000Z-aaaaaa";
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A workspace whose foreground run (owned by this process, so live) has a history to append to. */
function liveHistory(): {
  ws: { root: string; hash: string };
  append: (event: string, extra?: object) => void;
} {
  const root = mkdtempSync(join(tmpdir(), "ariel-run-hub-"));
  dirs.push(root);
  mkdirSync(join(root, ".ariel/runs"), { recursive: true });
  const ws = { root, hash: "ae89cb2b620ea8fc" };
  const append = (event: string, extra: object = {}) =>
    appendFileSync(
      join(root, ".ariel/runs", `${RUN}.ndjson`),
      `${JSON.stringify({ v: 1, type: "event", event, runId: RUN, ts: new Date().toISOString(), ...extra })}\n`,
    );
  append("run.started", { source: null, argv: ["x"], targets: ["."], mode: "shared", pid: process.pid });
  append("process.started", { source: ".", pid: process.pid, argv: ["x"] });
  return { ws, append };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("followShared", () => {
  it("a client that falls more than the backlog behind ends with overflow and its cursor, never ended", async () => {
    const { ws, append } = liveHistory();
    const run = (await loadRun(ws, RUN))!;
    expect(run.view.state).toBe("running");
    const result: StreamResult = { end: "stopped", cursor: null };
    const it = followShared(
      ws,
      run,
      { seq: 0, stdout: 0, stderr: 0 },
      new AbortController().signal,
      result,
      2,
    );
    const first = await it.next(); // caught up alone: the run's two events; the hub starts after
    expect((first.value as { cursor: string }[]).map((c) => c.cursor)).toEqual(["1", "2"]);
    const next = it.next(); // now following the shared reader
    // A slow client: it takes nothing while the reader queues batch after batch (one per poll).
    for (let i = 0; i < 8; i++) {
      append("output", { source: ".", stream: "stdout", line: `line ${i}` });
      await sleep(250);
    }
    const got: string[] = [];
    for (let r = await next; !r.done; r = await it.next()) got.push(...r.value.map((c) => c.cursor));
    expect(result.end).toBe("overflow");
    // The batches it was sent before it fell behind, and the cursor of the last one to resume from.
    expect(got.length).toBeLessThan(8);
    expect(result.cursor).toBe(got.at(-1) ?? "2");
  });

  it("a client that keeps up ends `ended` after the run's closing events", async () => {
    const { ws, append } = liveHistory();
    const run = (await loadRun(ws, RUN))!;
    const result: StreamResult = { end: "stopped", cursor: null };
    const got: string[] = [];
    const reading = (async () => {
      const signal = new AbortController().signal;
      for await (const b of followShared(ws, run, { seq: 0, stdout: 0, stderr: 0 }, signal, result, 2)) {
        got.push(...b.map((c) => c.event.event));
      }
    })();
    await sleep(300);
    append("process.exited", { source: ".", pid: process.pid, code: 0, signal: null, status: 0 });
    append("run.finished", {
      source: null,
      summary: { targets: 1, succeeded: 1, failed: 0, skipped: 0, exit: 0 },
    });
    await reading;
    expect([result.end, got]).toEqual(["ended", ["run.started", "run.state", "run.exited", "run.state"]]);
  });
});
