import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readAllHistory, readHistory } from "./history.ts";

const W = "ae89cb2b620ea8fc";
const R = "20261202T110943Z-k3x9a2";
const line = (event: string, f: Record<string, unknown> = {}) =>
  `${JSON.stringify({ v: 1, type: "event", event, runId: R, ts: "2026-12-02T11:09:44.120Z", source: "api", ...f })}\n`;

describe("readHistory", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function file(text: string): string {
    const d = mkdtempSync(join(tmpdir(), "ariel-history-"));
    dirs.push(d);
    const p = join(d, `${R}.ndjson`);
    writeFileSync(p, text);
    return p;
  }

  it("numbers every line, skips and counts what is not an event, and leaves a torn last line", async () => {
    const p = file(`${line("run.started")}not json\n${line("disk.low")}${line("process.started")}{"v":1,"ty`);
    const c = await readHistory(p, W, R);
    expect(c.events.map((e) => [e.seq, e.event])).toEqual([
      [1, "run.started"],
      [4, "run.state"],
    ]);
    expect(c.skipped).toBe(2);
    expect(c.position.seq).toBe(4);
    appendFileSync(p, `pe":"event","event":"run.lost","runId":"${R}","ts":"2026-12-02T11:09:45Z"}\n`);
    const next = await readHistory(p, W, R, c.position);
    expect(next.events.map((e) => [e.seq, e.event])).toEqual([[5, "run.lost"]]);
    expect(next.position.offset).toBe(next.size);
  });

  it("reads a missing file as empty, and nothing new as nothing", async () => {
    expect(await readHistory("/nonexistent/x.ndjson", W, R)).toEqual({
      events: [],
      size: 0,
      skipped: 0,
      position: { offset: 0, seq: 0 },
    });
    const p = file(line("run.started"));
    const all = await readAllHistory(p, W, R);
    expect((await readHistory(p, W, R, all.position)).events).toEqual([]);
  });
});
