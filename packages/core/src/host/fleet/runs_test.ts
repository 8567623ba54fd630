import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isArielError } from "../../errors.ts";
import { workspaceHash } from "../../hash.ts";
import { agentView, parseAttentionRecord } from "../../runs/attention/record.ts";
import { runPaths } from "../../runs/paths.ts";
import type { RunRecord } from "../../runs/record.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { runFields } from "../runs/_fixture.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { createRun, writeExitOnce } from "../runs/store.ts";
import { checkRunId, listFleetRunIds, listFleetRuns, loadRun, loadRuns } from "./runs.ts";

const A = "20261202T110943Z-aaaaaa";
const B = "20261202T110944Z-bbbbbb";
const C = "20261202T110945Z-cccccc";
const D = "20261202T110946Z-dddddd";
const E = "20261202T110947Z-eeeeee";

let root: string;
let hash: string;
let ws: { root: string; hash: string };

beforeEach(async () => {
  root = tempDir("ariel-fleet-runs-");
  hash = await workspaceHash(root);
  ws = { root, hash };
});
afterEach(() => removeDir(root));

const runs = () => join(root, ".ariel/runs");
const TS = "2026-12-02T11:09:44.120Z";

/** One spawn history line. */
const line = (runId: string, event: string, f: Record<string, unknown> = {}) =>
  `${JSON.stringify({ v: 1, type: "event", event, runId, ts: TS, source: "api", ...f })}\n`;

/** Write a foreground run's history `<runId>.ndjson`. */
function history(runId: string, text: string): string {
  mkdirSync(runs(), { recursive: true });
  const p = runPaths(root, runId).history;
  writeFileSync(p, text);
  return p;
}

