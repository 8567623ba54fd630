/**
 * Helpers for the background-run tests: a workspace that is a real git checkout, the CLIs run
 * with a short monitor idle time, and a clean-up that kills every process a test started (the
 * runs' process groups and the monitors), so nothing outlives the test run.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CliName,
  type CliOptions,
  type CliResult,
  cliCommand,
  type Runtime,
  records,
  runAriel,
  testStateHome,
} from "./helpers/cli.ts";
import { initRepo, removeDir, tempDir } from "./helpers/git.ts";
import { watchJsonLines } from "./helpers/json_lines.ts";

export const NODE = process.execPath;
/** Monitors of tests exit after this much idle time. */
export const TEST_ENV = { ARIEL_MONITOR_IDLE_MS: "1500" };

const roots: string[] = [];
let runtime: Runtime = "node";

/** Run the CLIs under this runtime from now on (the Deno suite calls it with "deno"). */
export function useRuntime(r: Runtime): void {
  runtime = r;
}
const pids = new Set<number>();

/** A fresh workspace (a git checkout with one commit), cleaned up by {@link cleanUp}. */
export function runsWorkspace(): string {
  const root = tempDir("ariel-runs-");
  initRepo(root);
  roots.push(root);
  return root;
}

/**
 * A fresh multi-repo workspace: a plain directory holding one committed repository per name
 * (not itself a checkout), cleaned up by {@link cleanUp} like {@link runsWorkspace}; with
 * `marked`, also a `.ariel/` (as an earlier ariel command leaves it).
 */
export function multiRepoWorkspace(
  names: readonly string[],
  root = tempDir("ariel-runs-"),
  { marked = false }: { marked?: boolean } = {},
): string {
  for (const n of names) initRepo(join(root, n), { "README.md": `${n}\n` });
  if (marked) mkdirSync(join(root, ".ariel"));
  roots.push(root);
  return root;
}

/** Remember a process (group leader) the test started itself, to kill it in clean-up. */
export function track(pid: number): void {
  pids.add(pid);
}

export function spawnD(root: string, args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return runAriel("spawn", ["-C", root, "--detach", ...args], {
    runtime,
    ...options,
    env: { ...TEST_ENV, ...options.env },
  });
}

export function runs(root: string, args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const [cmd, ...rest] = args;
  return runAriel("runs", [cmd ?? "", "-C", root, ...rest], {
    runtime,
    ...options,
    env: { ...TEST_ENV, ...options.env },
  });
}

/**
 * Start one detached run and return its `run` record (asserting that it started). Runs without
 * `--isolate` are started `--shared`: these are fixtures, several at work in one checkout at once
 * (test/spawn-one-place.test.ts checks the refusal without it, through {@link spawnD}).
 */
export async function startRun(root: string, args: readonly string[]): Promise<Record<string, unknown>> {
  const shared = args.includes("--isolate") || args.includes("--backend") ? [] : ["--shared"];
  const r = await spawnD(root, ["--json", ...shared, ...args]);
  if (r.code !== 0) throw new Error(`spawn --detach failed (${r.code}): ${r.stderr}`);
  const [rec] = records(r.stdout);
  return rec as Record<string, unknown>;
}

/**
 * The `--json` error record of `ariel-worktree remove` refused because run `runId` is still at
 * work (`running`) in leg `source` of task `task` (decision 0054).
 */
export function inUseError(task: string, runId: string, source: string): Record<string, unknown> {
  return {
    v: 1,
    type: "error",
    code: "ERR_LEASE_HELD",
    message: `task "${task}" is in use by run ${runId} (running in leg "${source}"); nothing was removed`,
    hint: `wait for it (ariel-runs wait ${runId}) or stop it (ariel-runs kill ${runId}), then retry`,
    exit: 75,
    task,
    runId,
    state: "running",
    source,
  };
}

/** A CLI started by {@link startCli}: the process, its output so far, and its exit code. */
export interface LiveCli {
  p: ReturnType<typeof spawn>;
  io: { out: string; err: string };
  done: Promise<number | null>;
}

/**
 * Start `ariel-<name> ...args` under the current runtime as the leader of a new session (as a
 * terminal's shell would), tracked for clean-up, collecting its output as it comes.
 */
