import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_KILL_GRACE_MS, type FleetRun } from "@ariel/core";
import * as host from "@ariel/core/host";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type FleetWorld, fleetWorld, json, until } from "./_app_fixture.ts";
import { type RunControl, runControl } from "./control.ts";

// The real RunControl on live detached runs, started in this process through the app (a run's
// monitor is ariel-spawn's bundle run again): what a spawn request becomes, what kill, input and
// respawn do to a run, and what the server is warned of when a kill goes wrong after its answer.
// startDetached and loadRun are the real ones, watched; a test may answer one call itself.

vi.mock("@ariel/core/host", async (importOriginal) => {
  const real = await importOriginal<typeof import("@ariel/core/host")>();
  return { ...real, startDetached: vi.fn(real.startDetached), loadRun: vi.fn(real.loadRun) };
});

const SPAWN_BIN = fileURLToPath(new URL("../../../cli-spawn/dist/ariel-spawn.cjs", import.meta.url));
/** A command that ignores SIGTERM (its sleep too) and says so once it does. */
const STUBBORN = ["sh", "-c", 'trap "" TERM; echo ready; sleep 60'];

let w: FleetWorld;
let control: RunControl;
/** The control's environment: the world's, once it exists. */
const env: Record<string, string | undefined> = {};
const warnings: [string, string][] = [];

beforeAll(async () => {
  control = runControl(env, (message, runId) => warnings.push([message, runId]));
  w = await fleetWorld({ control });
  Object.assign(env, w.env, { FLEET_MARK: "from-the-fleet" }); // not in this process's env
});
afterEach(() => {
  warnings.length = 0;
  vi.mocked(host.startDetached).mockClear();
});
afterAll(async () => {
  killEverything();
  await control.settled();
  await monitorGone();
  w.dispose();
});

/** Kill every run's process group this file started (and the monitor), by their records. */
function killEverything(): void {
  const dir = join(w.ws, ".ariel/runs");
  for (const id of existsSync(dir) ? readdirSync(dir) : []) {
    const child = readRecord(id)?.child as { pgid: number } | null | undefined;
    if (child) killGroup(child.pgid);
  }
  for (const pgid of groups) killGroup(pgid);
  try {
    process.kill(monitorPid(), "SIGKILL");
  } catch {}
}

/** Process groups of runs whose records a test removed or damaged. */
const groups: number[] = [];

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGCONT");
    process.kill(-pgid, "SIGKILL");
  } catch {}
}

const monitorPid = (): number =>
  (JSON.parse(readFileSync(join(w.ws, ".ariel/monitor.json"), "utf8")) as { pid: number }).pid;

