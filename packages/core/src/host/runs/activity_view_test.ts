import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentPreset } from "../../runs/attention/classify.ts";
import type { RunView } from "../../runs/backend.ts";
import { runPaths } from "../../runs/paths.ts";
import type { ExitRecord, RunRecord } from "../../runs/record.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { processStartTime } from "../proc.ts";
import { runActivity, runAttention } from "./activity.ts";
import { bootId, selfMonitorRef } from "./identity.ts";
import { keptOnDisk } from "./left.ts";
import { localGroupAlive, viewRun } from "./view.ts";

const RUN = "20261202T110901Z-aaaaaa";
const STARTED = "2026-12-02T11:00:00.000Z";
const T0 = Date.parse(STARTED);
const IDLE = agentPreset("generic").idleMs;
let root: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  root = tempDir("ariel-activity-");
  mkdirSync(runPaths(root, RUN).dir, { recursive: true });
});
afterEach(() => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-(c.pid as number), "SIGKILL");
    } catch {}
  }
  removeDir(root);
});

function view(record: Partial<RunRecord>, state: RunView["state"] = "running"): RunView {
  return {
    record: {
      runId: RUN,
      backend: "local",
      createdAt: "2026-12-02T10:59:00.000Z",
      startedAt: STARTED,
      ...record,
    } as RunRecord,
    exit: null,
    state,
  };
}

function attention(rec: Record<string, unknown> | string): void {
  writeFileSync(runPaths(root, RUN).attention, typeof rec === "string" ? rec : JSON.stringify(rec));
}

function output(which: "stdout" | "stderr", atMs: number): void {
  const f = runPaths(root, RUN)[which];
  writeFileSync(f, "x\n");
  utimesSync(f, atMs / 1000, atMs / 1000);
}