/** A pid that named a process that has ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "0"]);
  return r.pid ?? 0;
}

const started = (runId: string, pid: number | null, f: Record<string, unknown> = {}) =>
  line(runId, "run.started", {
    argv: ["make", "test"],
    targets: ["api"],
    ...(pid === null ? {} : { pid }),
    ...f,
  });

describe("checkRunId", () => {
  it("returns a run id as it is", () => {
    expect(checkRunId(A)).toBe(A);
  });

  it.each(["../etc", "", `${A}x`, "20261202T110943Z-ABCDEF"])("refuses %j (ERR_INVALID_INPUT)", (id) => {
    let e: unknown;
    try {
      checkRunId(id);
    } catch (x) {
      e = x;
    }
    expect(isArielError(e)).toBe(true);
    const err = e as { code: string; message: string; hint: string; context: unknown };
    expect({ code: err.code, message: err.message, hint: err.hint, context: err.context }).toEqual({
      code: "ERR_INVALID_INPUT",
      message: `run id ${JSON.stringify(id)} is not a run id`,
      hint: "run ids look like 20261202T110943Z-k3x9a2 (ariel-fleet status --json lists them)",
      context: { runId: id },
    });
  });
});

describe("listFleetRuns", () => {
  it("no runs directory, or one that is a file: none", async () => {
    expect(await listFleetRuns(root)).toEqual(new Map());
    mkdirSync(join(root, ".ariel"));
    writeFileSync(runs(), "");
    expect(await listFleetRuns(root)).toEqual(new Map());
    expect(await listFleetRunIds(root)).toEqual([]);
  });

  it("a runs directory that cannot be read for another reason: the error", async () => {
    mkdirSync(join(root, ".ariel"));
    symlinkSync(runs(), runs());
    await expect(listFleetRuns(root)).rejects.toMatchObject({ code: "ELOOP" });
  });

  it("history files and run directories by id, oldest first; what is neither is left out", async () => {
    mkdirSync(runs(), { recursive: true });
    // created newest first, so the order is the sort's, not the directory's
    for (const id of [E, C]) mkdirSync(join(runs(), id));
    for (const id of [D, C, A]) writeFileSync(join(runs(), `${id}.ndjson`), "");
    // a symbolic link is neither a history nor a run directory
    symlinkSync(join(runs(), `${A}.ndjson`), join(runs(), `${B}.ndjson`));
    symlinkSync(join(runs(), E), join(runs(), B));
    // a file named as a run (no .ndjson), a directory named as a history, names that are no run id
    writeFileSync(join(runs(), "20261202T110948Z-ffffff"), "");
    mkdirSync(join(runs(), "20261202T110949Z-gggggg.ndjson"));
    writeFileSync(join(runs(), "notes.ndjson"), "");
    mkdirSync(join(runs(), "scratch"));
    writeFileSync(join(runs(), `${A}.json`), "");
    // a file whose name less 7 characters is a run id, but does not end in .ndjson
    writeFileSync(join(runs(), "20261202T110950Z-hhhhhh.jsonld"), "");
    // more runs, so that the directory's own order is surely not the runs' order
    const more = Array.from(
      { length: 12 },
      (_, i) => `20261203T0000${String(59 - i).padStart(2, "0")}Z-k${i.toString(36)}x9a2`,
    );
    for (const id of more) writeFileSync(join(runs(), `${id}.ndjson`), "");
    const sortedMore = [...more].sort();
    expect([...(await listFleetRuns(root))]).toEqual([
      [A, { history: true, dir: false }],
      [C, { history: true, dir: true }],
      [D, { history: true, dir: false }],
      [E, { history: false, dir: true }],
      ...sortedMore.map((id) => [id, { history: true, dir: false }]),
    ]);
    expect(await listFleetRunIds(root)).toEqual([A, C, D, E, ...sortedMore]);
  });
});

describe("loadRun: a foreground run", () => {
  it("refuses a bad run id before looking at any file; no such run is null", async () => {
    await expect(loadRun(ws, "../x")).rejects.toMatchObject({ code: "ERR_INVALID_INPUT" });
    expect(await loadRun(ws, A)).toBeNull();
  });

  it("a finished run: its state and status from its history, the lines that are no events counted", async () => {
    history(
      A,
      `${started(A, deadPid())}not json\n[1,2]\nnull\n"text"\n${line(A, "process.started")}${line(A, "run.finished", { summary: { exit: 0 } })}`,
    );
    const r = await loadRun(ws, A);
    expect(r?.skipped).toBe(4);
    expect(r?.detached).toBeNull();
    expect(r?.view).toMatchObject({
      runId: A,
      kind: "foreground",
      workspace: { root, hash },
      state: "exited",
      status: 0,
      argv: ["make", "test"],
      sources: ["api"],
      startedAt: TS,
      endedAt: TS,
      lastSeq: 7,
    });
  });

  it("a run not final: running while its ariel-spawn lives (this process or another), lost once it is gone or unknown", async () => {
    history(A, `${started(A, process.pid)}${line(A, "process.started")}`);
    history(B, `${started(B, process.ppid)}${line(B, "process.started")}`);
    const dead = deadPid();
    history(C, `${started(C, dead)}${line(C, "process.started")}`);
    history(D, `${started(D, null)}${line(D, "process.started")}`);
    const view = async (id: string) => (await loadRun(ws, id))?.view.state;
    expect(await view(A)).toBe("running");
    expect(await view(B)).toBe("running");
    expect(await view(C)).toBe("lost");
    expect(await view(D)).toBe("lost");
    expect((await loadRun(ws, A))?.ownerPid).toBe(process.pid);
    expect((await loadRun(ws, C))?.ownerPid).toBe(dead);
    expect((await loadRun(ws, D))?.ownerPid).toBeNull();
  });

  it("a symbolic link is no history: no run", async () => {
    const real = history(A, started(A, process.pid));
    symlinkSync(real, runPaths(root, B).history);
    expect(await loadRun(ws, B)).toBeNull();
    // nor is a directory named as a history
    mkdirSync(runPaths(root, C).history);
    expect(await loadRun(ws, C)).toBeNull();
  });

  it("reads what was appended since, a torn line once it is whole, and a replaced history from its start", async () => {
    const p = history(A, started(A, process.pid));
    expect((await loadRun(ws, A))?.view).toMatchObject({ state: "starting", lastSeq: 1 });
    // unchanged: the same view again
    expect((await loadRun(ws, A))?.view).toMatchObject({ state: "starting", lastSeq: 1 });
    appendFileSync(p, `oops\n${line(A, "process.started")}`);
    expect(await loadRun(ws, A)).toMatchObject({ skipped: 1, view: { state: "running", lastSeq: 3 } });
    // a torn last line is not read until it is whole
    const finished = line(A, "run.finished", { summary: { exit: 3 } });
    appendFileSync(p, finished.slice(0, 20));
    expect(await loadRun(ws, A)).toMatchObject({ skipped: 1, view: { state: "running", lastSeq: 3 } });
    appendFileSync(p, finished.slice(20));
    expect(await loadRun(ws, A)).toMatchObject({
      skipped: 1,
      view: { state: "failed", status: 3, lastSeq: 4 },
    });
    // replaced by a shorter history: folded again from its start
    writeFileSync(p, started(A, process.pid));
    expect(await loadRun(ws, A)).toMatchObject({ skipped: 0, view: { state: "starting", lastSeq: 1 } });
  });
});

/** A detached run's run.json (a local run; no monitor, no child, unless `fields` say). */
async function detached(runId: string, fields: Partial<RunRecord> = {}): Promise<void> {
  await createRun(root, runFields(ws, runId, fields));
}