const alive = (pid: number, group = false): boolean => {
  try {
    process.kill(group ? -pid : pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function monitorGone(): Promise<void> {
  if (!existsSync(join(w.ws, ".ariel/monitor.json"))) return;
  const pid = monitorPid();
  await until(() => !alive(pid), "the monitor to exit", 15_000);
}

const runFile = (id: string, name: string) => join(w.ws, ".ariel/runs", id, name);

function readRecord(id: string, name = "run.json"): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(runFile(id, name), "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}

const stdoutOf = (id: string): string => {
  try {
    return readFileSync(runFile(id, "stdout"), "utf8");
  } catch {
    return "";
  }
};

/**
 * POST `body` to `path` as JSON, a monitor this process starts being ariel-spawn's bundle. It
 * outlives the gaps between this file's runs (a spawn never races its idle exit); afterAll ends it.
 */
/** A run's view, or an error record (its code): what an answer's body is read as. */
type Answer = { status: number; body: FleetRun & { code?: string } };

async function post(path: string, body: unknown): Promise<Answer> {
  const argv1 = process.argv[1];
  const idle = process.env.ARIEL_MONITOR_IDLE_MS;
  process.argv[1] = SPAWN_BIN;
  process.env.ARIEL_MONITOR_IDLE_MS = "120000";
  try {
    return (await json(await w.post(path, JSON.stringify(body)))) as Answer;
  } finally {
    process.argv[1] = argv1 as string;
    if (idle === undefined) delete process.env.ARIEL_MONITOR_IDLE_MS;
    else process.env.ARIEL_MONITOR_IDLE_MS = idle;
  }
}

const spawnRuns = (body: Record<string, unknown>) => post(`/api/workspaces/${w.known.hash}/runs`, body);

/** Start one run (201 asserted) and return its view. */
async function started(body: Record<string, unknown>): Promise<FleetRun> {
  const res = await spawnRuns(body);
  const views = res.body as unknown as FleetRun[];
  expect([res.status, views.length]).toEqual([201, 1]);
  return views[0]!;
}

/** Start a run that ignores SIGTERM and wait until it says it does. */
async function stubborn(): Promise<{ id: string; pgid: number }> {
  const { runId } = await started({ argv: STUBBORN, shared: true });
  await until(() => stdoutOf(runId) === "ready\n", "the run to ignore SIGTERM", 15_000);
  const pgid = (readRecord(runId)!.child as { pgid: number }).pgid;
  groups.push(pgid);
  return { id: runId, pgid };
}

/** The arguments of the last startDetached call: its ports, the request, and where it logs. */
function lastStart() {
  const [ports, req, io] = vi.mocked(host.startDetached).mock.calls.at(-1)!;
  return { ports, req, io };
}

describe("spawn: the body becomes ariel-spawn --detach's request", () => {
  it("argv and a name: 201 with the run's view in the workspace root, nothing printed", async () => {
    const printed = vi.spyOn(process.stderr, "write");
    try {
      const view = await started({ argv: ["sh", "-c", "echo hi"], name: "first" });
      expect(view).toMatchObject({ kind: "detached", name: "first", sources: ["."], task: null });
      expect([view.argv, "sandbox" in view, printed.mock.calls]).toEqual([
        ["sh", "-c", "echo hi"],
        false,
        [],
      ]);
    } finally {
      printed.mockRestore();
    }
    const { ports, req, io } = lastStart();
    expect([ports.cwd, ports.env]).toEqual([w.ws, env]);
    expect(req).toStrictEqual({
      workspaceRoot: w.ws,
      targets: [],
      argv: ["sh", "-c", "echo hi"],
      graceMs: DEFAULT_KILL_GRACE_MS,
      dryRun: false,
      sandbox: {},
      detach: {
        name: "first",
        restart: { policy: "no", max: 0, count: 0 },
        timeoutMs: null,
        graceMs: DEFAULT_KILL_GRACE_MS,
        onExit: null,
        interactive: false,
      },
    });
    expect([io.log.prog, io.log.json, io.log.sink.write("x"), io.isolation]).toEqual([
      "ariel-fleet",
      true,
      true,
      host.worktreeIsolation,
    ]);
  });

  it.each([
    ["none", { sandbox: true, sandboxNet: "none" }],
    ["on", { sandbox: true, sandboxNet: "on" }],
  ])("sandbox with network %s, no name: a sandboxed run with that network", async (net, body) => {
    const view = await started({ argv: ["true"], shared: true, ...body });
    expect([view.name, view.sandbox?.net]).toEqual([null, net]);
    expect(lastStart().req).toMatchObject({
      shared: true,
      sandbox: { sandbox: true, net },
      detach: { name: null },
    });
  });

  it("sandbox: false under a config that sandboxes every run: not sandboxed (without it: sandboxed)", async () => {
    writeFileSync(join(w.ws, "ariel.config.json"), '{ "sandbox": true }');
    try {
      const off = await started({ argv: ["true"], shared: true, sandbox: false });
      expect(["sandbox" in off, lastStart().req.sandbox]).toEqual([false, { noSandbox: true }]);
      const on = await started({ argv: ["true"], shared: true });
      expect([on.sandbox?.net, lastStart().req.sandbox]).toEqual(["on", {}]);
    } finally {
      rmSync(join(w.ws, "ariel.config.json"));
    }
  });

  it("isolate: the run works in a worktree of its own, removed once it ends", async () => {
    const view = await started({ argv: ["pwd"], isolate: true, source: "api" });
    const worktree = join(w.ws, ".ariel/worktrees", view.task!, "api");
    expect([view.sources, view.branch]).toEqual([["api"], `ariel/${view.task}`]);
    expect(lastStart().req.isolate).toEqual({ span: false, onExit: "remove" });
    await until(() => readRecord(view.runId)?.worktreeOutcome != null, "the worktree's fate", 15_000);
    expect([stdoutOf(view.runId), existsSync(worktree)]).toEqual([`${worktree}\n`, false]);
  });

  it("without shared, a second run in a checkout a run works in is refused; with shared it starts", async () => {
    const first = await stubborn();
    const refused = await spawnRuns({ argv: ["true"] });
    expect([refused.status, refused.body.code]).toEqual([503, "ERR_CHECKOUT_IN_USE"]);
    expect((await spawnRuns({ argv: ["true"], shared: true })).status).toBe(201);
    expect((await post(`/api/runs/${first.id}/kill`, { signal: "KILL", graceMs: 0 })).status).toBe(202);
    await control.settled();
  });

  it("an agent whose reports cannot be wired is warned of to nobody: the run's view, nothing printed", async () => {
    const printed = vi.spyOn(process.stderr, "write");
    try {
      const view = await started({ argv: ["claude", "--settings", "x"], source: "api", shared: true });
      expect([view.name, printed.mock.calls]).toEqual([null, []]);
    } finally {
      printed.mockRestore();
    }
  });
});

describe("kill", () => {
  it("a run that ignores SIGTERM: 202 while it runs; settled() waits out the grace, SIGKILL ends it killed", async () => {
    const { id, pgid } = await stubborn();
    const res = await post(`/api/runs/${id}/kill`, { signal: "TERM", graceMs: 3000 });
    expect([res.status, res.body.runId, res.body.state]).toEqual([202, id, "running"]);
    expect(readRecord(id)!.kill).toMatchObject({ signal: "SIGTERM", reason: "kill" });
    const waiting: number[] = [];
    await control.settled((n) => waiting.push(n));
    expect([waiting, alive(pgid, true), warnings]).toEqual([[1], false, []]);
    await until(() => readRecord(id, "exit.json") !== null, "the run's exit record", 15_000);
    expect(readRecord(id, "exit.json")).toMatchObject({ state: "killed", signal: "SIGKILL" });
  });

  it("graceMs 0 is taken: a run that ended is answered with its view, nothing to wait for", async () => {
    const { runId } = await started({ argv: ["true"], shared: true });
    await until(() => readRecord(runId, "exit.json") !== null, "the run's end", 15_000);
    const res = await post(`/api/runs/${runId}/kill`, { graceMs: 0 });
    expect([res.status, res.body.state, res.body.status]).toEqual([202, "exited", 0]);
    const waiting: number[] = [];
    await control.settled((n) => waiting.push(n));
    expect([waiting, warnings]).toEqual([[], []]);
  });

  it("a run removed during the grace: its kill ends there, without a warning", async () => {
    const { id } = await stubborn();
    expect((await post(`/api/runs/${id}/kill`, { signal: "TERM", graceMs: 600_000 })).status).toBe(202);
    rmSync(join(w.ws, ".ariel/runs", id), { recursive: true, force: true });
    await control.settled();
    expect(warnings).toEqual([]);
  });

  it("a run whose record cannot be read during the grace: the server is warned, with the run", async () => {
    const { id } = await stubborn();
    expect((await post(`/api/runs/${id}/kill`, { signal: "TERM", graceMs: 600_000 })).status).toBe(202);
    const good = readFileSync(runFile(id, "run.json"), "utf8");
    writeFileSync(runFile(id, "run.json"), "{");
    await control.settled();
    writeFileSync(runFile(id, "run.json"), good);
    expect(warnings).toEqual([[`kill of run ${id}: ${runFile(id, "run.json")}: not valid JSON`, id]]);
  });

  it("a group that outlives SIGKILL (its leader a zombie: the monitor is stopped): the server is warned", async () => {
    const { id, pgid } = await stubborn();
    const monitor = monitorPid();
    process.kill(monitor, "SIGSTOP");
    try {
      expect((await post(`/api/runs/${id}/kill`, { signal: "KILL", graceMs: 0 })).status).toBe(202);
      await control.settled();
      expect([alive(pgid, true), warnings]).toEqual([
        true,
        [[`run ${id} did not end after SIGKILL; check its processes (ps -g PGID)`, id]],
      ]);
    } finally {
      process.kill(monitor, "SIGCONT");
    }
    await until(() => readRecord(id, "exit.json") !== null, "the run's exit record", 15_000);
  });
});

describe("input and respawn", () => {
  it("input to an interactive run: 200, and the run reads it", async () => {
    const { runId } = await started({
      argv: ["sh", "-c", "read l; echo got:$l"],
      interactive: true,
      shared: true,
    });
    expect(lastStart().req.detach.interactive).toBe(true);
    const res = await post(`/api/runs/${runId}/input`, { data: "hi\n" });
    expect(res).toEqual({ status: 200, body: { v: 1, type: "ok", runId } });
    await until(() => stdoutOf(runId) === "got:hi\n", "the run to read its input", 15_000);
  });

  it("respawn of an ended run: 201 with the new run, the same command in the fleet's environment", async () => {
    const old = await started({ argv: ["sh", "-c", "echo once $FLEET_MARK"], name: "again", shared: true });
    await until(() => readRecord(old.runId, "exit.json") !== null, "the run's end", 15_000);
    const res = await post(`/api/runs/${old.runId}/respawn`, { graceMs: 0 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: "detached",
      name: "again",
      respawnOf: old.runId,
      group: old.group,
    });
    expect(res.body.runId).not.toBe(old.runId);
    await until(() => stdoutOf(res.body.runId) === "once from-the-fleet\n", "the new run's output", 15_000);
    expect(stdoutOf(old.runId)).toBe("once from-the-fleet\n");
  });
});

describe("when the runs are not there to answer", () => {
  const started0 = (status: number) => ({ ok: false, runId: "r", status, code: "ERR_SPAWN", message: "x" });
  it.each([
    [
      "a run the monitor refused unrecorded",
      { kind: "started", planned: [], results: [started0(127)], views: [] },
      127,
    ],
    ["no run at all", { kind: "started", planned: [], results: [], views: [] }, 125],
    ["a plan", { kind: "plan", planned: [], tasks: [] }, 125],
  ])("%s: 500 ERR_SPAWN with the start's status", async (_n, answer, exit) => {
    vi.mocked(host.startDetached).mockResolvedValueOnce(answer as never);
    const res = await post(`/api/workspaces/${w.known.hash}/runs`, { argv: ["true"], shared: true });
    const status = exit === 127 ? 127 : 0;
    expect(res).toEqual({
      status: 500,
      body: {
        v: 1,
        type: "error",
        code: "ERR_SPAWN",
        message: `the run did not start (status ${status})`,
        hint: "the command could not be started",
        exit,
      },
    });
  });

  it("a run gone when its view is read after the kill: 404 ERR_RUN_NOT_FOUND", async () => {
    const { runId } = await started({ argv: ["true"], shared: true });
    await until(() => readRecord(runId, "exit.json") !== null, "the run's end", 15_000);
    const real = vi.mocked(host.loadRun).getMockImplementation()!;
    vi.mocked(host.loadRun).mockImplementationOnce(real).mockResolvedValueOnce(null);
    const res = await post(`/api/runs/${runId}/kill`, {});
    expect(res).toEqual({
      status: 404,
      body: {
        v: 1,
        type: "error",
        code: "ERR_RUN_NOT_FOUND",
        message: `run ${runId} is gone`,
        hint: "run ariel-runs list --all to see the runs",
        exit: 66,
        runId,
      },
    });
  });
});
