import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FsPort } from "../../ports.ts";
import type { RunBackend, StartRequest, StartResult } from "../../runs/backend.ts";
import type { PlannedRun } from "../../runs/plan.ts";
import { blockingFs } from "../fs.ts";
import { hostPorts } from "../ports.ts";
import { startExit, startPlanned } from "./detach.ts";

// A new run's directory must be durable in .ariel/runs/ before the backend is asked to start it
// (decision 0047): run.json's write fsyncs only the run's own directory.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "ariel-detach-test-")));
  dirs.push(d);
  return d;
}

function planned(root: string, runId: string): { run: PlannedRun; unit: { env: Record<string, string> } } {
  const run = {
    v: 1,
    type: "run",
    runId,
    name: null,
    backend: "local",
    workspace: { root, hash: "0123456789abcdef" },
    source: null,
    cwd: root,
    task: null,
    worktree: null,
    branch: null,
    argv: ["true"],
    createdAt: "2026-12-02T11:09:43.000Z",
    startedAt: null,
    endedAt: null,
    monitor: null,
    child: null,
    restart: { policy: "no", max: 0, count: 0 },
    respawnOf: null,
    exit: null,
    timeoutMs: null,
    graceMs: 10_000,
    onExit: null,
    interactive: false,
    isolate: null,
    kill: null,
    worktreeOutcome: null,
  } as unknown as PlannedRun;
  return { run, unit: { env: {} } };
}

/** Start `runIds` with a backend that only logs; returns what happened, in order. */
async function start(root: string, runIds: string[]): Promise<string[]> {
  const log: string[] = [];
  const fs: FsPort = {
    ...blockingFs,
    syncDir: (path) => {
      log.push(`syncDir ${path.slice(root.length)}`);
      return blockingFs.syncDir(path);
    },
  };
  const backend = {
    name: "local",
    start: async (specs: readonly StartRequest[]): Promise<StartResult[]> => {
      for (const s of specs)
        log.push(`start ${s.runId} dir=${existsSync(join(root, ".ariel/runs", s.runId))}`);
      return [];
    },
  } as unknown as RunBackend;
  const ports = hostPorts({ fs, cwd: root, env: { ARIEL_STATE_HOME: join(root, "state-home") } });
  await startPlanned(
    ports,
    backend,
    { root, hash: "0123456789abcdef" },
    runIds.map((id) => planned(root, id)),
  );
  return log;
}

describe("startPlanned", () => {
  it("fsyncs .ariel/runs/ once per batch, after every run's directory, before the backend starts", async () => {
    const root = tempDir();
    const first = await start(root, ["20261202T110943Z-aaaaaa", "20261202T110943Z-bbbbbb"]);
    // runs/ was new: .ariel/ holds its entry, so it is fsynced too.
    expect(first.slice(-4)).toEqual([
      "syncDir /.ariel",
      "syncDir /.ariel/runs",
      "start 20261202T110943Z-aaaaaa dir=true",
      "start 20261202T110943Z-bbbbbb dir=true",
    ]);
    const second = await start(root, ["20261202T110944Z-cccccc"]);
    expect(second.filter((l) => l.startsWith("syncDir /.ariel"))).toEqual(["syncDir /.ariel/runs"]);
    expect(second.slice(-2)).toEqual(["syncDir /.ariel/runs", "start 20261202T110944Z-cccccc dir=true"]);
  });
});

describe("startExit", () => {
  const ok = (runId: string): StartResult => ({ runId, ok: true, child: { pid: 1, pgid: 1 } as never });
  const failed = (runId: string, status: number): StartResult => ({
    runId,
    ok: false,
    status,
    code: "ERR_COMMAND_NOT_FOUND",
    message: "command not found: x",
  });
  it.each<[string, StartResult[], number]>([
    ["all started", [ok("a"), ok("b")], 0],
    ["nothing asked", [], 0],
    ["one target that could not start: its status", [failed("a", 127)], 127],
    ["one of several: 1", [ok("a"), failed("b", 126)], 1],
    ["several, none started: 1", [failed("a", 127), failed("b", 127)], 1],
  ])("%s", (_name, results, exit) => {
    expect(startExit(results)).toBe(exit);
  });
});
