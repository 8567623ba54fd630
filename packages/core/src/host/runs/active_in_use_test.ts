import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArielError } from "../../errors.ts";
import { workspaceHash } from "../../hash.ts";
import { runPaths } from "../../runs/paths.ts";
import type { RunRecord } from "../../runs/record.ts";
import { leasePath } from "../../state_paths.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { processStartTime } from "../proc.ts";
import { runFields } from "./_fixture.ts";
import { activeCheckoutRuns, activeTaskRuns, isActiveRun, stillSettling } from "./active.ts";
import { selfMonitorRef } from "./identity.ts";
import {
  describeUsers,
  detachedTaskUsers,
  enterCheckout,
  enterTask,
  foregroundTaskUser,
  leaseHeldError,
  type TaskUser,
  taskInUseError,
  taskUsers,
} from "./in_use.ts";
import { createRun, writeExitOnce } from "./store.ts";
import { viewRun } from "./view.ts";

const TS = "2026-12-02T11:09:44.120Z";
let root: string;
let hash: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  root = tempDir("ariel-active-");
  hash = await workspaceHash(root);
});
afterEach(() => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-(c.pid as number), "SIGKILL");
    } catch {}
  }
  removeDir(root);
});

/** A process that has ended: its pid is free (the monitor of a lost run). */
function deadPid(): number {
  return spawnSync("true").pid as number;
}

/** A live process group of its own, as a run's child is. */
function liveGroup(): { pid: number; startTime: string | null; pgid: number } {
  const c = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  children.push(c);
  const pid = c.pid as number;
  return { pid, startTime: processStartTime(pid), pgid: pid };
}

async function run(runId: string, more: Partial<RunRecord> = {}): Promise<RunRecord> {
  mkdirSync(runPaths(root, runId).dir, { recursive: true });
  return createRun(
    root,
    runFields({ root, hash }, runId, {
      name: null,
      cwd: `${root}/api`,
      task: "fix",
      argv: ["agent"],
      monitor: selfMonitorRef(),
      child: { pid: process.pid, startTime: null, pgid: process.pid },
      ...more,
    }),
  );
}

async function ended(runId: string, status = 0): Promise<void> {
  await writeExitOnce(root, {
    v: 1,
    type: "exit",
    runId,
    code: status,
    signal: null,
    status,
    endedAt: TS,
    state: status === 0 ? "exited" : "failed",
    reason: null,
  });
}

function history(runId: string, ...events: string[]): void {
  writeFileSync(
    runPaths(root, runId).history,
    events.map((e) => `{"type":"event","event":"${e}"}\n`).join(""),
  );
}

const R1 = "20261202T110901Z-aaaaaa";
const R2 = "20261202T110902Z-bbbbbb";
const R3 = "20261202T110903Z-cccccc";

describe("stillSettling", () => {
  it("an ended run whose live monitor has not written run.finished", async () => {
    await run(R1);
    await ended(R1);
    history(R1, "run.started");
    expect(stillSettling(root, viewRun(root, R1))).toBe(true);
    history(R1, "run.started", "run.finished");
    expect(stillSettling(root, viewRun(root, R1))).toBe(false);
  });

  it("no history yet counts as not finished", async () => {
    await run(R1);
    await ended(R1);
    expect(stillSettling(root, viewRun(root, R1))).toBe(true);
  });

  it("not for a live run, a run without a monitor, a dead monitor or a k8s run", async () => {
    await run(R1);
    expect(stillSettling(root, viewRun(root, R1))).toBe(false); // running
    await run(R2, { monitor: null });
    await ended(R2);
    expect(stillSettling(root, viewRun(root, R2))).toBe(false);
    await run(R3, { monitor: { pid: deadPid(), startTime: null, bootId: null } });
    await ended(R3);
    expect(stillSettling(root, viewRun(root, R3))).toBe(false);
    const R4 = "20261202T110904Z-dddddd";
    await run(R4, { backend: "k8s" });
    await ended(R4);
    expect(stillSettling(root, viewRun(root, R4))).toBe(false);
  });
});