async function exited(runId: string, status: number): Promise<void> {
  await writeExitOnce(root, {
    v: 1,
    type: "exit",
    runId,
    code: status,
    signal: null,
    status,
    endedAt: "2026-12-02T11:10:00.000Z",
    state: status === 0 ? "exited" : "failed",
    reason: null,
  });
}

describe("loadRun: a detached run", () => {
  it("its view is the runs backend's, its last line read unless asked not to", async () => {
    await detached(A);
    await exited(A, 0);
    writeFileSync(runPaths(root, A).stdout, "first\nlast words\n");
    history(A, `junk\n${line(A, "run.started", { mode: "detached" })}`);
    const r = await loadRun(ws, A);
    expect(r?.detached?.state).toBe("exited");
    expect(r?.ownerPid).toBeNull();
    expect(r?.skipped).toBe(1);
    expect(r?.view).toMatchObject({
      runId: A,
      kind: "detached",
      name: "agent",
      state: "exited",
      argv: ["agent", "--go"],
      lastSeq: 2,
      lastLine: "last words",
      kept: null,
    });
    expect((await loadRun(ws, A, undefined, { lastLine: false }))?.view.lastLine).toBeNull();
    expect((await loadRun(ws, A, undefined, { lastLine: true }))?.view.lastLine).toBe("last words");
  });

  it("a run directory without its history: the backend's view, nothing skipped, no events", async () => {
    await detached(B);
    await exited(B, 2);
    const r = await loadRun(ws, B);
    expect(r?.skipped).toBe(0);
    expect(r?.view).toMatchObject({
      runId: B,
      kind: "detached",
      state: "failed",
      lastSeq: 0,
      lastLine: null,
    });
  });

  it("a run directory without run.json: starting from its first event for a while, then lost; none without a history", async () => {
    mkdirSync(runPaths(root, A).dir, { recursive: true });
    history(A, line(A, "run.started", { mode: "detached", name: "fresh", ts: new Date().toISOString() }));
    mkdirSync(runPaths(root, B).dir, { recursive: true });
    history(B, line(B, "run.started", { mode: "detached", name: "old", ts: "2020-01-01T00:00:00.000Z" }));
    mkdirSync(runPaths(root, C).dir, { recursive: true });
    history(C, line(C, "disk.low"));
    mkdirSync(runPaths(root, D).dir, { recursive: true });
    expect((await loadRun(ws, A))?.view).toMatchObject({
      kind: "detached",
      name: "fresh",
      state: "starting",
    });
    expect((await loadRun(ws, B))?.view).toMatchObject({ kind: "detached", name: "old", state: "lost" });
    // no run.started: no start time, lost
    expect((await loadRun(ws, C))?.view.state).toBe("lost");
    expect(await loadRun(ws, D)).toBeNull();
    expect(await loadRun(ws, D, { history: false, dir: true })).toBeNull();
  });
});

describe("loadRuns", () => {
  it("every run with its view, oldest first, the skipped lines summed; a run directory with nothing readable left out", async () => {
    history(A, `${started(A, deadPid())}x\ny\n${line(A, "run.finished", { summary: { exit: 0 } })}`);
    await detached(B);
    await exited(B, 1);
    history(B, `${line(B, "run.started", { mode: "detached" })}z\n`);
    mkdirSync(runPaths(root, C).dir, { recursive: true }); // nothing readable: no run
    history(D, started(D, process.pid));
    const r = await loadRuns(ws);
    expect(r.skipped).toBe(3);
    expect(r.runs.map((x) => [x.view.runId, x.view.kind, x.view.state, x.skipped])).toEqual([
      [A, "foreground", "exited", 2],
      [B, "detached", "failed", 1],
      [D, "foreground", "starting", 0],
    ]);
    expect(await loadRuns({ root: join(root, "nowhere"), hash })).toEqual({ runs: [], skipped: 0 });
  });
});