export function startCli(name: CliName, args: readonly string[], env: Record<string, string> = {}): LiveCli {
  const [exe, ...pre] = cliCommand(name, runtime);
  const p = spawn(exe!, [...pre, ...args], {
    env: { ...process.env, NO_COLOR: "1", ARIEL_STATE_HOME: testStateHome(), ...TEST_ENV, ...env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  watchJsonLines(p, `ariel-${name}`, args);
  track(p.pid!);
  const io = { out: "", err: "" };
  p.stdout!.on("data", (b: Buffer) => {
    io.out += b.toString();
  });
  p.stderr!.on("data", (b: Buffer) => {
    io.err += b.toString();
  });
  // A CLI that hangs fails its test (killed, code null) instead of hanging the suite.
  const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
  const done = new Promise<number | null>((resolve) =>
    p.on("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { p, io, done };
}

export function runDir(root: string, runId: string): string {
  return join(root, ".ariel/runs", runId);
}

// biome-ignore lint/suspicious/noExplicitAny: parsed test fixtures, checked by the assertions
export function readJson(path: string): Record<string, any> {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** The run's event history (`.ariel/runs/<runId>.ndjson`), parsed. */
export function runHistory(root: string, runId: string): Record<string, unknown>[] {
  return readFileSync(join(root, ".ariel/runs", `${runId}.ndjson`), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Test hooks that make the monitor say `ariel-test-paused POINT PID` in monitor.log each time it
 * passes POINT, without waiting there (the release file exists before it starts).
 */
export function countedHooks(root: string, point: string): Record<string, string> {
  const release = join(root, ".ariel-test-release");
  writeFileSync(release, "");
  return { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_PAUSE_AT: point, ARIEL_TEST_RELEASE_FILE: release };
}

/** How many times the workspace's monitors passed `point` so far (see {@link countedHooks}). */
export function passes(root: string, point: string): number {
  const log = join(root, ".ariel/monitor.log");
  return existsSync(log) ? readFileSync(log, "utf8").split(`ariel-test-paused ${point} `).length - 1 : 0;
}

export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A run's history events, once its monitor appended `run.finished` (its last write, after the exit is recorded). */
export async function finishedHistory(root: string, runId: string): Promise<Record<string, unknown>[]> {
  const read = () =>
    readFileSync(join(root, ".ariel/runs", `${runId}.ndjson`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  await until(() => read().some((e) => e.event === "run.finished"));
  return read();
}

function startTime(pid: number): string | null {
  try {
    const t = readFileSync(`/proc/${pid}/stat`, "utf8");
    return t.slice(t.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function killGroup(pgid: number, start: string | null): void {
  if (start !== null && startTime(pgid) !== null && startTime(pgid) !== start) return; // not ours
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {}
}

/** Kill every run's group and every monitor of the test workspaces, then remove them. */
export function cleanUp(): void {
  for (const root of roots.splice(0)) {
    const dir = join(root, ".ariel/runs");
    for (const id of existsSync(dir) ? readdirSync(dir) : []) {
      try {
        const rec = readJson(join(dir, id, "run.json"));
        if (rec.child) killGroup(rec.child.pgid, rec.child.startTime);
        if (rec.monitor && startTime(rec.monitor.pid) === rec.monitor.startTime)
          process.kill(rec.monitor.pid, "SIGKILL");
      } catch {}
    }
    try {
      const m = readJson(join(root, ".ariel/monitor.json"));
      if (startTime(m.pid) === m.startTime) process.kill(m.pid, "SIGKILL");
    } catch {}
    removeDir(root);
  }
  for (const pid of pids) killGroup(pid, null);
  pids.clear();
}

/**
 * Make an ended run look as if its pids had been reused: its run.json names a foreign `sleep`
 * (started here, tracked for clean-up) as child and monitor, with another start time, and its
 * exit.json is gone. Returns the foreign pid.
 */
export function reusePid(root: string, runId: string): number {
  const foreign = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  const pid = foreign.pid!;
  track(pid);
  const path = join(runDir(root, runId), "run.json");
  const doctored = readJson(path);
  doctored.child = { pid, pgid: pid, startTime: "1" };
  doctored.monitor = { ...doctored.monitor, pid, startTime: "1" };
  doctored.exit = null;
  doctored.endedAt = null;
  writeFileSync(path, JSON.stringify(doctored));
  rmSync(join(runDir(root, runId), "exit.json"));
  return pid;
}