describe("isActiveRun", () => {
  it("running and starting runs are at work", async () => {
    await run(R1);
    await run(R2, { child: null });
    expect(viewRun(root, R1).state).toBe("running");
    expect(viewRun(root, R2).state).toBe("starting");
    expect(isActiveRun(root, viewRun(root, R1))).toBe(true);
    expect(isActiveRun(root, viewRun(root, R2))).toBe(true);
  });

  it("a lost run is at work while its process group lives, not after", async () => {
    const dead = { pid: deadPid(), startTime: null, bootId: null };
    await run(R1, { monitor: dead, child: { ...liveGroup() } });
    await run(R2, { monitor: dead, child: { pid: dead.pid, startTime: null, pgid: dead.pid } });
    expect(viewRun(root, R1).state).toBe("lost");
    expect(isActiveRun(root, viewRun(root, R1))).toBe(true);
    expect(isActiveRun(root, viewRun(root, R2))).toBe(false);
  });

  it("an ended run is at work only while it is being settled", async () => {
    await run(R1);
    await ended(R1, 1);
    history(R1, "run.started", "run.finished");
    expect(isActiveRun(root, viewRun(root, R1))).toBe(false);
    history(R1, "run.started");
    expect(isActiveRun(root, viewRun(root, R1))).toBe(true);
  });
});

describe("activeTaskRuns and activeCheckoutRuns", () => {
  it("the task's local runs at work, oldest first, with state, settling and cwd", async () => {
    await run(R3, { createdAt: "2026-12-02T11:09:03.000Z" });
    await run(R1, { createdAt: "2026-12-02T11:09:01.000Z", cwd: `${root}/.ariel/worktrees/fix/api` });
    await run(R2, { createdAt: "2026-12-02T11:09:02.000Z" });
    await ended(R2);
    history(R2, "run.started");
    expect(activeTaskRuns(root, "fix")).toEqual([
      {
        runId: R1,
        task: "fix",
        cwd: `${root}/.ariel/worktrees/fix/api`,
        state: "running",
        settling: false,
        ref: R1,
      },
      { runId: R2, task: "fix", cwd: `${root}/api`, state: "exited", settling: true, ref: R2 },
      { runId: R3, task: "fix", cwd: `${root}/api`, state: "running", settling: false, ref: R3 },
    ]);
  });

  it("orders runs of the same second by their creation time, not their random suffix", async () => {
    const late = "20261202T110901Z-aaaaaa";
    const early = "20261202T110901Z-zzzzzz";
    await run(late, { createdAt: "2026-12-02T11:09:01.900Z" });
    await run(early, { createdAt: "2026-12-02T11:09:01.100Z" });
    expect(activeTaskRuns(root).map((r) => r.runId)).toEqual([early, late]);
  });

  it("leaves out other tasks, runs without a task, k8s runs, final runs and damaged records", async () => {
    await run(R1, { task: "other" });
    await run(R2, { task: null });
    await run(R3, { backend: "k8s" });
    const R4 = "20261202T110904Z-dddddd";
    await run(R4);
    await ended(R4);
    history(R4, "run.finished");
    const R5 = "20261202T110905Z-eeeeee";
    mkdirSync(runPaths(root, R5).dir, { recursive: true });
    writeFileSync(runPaths(root, R5).record, "{");
    const R6 = "20261202T110906Z-ffffff";
    await run(R6);
    expect(activeTaskRuns(root, "fix").map((r) => r.runId)).toEqual([R6]);
    expect(activeTaskRuns(root).map((r) => r.runId)).toEqual([R1, R6]);
  });

  it("a run is named by its name while the name means it, else by its id", async () => {
    await run(R1, { name: "agent", createdAt: "2026-12-02T11:09:01.000Z" });
    await run(R2, { name: "agent", createdAt: "2026-12-02T11:09:02.000Z", task: "other" });
    await run(R3, { name: "solo", createdAt: "2026-12-02T11:09:03.000Z" });
    expect(activeTaskRuns(root, "fix").map((r) => r.ref)).toEqual([R1, "solo"]);
    expect(activeTaskRuns(root, "other").map((r) => r.ref)).toEqual(["agent"]);
  });

  it("checkout runs: no task and the very cwd", async () => {
    await run(R1, { task: null, cwd: `${root}/api` });
    await run(R2, { task: null, cwd: `${root}/web` });
    await run(R3, { task: "fix", cwd: `${root}/api` });
    expect(activeCheckoutRuns(root, `${root}/api`)).toEqual([
      { runId: R1, task: null, cwd: `${root}/api`, state: "running", settling: false, ref: R1 },
    ]);
    expect(activeCheckoutRuns(root, `${root}/none`)).toEqual([]);
  });
});

