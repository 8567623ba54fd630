/**
 * The monitor's side of agents' reports, on a real run directory: only the run's current secret
 * is taken (compared whole), a report for no wired run, too large, of another agent or not what
 * the agent documents is refused and counted; a burst past the rate is dropped; an accepted one
 * appends its agent events to the run's history and moves the run by the agent's word. The first
 * three refusals of a kind are said in monitor.log, not every one.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runPaths } from "../../../runs/paths.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { MAX_REPORT_LINE, type ReportRequest } from "../protocol.ts";
import { RunAttention } from "../run_attention.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import { type Active, type Monitor, newActive } from "./context.ts";
import { newReportState, takeReport } from "./report.ts";

const RUN = "20261204T120000Z-abc123";
let root: string;
const logged = captureMonitorLog();
beforeEach(() => {
  root = tempDir("ariel-report-");
  mkdirSync(runPaths(root, RUN).dir, { recursive: true });
});
/** The attentions a test made: closed and their last write awaited before the run dir goes. */
const made: RunAttention[] = [];
afterEach(async () => {
  for (const a of made.splice(0)) {
    a.close();
    await a.write();
  }
  removeDir(root);
});

/** A monitor supervising one wired run of `agent`: the monitor, the run's attention and secret. */
function wired(agent: "claude" | "codex" = "claude") {
  const attention = new RunAttention(root, RUN, "all", {
    name: agent,
    via: agent === "claude" ? "claude-hooks" : "codex-notify",
  });
  made.push(attention);
  const { state, token } = newReportState(agent, "api", attention);
  const active: Active = { ...newActive(RUN, {}), attention, report: state };
  const m = { root, active: new Map([[RUN, active]]) } as unknown as Monitor;
  return { m, attention, token, state };
}