describe("runAttention", () => {
  it("is null for a run that is not live, or not local", () => {
    for (const s of ["exited", "failed", "killed", "lost", "crashed"] as const) {
      expect(runAttention(root, view({}, s), T0)).toBeNull();
      expect(runActivity(root, view({}, s), T0)).toBeNull();
    }
    expect(runAttention(root, view({ backend: "k8s" }), T0)).toBeNull();
  });

  it("a piped run: busy within the generic idle time of its start, idle after", () => {
    expect(runAttention(root, view({}), T0 + IDLE - 1)).toEqual({
      activity: "busy",
      attention: { by: "timing", reason: "output", since: null },
      reported: null,
    });
    expect(runAttention(root, view({}), T0 + IDLE)).toEqual({
      activity: "idle",
      attention: { by: "timing", reason: "quiet", since: null },
      reported: null,
    });
    expect(runActivity(root, view({}, "starting"), T0)).toBe("busy");
  });

  it("a piped run's time is that of its last output, stdout or stderr", () => {
    const last = T0 + 60_000;
    output("stdout", T0 + 10_000);
    output("stderr", last);
    const busy = runAttention(root, view({}), last + IDLE - 1);
    expect(busy?.activity).toBe("busy");
    expect(busy?.attention.since).toBe(new Date(last).toISOString());
    const idle = runAttention(root, view({}), last + IDLE);
    expect(idle?.attention).toEqual({ by: "timing", reason: "quiet", since: new Date(last).toISOString() });
  });

  it("output older than the start counts from the start; a run not started yet from its creation", () => {
    output("stdout", T0 - 120_000);
    expect(runActivity(root, view({}), T0 + IDLE - 1)).toBe("busy");
    const created = Date.parse("2026-12-02T10:59:00.000Z");
    rmSync(runPaths(root, RUN).stdout);
    expect(runActivity(root, view({ startedAt: null }), created + IDLE - 1)).toBe("busy");
    expect(runActivity(root, view({ startedAt: null }), created + IDLE)).toBe("idle");
  });

  it("a tty run not looked at yet has just started: busy, by the screen", () => {
    expect(
      runAttention(root, view({ tty: { cols: 80, rows: 24 } } as Partial<RunRecord>), T0 + 10 * IDLE),
    ).toEqual({
      activity: "busy",
      attention: { by: "screen", reason: "start", since: null },
      reported: null,
    });
  });

  it("a tty run: what its monitor last wrote; by screen when the file does not say", () => {
    attention({ v: 1, activity: "waiting", since: "2026-12-02T11:01:00.000Z", reason: "prompt" });
    expect(runAttention(root, view({ tty: { cols: 80, rows: 24 } } as Partial<RunRecord>), T0)).toEqual({
      activity: "waiting",
      attention: { by: "screen", reason: "prompt", since: "2026-12-02T11:01:00.000Z" },
      reported: null,
    });
    attention({ v: 1, activity: "idle", since: "", reason: "", by: "agent" });
    expect(
      runAttention(root, view({ tty: { cols: 80, rows: 24 } } as Partial<RunRecord>), T0)?.attention,
    ).toEqual({
      by: "agent",
      reason: null,
      since: null,
    });
  });

  it("a wired piped run: its agent's report, with what it reported", () => {
    const agent = {
      name: "claude",
      via: "claude-hooks",
      session: { id: "s1", transcript: "/t" },
      turns: 2,
      turnStarts: 2,
      turnEnds: 1,
      tools: 1,
      toolCalls: { Bash: 1 },
      lastTool: { name: "Bash", phase: "end", ok: true, ts: "t" },
      lastNotice: null,
    };
    attention({
      v: 1,
      activity: "waiting",
      since: "s",
      reason: "Claude needs your permission",
      by: "agent",
      agent,
    });
    const now = runAttention(
      root,
      view({ reports: { agent: "claude" } } as unknown as Partial<RunRecord>),
      T0,
    );
    expect(now).toEqual({
      activity: "waiting",
      attention: { by: "agent", reason: "Claude needs your permission", since: "s" },
      reported: {
        name: "claude",
        via: "claude-hooks",
        session: "s1",
        transcript: "/t",
        turns: 2,
        tools: 1,
        toolCalls: { Bash: 1 },
        lastTool: { name: "Bash", phase: "end", ok: true, ts: "t" },
        lastNotice: null,
      },
    });
  });

  it("a wired piped run with no report yet, or a damaged one, goes by timing", () => {
    const wired = view({ reports: { agent: "claude" } } as unknown as Partial<RunRecord>);
    expect(runAttention(root, wired, T0)?.attention.by).toBe("timing");
    attention("{torn");
    expect(runAttention(root, wired, T0 + IDLE)?.attention).toEqual({
      by: "timing",
      reason: "quiet",
      since: null,
    });
    attention({ v: 1, activity: "dancing" });
    expect(runAttention(root, wired, T0)?.attention.by).toBe("timing");
  });

  it("a piped run that is not wired ignores an attention file", () => {
    attention({ v: 1, activity: "waiting", since: "s", reason: "r" });
    expect(runAttention(root, view({}), T0)?.attention.by).toBe("timing");
  });
});

describe("viewRun", () => {
  function record(more: Partial<RunRecord> = {}): RunRecord {
    return {
      runId: RUN,
      backend: "local",
      monitor: selfMonitorRef(),
      child: null,
      exit: null,
      ...more,
    } as RunRecord;
  }
  const exitFile: ExitRecord = {
    v: 1,
    type: "exit",
    runId: RUN,
    code: 2,
    signal: null,
    status: 2,
    endedAt: STARTED,
    state: "failed",
    reason: "timeout",
  };

  it("a live monitor: starting without a child, running with one", () => {
    expect(viewRun(root, RUN, record()).state).toBe("starting");
    const v = viewRun(root, RUN, record({ child: { pid: 1, startTime: null, pgid: 1 } }));
    expect(v.state).toBe("running");
    expect(v.exit).toBeNull();
  });

  it("a gone monitor is lost; one from another boot crashed", () => {
    const dead = spawnSync("true").pid as number;
    expect(viewRun(root, RUN, record({ monitor: { pid: dead, startTime: null, bootId: null } })).state).toBe(
      "lost",
    );
    const other = { ...selfMonitorRef(), bootId: "another-boot" };
    if (bootId() !== null) expect(viewRun(root, RUN, record({ monitor: other })).state).toBe("crashed");
  });

  it("exit.json decides, when run.json has no copy of it", () => {
    writeFileSync(runPaths(root, RUN).exit, JSON.stringify(exitFile));
    expect(viewRun(root, RUN, record())).toMatchObject({ state: "failed", exit: exitFile });
  });

  it("run.json's copy of the exit is read instead of exit.json, its reason null when absent", () => {
    writeFileSync(runPaths(root, RUN).exit, JSON.stringify(exitFile));
    const copy = { code: 0, signal: null, status: 0, endedAt: STARTED, state: "exited" as const };
    const v = viewRun(root, RUN, record({ exit: copy }));
    expect(v.state).toBe("exited");
    expect(v.exit).toEqual({ v: 1, type: "exit", runId: RUN, ...copy, reason: null });
  });

  it("a copy without a state (an older record) falls back to exit.json", () => {
    writeFileSync(runPaths(root, RUN).exit, JSON.stringify(exitFile));
    const v = viewRun(root, RUN, record({ exit: { code: 2, signal: null, status: 2, endedAt: STARTED } }));
    expect(v.exit).toEqual(exitFile);
  });
});