const detachedUser = (runId: string, state = "running", ref = runId): TaskUser => ({
  runId,
  mode: "detached",
  state,
  pid: null,
  ref,
});

describe("describeUsers and taskInUseError", () => {
  it("one run, several runs, named and foreground ones", () => {
    expect(describeUsers([detachedUser(R1)])).toBe(`run ${R1} (running)`);
    expect(describeUsers([detachedUser(R1, "settling", "agent"), detachedUser(R2)])).toBe(
      `runs agent (${R1}, settling), ${R2} (running)`,
    );
    expect(describeUsers([{ runId: R3, mode: "foreground", state: "running", pid: 4242, ref: R3 }])).toBe(
      `run ${R3} (foreground ariel-spawn, pid 4242)`,
    );
  });

  it("detached users: wait for the first, or --join", () => {
    const e = taskInUseError("fix", [detachedUser(R1, "running", "agent"), detachedUser(R2)]);
    expect(e).toBeInstanceOf(ArielError);
    expect([e.code, e.exit]).toEqual(["ERR_TASK_IN_USE", 75]);
    expect(e.message).toBe(
      `task "fix" is in use by runs agent (${R1}, running), ${R2} (running); nothing was started`,
    );
    expect(e.hint).toBe(
      "wait for it (ariel-runs wait agent), use another --task, or pass --join to work in it too",
    );
    expect(e.context).toEqual({ task: "fix", runs: [R1, R2] });
  });

  it("a foreground user: wait for that spawn; no --join", () => {
    const fg: TaskUser = { runId: R3, mode: "foreground", state: "running", pid: 77, ref: R3 };
    const e = taskInUseError("fix", [detachedUser(R1), fg]);
    expect(e.hint).toBe(
      "wait for that ariel-spawn (pid 77) to end, or use another --task; a foreground run's task cannot be joined",
    );
  });
});

describe("detachedTaskUsers and enterTask", () => {
  it("a settling run is named settling; a free task lets a run in", async () => {
    expect(enterTask(root, "fix", false)).toEqual([]);
    await run(R1);
    await run(R2);
    await ended(R2);
    expect(detachedTaskUsers(root, "fix")).toEqual([detachedUser(R1), detachedUser(R2, "settling")]);
  });

  it("refuses a task in use unless --join, which names the runs joined", async () => {
    await run(R1);
    const e = (() => {
      try {
        enterTask(root, "fix", false);
      } catch (x) {
        return x as ArielError;
      }
      return null;
    })();
    expect(e?.code).toBe("ERR_TASK_IN_USE");
    expect(enterTask(root, "fix", true)).toEqual([R1]);
    expect(enterTask(root, "other", false)).toEqual([]);
  });
});

describe("enterCheckout", () => {
  const api = () => ({ name: "api", path: `${root}/api` });

  it("passes a free checkout, and any with --shared", async () => {
    expect(() => enterCheckout(root, api(), false)).not.toThrow();
    await run(R1, { task: null });
    expect(() => enterCheckout(root, api(), true)).not.toThrow();
  });

  it("refuses a checkout a detached run works in: ERR_CHECKOUT_IN_USE with the next commands", async () => {
    await run(R1, { task: null, name: "agent" });
    await run(R2, { task: null });
    let e: ArielError | null = null;
    try {
      enterCheckout(root, api(), false);
    } catch (x) {
      e = x as ArielError;
    }
    expect([e?.code, e?.exit]).toEqual(["ERR_CHECKOUT_IN_USE", 75]);
    expect(e?.message).toBe(
      `the checkout of "api" is in use by detached run agent (${R1}, running); nothing was started`,
    );
    expect(e?.hint).toBe(
      "add --isolate for a worktree of its own, wait for it (ariel-runs wait agent), or pass --shared to work there too",
    );
    expect(e?.context).toEqual({ source: "api", path: `${root}/api`, runs: [R1, R2] });
  });

  it("names the workspace's own checkout by its path, and a settling run as settling", async () => {
    await run(R1, { task: null, cwd: root });
    await ended(R1);
    let e: ArielError | null = null;
    try {
      enterCheckout(root, { name: ".", path: root }, false);
    } catch (x) {
      e = x as ArielError;
    }
    expect(e?.message).toBe(
      `the checkout ${root} is in use by detached run ${R1} (settling); nothing was started`,
    );
  });
});

