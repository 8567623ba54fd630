/**
 * The monitor's side of tty runs (tty_monitor.ts), on a monitor served in this process: which
 * request lines it takes (an attach, every line of an attached socket) and which it leaves to the
 * server, the refusal of an attach to a run that is not a live tty run (the reply whole), what of
 * an attach request it reads (read-only only when `true`, a size only with both sides), the run
 * forgotten at its end, its preset's idle time from the environment, a resize that cannot be kept
 * said in monitor.log, and `--notify` at the end.
 */
import { readFileSync, rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { agentPreset } from "../../runs/attention/classify.ts";
import { runPaths } from "../../runs/paths.ts";
import { tempDir } from "../_fixture.ts";
import {
  closeClients,
  framed,
  input,
  type RawClient,
  rawClient,
  signals,
  startTty,
  stdoutOf,
  ttyRun,
  waitFor,
} from "./_tty_fixture.ts";
import { captureMonitorLog } from "./monitor/_log_fixture.ts";
import {
  ended,
  type LiveMonitor,
  newRunId,
  plannedRun,
  startRuns,
  useServedMonitor,
} from "./monitor/_monitor_fixture.ts";

let l: LiveMonitor;
const logged = captureMonitorLog();
const idleEnv = process.env.ARIEL_ATTENTION_IDLE_MS;
useServedMonitor(
  () => tempDir("ariel-tty-monitor-"),
  (m) => {
    l = m;
  },
);
afterEach(async () => {
  closeClients();
  if (idleEnv === undefined) delete process.env.ARIEL_ATTENTION_IDLE_MS;
  else process.env.ARIEL_ATTENTION_IDLE_MS = idleEnv;
});

const sh = (script: string) => ["sh", "-c", script];
const NOT_FOUND = { v: 1, ok: false, code: "ERR_RUN_NOT_FOUND", message: "no live tty run by that id" };
const PONG = { v: 1, ok: true, pid: process.pid };
const parseError = (line: string) => {
  try {
    JSON.parse(line);
  } catch (e) {
    return (e as Error).message;
  }
  return "";
};

/** Send `lines` one by one on a new connection; the replies once there are `count`. */
async function exchange(lines: string[], count: number): Promise<RawClient> {
  const c = await rawClient(l);
  for (const line of lines) c.send(line);
  await waitFor(() => c.lines.length >= count, `${count} replies`);
  return c;
}

describe("takeLine: what is the tty runs' and what is left to the server", () => {
  it("an attach to no live tty run: refused whole, and the connection is still the server's", async () => {
    const c = await exchange(
      [JSON.stringify({ v: 1, op: "attach", runId: newRunId() }), '{"v":1,"op":"ping"}'],
      2,
    );
    expect(c.lines).toEqual([NOT_FOUND, PONG]);
  });

  it.each([
    ["a ping", '{"v":1,"op":"ping"}', PONG],
    ["no JSON", "attach me", { v: 1, ok: false, code: "ERR_MONITOR", message: parseError("attach me") }],
    ["null", "null", { v: 1, ok: false, code: "ERR_MONITOR", message: "not a request" }],
    ["a number", "5", { v: 1, ok: false, code: "ERR_MONITOR", message: "not a request" }],
    ["the string attach", '"attach"', { v: 1, ok: false, code: "ERR_MONITOR", message: "not a request" }],
    ["another op", '{"v":1,"op":"status"}', { v: 1, ok: false, code: "ERR_MONITOR", message: "unknown op" }],
    ["an empty op", '{"v":1,"op":""}', { v: 1, ok: false, code: "ERR_MONITOR", message: "unknown op" }],
  ])("%s is the server's to answer", async (_name, line, reply) => {
    const c = await exchange([line], 1);
    expect(c.lines).toEqual([reply]);
  });

  it("every line of an attached socket is the run's: none is answered, its keys still reach the child", async () => {
    const id = await startTty(l, sh('read x; echo "[$x]"'));
    const c = await exchange([JSON.stringify({ v: 1, op: "attach", runId: id })], 1);
    for (const line of ["not json", '{"v":1,"op":"ping"}', "null", '{"op":"nothing"}']) c.send(line);
    c.send(input("after\r"));
    await waitFor(() => c.closed, "the end");
    expect(c.lines.slice(1).every((f) => "t" in f)).toBe(true);
    expect(signals(c.lines)).toEqual([{ t: "exit", status: 0 }]);
    expect(framed(c.lines.slice(2))).toBe("after\r\n[after]\r\n");
    expect(stdoutOf(l, id)).toBe("after\r\n[after]\r\n");
  });

  it("a run that ended is no live tty run: an attach to it is refused", async () => {
    const id = await startTty(l, sh("exit 0"));
    expect(await ended(l, id)).toBe(true);
    expect(l.m.ttys.runs.has(id)).toBe(false);
    const c = await exchange([JSON.stringify({ v: 1, op: "attach", runId: id })], 1);
    expect(c.lines).toEqual([NOT_FOUND]);
  });
});

describe("takeLine: what of an attach request is read", () => {
  it.each([
    ["readOnly true: read-only", { readOnly: true }, "[]"],
    ['readOnly "yes": not read-only', { readOnly: "yes" }, "[keys]"],
    ["readOnly absent: not read-only", {}, "[keys]"],
  ])("%s", async (_name, extra, printed) => {
    const id = await startTty(l, sh('read x; echo "[$x]"; read y'));
    const c = await exchange([JSON.stringify({ v: 1, op: "attach", runId: id, ...extra })], 1);
    c.send(input("keys\r"));
    await c.synced();
    const w = await exchange([JSON.stringify({ v: 1, op: "attach", runId: id })], 1);
    w.send(input("\r"));
    await waitFor(() => /\[.*\]/.test(stdoutOf(l, id)), "the line read");
    expect(stdoutOf(l, id).match(/\[.*\]/)?.[0]).toBe(printed);
  });

  it.each([
    ["cols and rows", { cols: 50, rows: 12 }, { cols: 50, rows: 12 }],
    ["cols alone", { cols: 50 }, { cols: 40, rows: 10 }],
    ["rows alone", { rows: 12 }, { cols: 40, rows: 10 }],
    ["zero cols", { cols: 0, rows: 12 }, { cols: 40, rows: 10 }],
  ])("a size with %s", async (_name, extra, tty) => {
    const id = await startTty(l, sh("read x"));
    const c = await exchange([JSON.stringify({ v: 1, op: "attach", runId: id, ...extra })], 1);
    expect(c.lines[0]).toEqual({ ...PONG, tty, direct: false });
    expect(ttyRun(l, id).child.size).toEqual(tty);
  });
});

describe("spawn: the run's preset, its resizes kept, --notify at its end", () => {
  it.each([
    ["unset", undefined, 5000],
    ["1234", "1234", 1234],
    ["0", "0", 5000],
    ["-3", "-3", 5000],
    ["not a number", "soon", 5000],
  ])("ARIEL_ATTENTION_IDLE_MS %s: the preset's idle time", async (_name, env, idleMs) => {
    if (env === undefined) delete process.env.ARIEL_ATTENTION_IDLE_MS;
    else process.env.ARIEL_ATTENTION_IDLE_MS = env;
    const id = await startTty(l, sh("read x"));
    expect(ttyRun(l, id).preset).toEqual({ ...agentPreset("generic"), idleMs });
  });

  it("a size that cannot be kept in run.json is said in monitor.log; the terminal is resized all the same", async () => {
    const id = await startTty(l, sh("read x; stty size"));
    const c = await exchange([JSON.stringify({ v: 1, op: "attach", runId: id })], 1);
    rmSync(runPaths(l.root, id).record);
    c.send({ op: "resize", cols: 50, rows: 12 });
    const said = () => logged.filter((s) => s.includes("size not kept"));
    await waitFor(() => said().length === 1, "said");
    expect(said()[0]).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z monitor ${process.pid}: run ${id}: size not kept: .+\\n$`),
    );
    c.send(input("\r"));
    await waitFor(() => stdoutOf(l, id).endsWith("12 50\r\n"), "stty size");
  });

  it("--notify: told the run's end, with its status and state", async () => {
    const runId = newRunId();
    const notify = sh('echo "$ARIEL_NOTIFY $ARIEL_EXIT_CODE $ARIEL_RUN_STATE"');
    const [r] = await startRuns(l, [
      plannedRun(l, runId, { argv: sh("exit 3"), tty: { cols: 40, rows: 10 }, agent: null, notify }),
    ]);
    expect(r).toMatchObject({ ok: true });
    expect(await ended(l, runId)).toBe(true);
    expect(readFileSync(runPaths(l.root, runId).notify, "utf8")).toBe("exit 3 failed\n");
  });
});