const req = (over: Partial<ReportRequest>): ReportRequest => ({
  v: 1,
  op: "report",
  runId: RUN,
  token: "",
  agent: "claude",
  at: Date.now(),
  payload: { hook_event_name: "Stop" },
  ...over,
});
const history = () =>
  readFileSync(runPaths(root, RUN).history, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("takeReport", () => {
  it("the run's secret: taken, counted, its events in the history, the run moved by the agent", async () => {
    const { m, attention, token, state } = wired();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(takeReport(m, req({ token }), 100)).toEqual({ v: 1, ok: true, pid: process.pid });
    await state.chain;
    expect(attention.counts).toEqual({ accepted: 1, refused: 0, malformed: 0, limited: 0 });
    expect(attention.state).toMatchObject({ activity: "idle", by: "agent", reason: "turn ended" });
    const events = history();
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e).toMatchObject({ runId: RUN, source: "api", agent: "claude" });
    expect(events.every((e) => String(e.event).startsWith("agent."))).toBe(true);
  });

  it("two starts never share a secret", () => {
    expect(wired().token).not.toBe(wired().token);
  });

  it.each([
    ["another secret", (t: string) => `${t.slice(0, -1)}${t.endsWith("A") ? "B" : "A"}`],
    ["a longer one", (t: string) => `${t}x`],
    ["none", () => undefined as unknown as string],
  ])("%s: refused and counted; nothing read", async (_, wrong) => {
    const { m, attention, token, state } = wired();
    expect(takeReport(m, req({ token: wrong(token) }), 100)).toEqual({
      v: 1,
      ok: false,
      code: "ERR_REPORT_REFUSED",
      message: "not this run's secret",
    });
    await state.chain;
    expect(attention.counts).toEqual({ accepted: 0, refused: 1, malformed: 0, limited: 0 });
    expect(attention.state.activity).toBe("busy");
    expect(logged.join("")).toContain(
      `run ${RUN}: report refused (1 so far): not the secret of this start of the run`,
    );
  });

  it("a report for no wired run of this monitor (or no run id at all) is refused", () => {
    const { m, token } = wired();
    for (const runId of ["20261204T120000Z-zzzzzz", "../x", 7 as unknown as string]) {
      expect(takeReport(m, req({ runId, token }), 100)).toMatchObject({
        ok: false,
        code: "ERR_REPORT_REFUSED",
        message: "no wired run of that id in this monitor",
      });
    }
  });

  it.each([
    ["a line too long", {}, MAX_REPORT_LINE + 1, "too large"],
    ["what the reporter could not read", { problem: "not JSON", payload: null }, 100, "not JSON"],
    ["another agent", { agent: "codex" }, 100, 'from "codex", not claude'],
  ])("%s: not read, counted malformed", async (_, over, length, message) => {
    const { m, attention, token, state } = wired();
    expect(takeReport(m, req({ token, ...over }), length)).toEqual({
      v: 1,
      ok: false,
      code: "ERR_REPORT_MALFORMED",
      message,
    });
    await state.chain;
    expect(attention.counts.malformed).toBe(1);
    expect(attention.state.activity).toBe("busy");
  });

  it("a payload that is not what the agent documents is not read", () => {
    const { m, attention, token } = wired();
    const r = takeReport(m, req({ token, payload: { hook_event_name: 7 } }), 100);
    expect(r).toMatchObject({ ok: false, code: "ERR_REPORT_MALFORMED" });
    expect(attention.counts.malformed).toBe(1);
  });

  it("a burst of 100 is taken; past it, reports are dropped and counted", async () => {
    const { m, attention, token, state } = wired();
    const replies = Array.from({ length: 103 }, () => takeReport(m, req({ token }), 100));
    expect(replies.filter((r) => r.ok)).toHaveLength(100);
    expect(replies.slice(100)).toEqual(
      Array(3).fill({ v: 1, ok: false, code: "ERR_REPORT_LIMITED", message: "too many reports" }),
    );
    await state.chain;
    expect(attention.counts).toMatchObject({ accepted: 100, limited: 3 });
  });

  it("the first three refusals of a kind are said in monitor.log, then only every 1,000th", () => {
    const { m, token } = wired();
    for (let i = 0; i < 5; i++) takeReport(m, req({ token: `${token}x` }), 100);
    const said = logged.filter((l) => l.includes("report refused"));
    expect(said.map((l) => /\((\d+) so far\)/.exec(l)?.[1])).toEqual(["1", "2", "3"]);
  });

  it("stray reports are said thrice with the id they named (cut to 40), then at the 1,000th", async () => {
    vi.resetModules(); // the count of stray reports is the monitor process's: start from none
    const fresh = await import("./report.ts");
    const { m } = wired();
    const long = `x${"y".repeat(60)}`;
    for (let i = 0; i < 1000; i++) fresh.takeReport(m, req({ runId: long }), 100);
    const said = logged.filter((l) => l.includes("no wired run"));
    expect(said.map((l) => Number(/\((\d+) so far\)/.exec(l)?.[1]))).toEqual([1, 2, 3, 1000]);
    expect(said[0]).toContain(
      `report refused (1 so far): no wired run ${JSON.stringify(long.slice(0, 40))} here\n`,
    );
  });

  it("refusals of one run: the 4th to the 999th are not said, the 1,000th is", () => {
    const { m, token } = wired();
    for (let i = 0; i < 1000; i++) takeReport(m, req({ token: `${token}x` }), 100);
    const counts = logged
      .filter((l) => l.includes("report refused"))
      .map((l) => Number(/\((\d+) so far\)/.exec(l)?.[1]));
    expect(counts).toEqual([1, 2, 3, 1000]);
  });

  it("a line of exactly the longest size is read; one more character is too large", () => {
    const { m, token } = wired();
    expect(takeReport(m, req({ token }), MAX_REPORT_LINE).ok).toBe(true);
    expect(takeReport(m, req({ token }), MAX_REPORT_LINE + 1)).toMatchObject({ message: "too large" });
  });

  it("what cannot be read is said in monitor.log and in the reply, cut to 200 characters", () => {
    const { m, attention, token } = wired();
    const agent = "a".repeat(300);
    const r = takeReport(m, req({ token, agent }), 100);
    const full = `from ${JSON.stringify(agent)}, not claude`;
    expect(r).toEqual({ v: 1, ok: false, code: "ERR_REPORT_MALFORMED", message: full.slice(0, 200) });
    expect(attention.counts.malformed).toBe(1);
    expect(logged.join("")).toContain(`run ${RUN}: report not read (1 so far): ${full.slice(0, 200)}\n`);
  });

  it("reports past the rate are said in monitor.log; the bucket fills again at 50 a second", async () => {
    const { m, token } = wired();
    for (let i = 0; i < 101; i++) takeReport(m, req({ token }), 100);
    expect(logged.join("")).toContain(`run ${RUN}: reports over 50/s dropped (1 so far)\n`);
    await new Promise((r) => setTimeout(r, 150));
    const again = Array.from({ length: 20 }, () => takeReport(m, req({ token }), 100));
    expect(again.filter((r) => r.ok).length).toBeGreaterThanOrEqual(7);
  });

  it("a report's time is the reporter's, never ahead of the monitor's: a clock far ahead does not hide later reports", async () => {
    const { m, attention, token, state } = wired();
    takeReport(m, req({ token, at: Date.now() + 3_600_000, payload: { hook_event_name: "Stop" } }), 100);
    await state.chain;
    expect(attention.state.activity).toBe("idle");
    await new Promise((r) => setTimeout(r, 5));
    takeReport(m, req({ token, at: Date.now(), payload: { hook_event_name: "UserPromptSubmit" } }), 100);
    await state.chain;
    expect(attention.state.activity).toBe("busy");
  });

  it("a report made more than a minute before counts as a minute old: it still moves a run no newer report moved", async () => {
    const { m, attention, token, state } = wired();
    takeReport(m, req({ token, at: Date.now() - 3_600_000, payload: { hook_event_name: "Stop" } }), 100);
    await state.chain;
    expect(attention.state.activity).toBe("idle");
  });

  it("each event in the history carries the time the monitor took the report", async () => {
    const { m, token, state } = wired();
    const before = Date.now();
    takeReport(m, req({ token }), 100);
    await state.chain;
    for (const e of history()) {
      expect(Date.parse(e.ts)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(e.ts)).toBeLessThanOrEqual(Date.now());
    }
  });
});