describe("localGroupAlive", () => {
  it("while a process of the child's group lives, and not after", () => {
    const c = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    children.push(c);
    const pid = c.pid as number;
    const child = { pid, startTime: processStartTime(pid), pgid: pid };
    const v = view({ child, monitor: selfMonitorRef() });
    expect(localGroupAlive(v)).toBe(true);
    expect(localGroupAlive(view({ child: null }))).toBe(false);
    // the leader's pid reused by another process: not ours
    expect(localGroupAlive(view({ child: { ...child, startTime: "1" } }))).toBe(false);
    // a run of another boot: not ours
    if (bootId() !== null)
      expect(localGroupAlive(view({ child, monitor: { ...selfMonitorRef(), bootId: "another-boot" } }))).toBe(
        false,
      );
    const dead = spawnSync("true").pid as number;
    expect(localGroupAlive(view({ child: { pid: dead, startTime: null, pgid: dead } }))).toBe(false);
  });
});

describe("keptOnDisk", () => {
  it("a kept worktree while it is on disk, with the next command", () => {
    const wt = `${root}/.ariel/worktrees/t1/api`;
    mkdirSync(wt, { recursive: true });
    const v = view({
      task: "t1",
      source: "api",
      worktree: wt,
      worktreeOutcome: { outcome: "kept", reason: "dirty" },
    } as Partial<RunRecord>);
    expect(keptOnDisk(v)).toEqual({
      task: "t1",
      source: "api",
      reason: "dirty",
      next: "ariel-worktree remove --task t1 --source api --snapshot",
    });
    rmSync(wt, { recursive: true });
    expect(keptOnDisk(v)).toBeNull();
  });

  it("null for a run that kept nothing, or had no worktree", () => {
    expect(
      keptOnDisk(
        view({ task: "t1", source: "api", worktree: null, worktreeOutcome: null } as Partial<RunRecord>),
      ),
    ).toBeNull();
    expect(
      keptOnDisk(
        view({
          task: "t1",
          source: "api",
          worktree: null,
          worktreeOutcome: { outcome: "kept", reason: "dirty" },
        } as Partial<RunRecord>),
      ),
    ).toBeNull();
  });

  it("a --span run counts while any leg it kept is still there", () => {
    const a = `${root}/wt/a`;
    const b = `${root}/wt/b`;
    mkdirSync(b, { recursive: true });
    const v = view({
      task: "t1",
      source: null,
      worktree: null,
      legs: [
        { source: "a", worktree: a, branch: "ariel/t1" },
        { source: "b", worktree: b, branch: "ariel/t1" },
      ],
      worktreeOutcome: {
        outcome: "kept",
        reason: "dirty",
        legs: [
          { source: "a", outcome: "kept", reason: "dirty" },
          { source: "b", outcome: "kept", reason: "keep" },
        ],
      },
    } as unknown as Partial<RunRecord>);
    expect(keptOnDisk(v, root)).toMatchObject({
      task: "t1",
      source: "a",
      sources: ["a", "b"],
      reason: "dirty, keep",
    });
    rmSync(b, { recursive: true });
    expect(keptOnDisk(v, root)).toBeNull();
  });
});