describe("loadRun: a long history", () => {
  it("folds a history longer than one read (4 MiB) to its end, and again from where it stopped", async () => {
    const pad = "x".repeat(1000);
    const n = 5 * 1024;
    const lines = [started(A, process.pid, { pad })];
    for (let i = 1; i < n; i++) lines.push(line(A, "output", { line: `line ${i}`, pad }));
    const p = history(A, `${lines.join("")}junk\n`);
    expect(await loadRun(ws, A)).toMatchObject({
      skipped: 1,
      view: { state: "starting", lastSeq: n, lastLine: `line ${n - 1}` },
    });
    appendFileSync(p, `${line(A, "process.started")}${line(A, "run.finished", { summary: { exit: 0 } })}`);
    expect(await loadRun(ws, A)).toMatchObject({
      skipped: 1,
      view: { state: "exited", status: 0, lastSeq: n + 3 },
    });
  });
});

describe("loadRuns: kept worktrees", () => {
  it("a kept worktree is named by the newest run that kept it, the older one's view names none", async () => {
    const wt = join(root, ".ariel/worktrees/t1/api");
    mkdirSync(wt, { recursive: true });
    const keptBy = (createdAt: string): Partial<RunRecord> => ({
      task: "t1",
      source: "api",
      worktree: wt,
      branch: "ariel/t1",
      createdAt,
      worktreeOutcome: { outcome: "kept", reason: "dirty" },
    });
    await detached(A, keptBy("2026-12-02T11:00:00.000Z"));
    await exited(A, 0);
    await detached(B, keptBy("2026-12-02T12:00:00.000Z"));
    await exited(B, 0);
    // alone, each names its kept worktree
    const alone = (await loadRun(ws, A))?.view.kept;
    expect(alone).toMatchObject({ task: "t1", source: "api", reason: "dirty" });
    const r = await loadRuns(ws);
    expect(r.runs.map((x) => [x.view.runId, x.view.kept])).toEqual([
      [A, null],
      [B, alone],
    ]);
  });

  it("none names it while a live run works in it", async () => {
    const wt = join(root, ".ariel/worktrees/t1/api");
    mkdirSync(wt, { recursive: true });
    const at = { task: "t1", source: "api", worktree: wt, branch: "ariel/t1" };
    const outcome = { outcome: "kept", reason: "dirty" } as const;
    await detached(A, { ...at, createdAt: "2026-12-02T11:00:00.000Z", worktreeOutcome: outcome });
    await exited(A, 0);
    await detached(B, { ...at, createdAt: "2026-12-02T12:00:00.000Z", worktreeOutcome: outcome });
    await exited(B, 0);
    // a run whose monitor (this process) lives, in the same leg
    await detached(C, { ...at, createdAt: "2026-12-02T13:00:00.000Z", monitor: selfMonitorRef() });
    const r = await loadRuns(ws);
    expect(r.runs.map((x) => [x.view.runId, x.detached?.state, x.view.kept])).toEqual([
      [A, "exited", null],
      [B, "exited", null],
      [C, "starting", null],
    ]);
  });
});

describe("loadRun: a live detached run's attention", () => {
  it("a piped run no one reported on: by timing (idle, its output quiet), no report", async () => {
    await detached(A, { monitor: selfMonitorRef() });
    const v = (await loadRun(ws, A))?.view;
    expect(v?.state).toBe("starting");
    expect(v?.activity).toBe("idle");
    expect(v?.attention).toEqual({ by: "timing", reason: "quiet", since: null });
    expect(v !== undefined && "reported" in v).toBe(false);
  });

  it("a tty run: what its monitor last wrote, with the agent's report", async () => {
    await detached(A, { monitor: selfMonitorRef(), tty: { cols: 80, rows: 24 } } as Partial<RunRecord>);
    const text = JSON.stringify({
      v: 1,
      activity: "waiting",
      since: "2026-12-02T11:10:00.000Z",
      reason: "permission",
      by: "agent",
      agent: {
        name: "claude",
        via: "hooks",
        turns: 3,
        tools: 2,
        toolCalls: { Bash: 2 },
        lastTool: null,
        lastNotice: null,
      },
    });
    writeFileSync(runPaths(root, A).attention, text);
    const record = parseAttentionRecord(text);
    const reported = record && agentView(record);
    expect(reported).not.toBeNull();
    const v = (await loadRun(ws, A))?.view;
    expect(v).toMatchObject({
      state: "starting",
      activity: "waiting",
      attention: { by: "agent", reason: "permission", since: "2026-12-02T11:10:00.000Z" },
      reported,
    });
  });

  it("an ended run has no activity", async () => {
    await detached(A);
    await exited(A, 0);
    const v = (await loadRun(ws, A))?.view;
    expect(v !== undefined && ("activity" in v || "attention" in v || "reported" in v)).toBe(false);
  });
});
