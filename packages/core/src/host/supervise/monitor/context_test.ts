/**
 * What the monitor's parts share (context.ts): a new monitor (its workspace, socket, identity,
 * output cap, nothing supervised), a failed write said once as `run RUN: STEP failed [CODE]
 * (WHY)` (an ariel code, a system code, else ERR_INTERNAL with the stack), `attempt` never
 * throwing, `emit` only into a run still there, and run.json updated under the run's lock.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArielError } from "../../../errors.ts";
import { runPaths } from "../../../runs/paths.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { runFields } from "../../runs/_fixture.ts";
import { selfMonitorRef } from "../../runs/identity.ts";
import { createRun } from "../../runs/store.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import { history, json, newRunId } from "./_monitor_fixture.ts";
import {
  attempt,
  createMonitor,
  emit,
  failed,
  log,
  type Monitor,
  underRunLock,
  updateOwned,
} from "./context.ts";

const saved = process.env.ARIEL_RUN_OUTPUT_CAP;
let root: string;
let m: Monitor;
const logged = captureMonitorLog();
beforeEach(() => {
  root = tempDir("ariel-context-");
  m = createMonitor(root, join(root, ".ariel/monitor.sock"));
});
afterEach(() => {
  if (saved === undefined) delete process.env.ARIEL_RUN_OUTPUT_CAP;
  else process.env.ARIEL_RUN_OUTPUT_CAP = saved;
  m.puncher.close();
  removeDir(root);
});

const said = () => logged.map((line) => line.replace(/^\S+ monitor \d+: /, ""));

describe("createMonitor", () => {
  it("its workspace and socket, this process as its monitor, nothing supervised, the cap of its env", () => {
    process.env.ARIEL_RUN_OUTPUT_CAP = "12345";
    const c = createMonitor(root, "/s.sock");
    const { puncher, ttys, lastActivity, ...rest } = c;
    expect(rest).toEqual({
      root,
      socket: "/s.sock",
      active: new Map(),
      busy: 0,
      connections: 0,
      me: selfMonitorRef(),
      cap: 12345,
    });
    expect([typeof puncher.punch, typeof ttys.spawn, ttys.runs.size]).toEqual(["function", "function", 0]);
    expect(Math.abs(lastActivity - Date.now()) < 60_000).toBe(true);
  });

  it("log: one line on stderr, stamped with the time and this process", () => {
    log("hello");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z monitor ${process.pid}: hello\\n$`),
    );
  });
});

describe("failed: said once, with the code of what failed", () => {
  const internal = new Error("bug");
  it.each([
    [
      "an ariel error: its code, its message",
      new ArielError("ERR_CONFLICT", "taken"),
      "[ERR_CONFLICT] (taken)",
    ],
    [
      "a system error: its code, its message",
      Object.assign(new Error("no file"), { code: "ENOENT" }),
      "[ENOENT] (no file)",
    ],
    ["an error with no code: ERR_INTERNAL and its stack", internal, `[ERR_INTERNAL] (${internal.stack})`],
    [
      "a code that is no string: ERR_INTERNAL",
      Object.assign(new Error("n"), { code: 5 }),
      "[ERR_INTERNAL] (",
    ],
    ["a string thrown: ERR_INTERNAL, itself", "boom", "[ERR_INTERNAL] (boom)"],
    ["null thrown: ERR_INTERNAL, null", null, "[ERR_INTERNAL] (null)"],
    ["a coded value with no message: itself", { code: "EX" }, "[EX] ([object Object])"],
  ])("%s", (_name, e, what) => {
    failed("R1", "exit.json", e);
    expect(said()).toHaveLength(1);
    expect(said()[0]?.startsWith(`run R1: exit.json failed ${what}`)).toBe(true);
    if (!what.endsWith("(")) expect(said()).toEqual([`run R1: exit.json failed ${what}\n`]);
  });
});

describe("attempt", () => {
  it.each([
    ["a value", () => 3, 3, []],
    ["a promise", async () => "x", "x", []],
    [
      "a throw: undefined, said",
      () => {
        throw new ArielError("ERR_CONFLICT", "no");
      },
      undefined,
      ["run R2: step failed [ERR_CONFLICT] (no)\n"],
    ],
    [
      "a rejection: undefined, said",
      async () => {
        throw Object.assign(new Error("gone"), { code: "ENOENT" });
      },
      undefined,
      ["run R2: step failed [ENOENT] (gone)\n"],
    ],
  ])("%s", async (_name, fn, value, lines) => {
    expect(await attempt("R2", "step", fn as () => unknown)).toBe(value);
    expect(said()).toEqual(lines);
  });
});

describe("emit", () => {
  it("an event appended to the run's history, by the monitor's clock", async () => {
    const runId = newRunId();
    mkdirSync(runPaths(root, runId).dir, { recursive: true });
    await emit(m, runId, "disk.low", "api", { free: 1 });
    await emit(m, runId, "run.finished", null, {});
    expect(history(root, runId).map(({ ts: _ts, ...e }) => e)).toEqual([
      { v: 1, type: "event", event: "disk.low", runId, source: "api", free: 1 },
      { v: 1, type: "event", event: "run.finished", runId, source: null },
    ]);
  });

  it("a run removed meanwhile: no history made again, said as its step", async () => {
    const runId = newRunId();
    await emit(m, runId, "disk.low", null, {});
    expect(existsSync(runPaths(root, runId).history)).toBe(false);
    expect(said()).toHaveLength(1);
    expect(said()[0]?.startsWith(`run ${runId}: history disk.low failed [ENOENT] (`)).toBe(true);
  });
});

describe("updateOwned and underRunLock", () => {
  it("run.json changed under the run's lock (held while it runs), compare-and-swap", async () => {
    const runId = newRunId();
    mkdirSync(runPaths(root, runId).dir, { recursive: true });
    await createRun(root, runFields({ root, hash: "0123456789abcdef" }, runId));
    const lock = runPaths(root, runId).lock;
    const held = await underRunLock(m, runId, async () => {
      const during = existsSync(lock);
      const rec = await updateOwned(m, runId, () => ({ name: "renamed" }));
      return [during, rec.name, rec.version];
    });
    expect(held).toEqual([true, "renamed", 2]);
    expect([json(runPaths(root, runId).record).name, existsSync(lock)]).toEqual(["renamed", false]);
    const same = await updateOwned(m, runId, () => null);
    expect(same.version).toBe(2);
  });
});