describe("foregroundTaskUser, taskUsers and leaseHeldError", () => {
  function lease(pid: number, more: Record<string, unknown> = {}): void {
    const path = leasePath(root, "fix");
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(
      path,
      JSON.stringify({
        v: 1,
        type: "lease",
        taskId: "fix",
        owner: "spawn",
        token: 1,
        pid,
        processStart: processStartTime(pid),
        host: hostname(),
        acquiredAt: "2026-12-02T11:09:10.000Z",
        expiresAt: "2099-01-01T00:00:00.000Z",
        ...more,
      }),
    );
  }

  function foregroundHistory(runId: string, pid: number): void {
    mkdirSync(dirname(runPaths(root, runId).history), { recursive: true });
    writeFileSync(
      runPaths(root, runId).history,
      `${JSON.stringify({ type: "event", event: "run.started", pid })}\n`,
    );
  }

  it("the live spawn holding the task's lease, found by its history's run.started", async () => {
    const holder = liveGroup().pid;
    lease(holder);
    foregroundHistory(R1, holder);
    foregroundHistory(R2, holder + 1_000_000); // another pid
    const fg = { runId: R1, mode: "foreground", state: "running", pid: holder, ref: R1 };
    expect(await foregroundTaskUser(root, "fix")).toEqual(fg);
    await run(R3);
    expect(await taskUsers(root, "fix")).toEqual([fg, detachedUser(R3)]);
    const held = new ArielError("ERR_LEASE_HELD", "held");
    const e = (await leaseHeldError(root, "fix", held)) as ArielError;
    expect(e.code).toBe("ERR_TASK_IN_USE");
    expect(e.context).toEqual({ task: "fix", runs: [R1, R3] });
  });

  it("not a history newer than the lease, nor one with a run directory (a detached run)", async () => {
    const holder = liveGroup().pid;
    lease(holder);
    foregroundHistory("20261202T110911Z-later0", holder); // after acquiredAt 11:09:10
    expect(await foregroundTaskUser(root, "fix")).toBeNull();
    foregroundHistory(R1, holder);
    mkdirSync(runPaths(root, R1).dir, { recursive: true });
    expect(await foregroundTaskUser(root, "fix")).toBeNull();
  });

  it("null without a lease, for an expired one, a dead holder, this process, or a holder with no run", async () => {
    expect(await foregroundTaskUser(root, "fix")).toBeNull();
    const holder = liveGroup().pid;
    foregroundHistory(R1, holder);
    lease(holder, { expiresAt: "2020-01-01T00:00:00.000Z" });
    expect(await foregroundTaskUser(root, "fix")).toBeNull();
    const dead = deadPid();
    foregroundHistory(R2, dead);
    lease(dead, { processStart: null });
    expect(await foregroundTaskUser(root, "fix")).toBeNull();
    lease(process.pid);
    foregroundHistory(R3, process.pid);
    expect(await foregroundTaskUser(root, "fix")).toBeNull();
    const other = liveGroup().pid;
    lease(other);
    expect(await foregroundTaskUser(root, "fix")).toBeNull();
    expect(await taskUsers(root, "fix")).toEqual([]);
  });

  it("a history whose first record is not run.started, or not JSON, names no holder", async () => {
    const holder = liveGroup().pid;
    lease(holder);
    mkdirSync(dirname(runPaths(root, R1).history), { recursive: true });
    writeFileSync(
      runPaths(root, R1).history,
      `${JSON.stringify({ type: "event", event: "run.output", pid: holder })}\n`,
    );
    writeFileSync(runPaths(root, R2).history, "not json\n");
    writeFileSync(
      runPaths(root, R3).history,
      `${JSON.stringify({ event: "run.started", pid: String(holder) })}\n`,
    );
    expect(await foregroundTaskUser(root, "fix")).toBeNull();
  });

  it("leaseHeldError leaves other errors, and a lease held by no spawn, as they are", async () => {
    const other = new ArielError("ERR_USAGE", "x");
    expect(await leaseHeldError(root, "fix", other)).toBe(other);
    const plain = new Error("plain");
    expect(await leaseHeldError(root, "fix", plain)).toBe(plain);
    const held = new ArielError("ERR_LEASE_HELD", "held");
    expect(await leaseHeldError(root, "fix", held)).toBe(held);
  });
});
