/**
 * A detached run with --sandbox under a monitor served in this process (sandbox.ts): its command
 * wrapped in bubblewrap (ARIEL_SANDBOX inside, only its writable paths writable), its bubblewrap
 * recorded for a later sync, its own monitor socket answering only ping and report while it
 * runs and closed at its end, `sandbox.synced` before `run.finished`; a sandbox that cannot be
 * made ends the run (its ariel error, its status); a run without --sandbox gets none of it.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { sandboxPaths } from "../../../sandbox/paths.ts";
import { stateDir } from "../../../state_paths.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { sandboxSocketPath } from "../../sandbox/launch.ts";
import { makeRoot } from "../../worktree/_fixture.ts";
import { REPORT_ENV } from "../protocol.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import {
  CHILD_PATH,
  ended,
  history,
  type LiveMonitor,
  newRunId,
  pinned,
  plannedRun,
  startRuns,
  useServedMonitor,
  useStateHome,
} from "./_monitor_fixture.ts";
import { newActive } from "./context.ts";
import { SANDBOX_OPS, sandboxed as sandboxedStart } from "./sandbox.ts";

const hasBwrap = (process.env.PATH ?? "")
  .split(":")
  .some((d) => d.startsWith("/") && existsSync(`${d}/bwrap`));

useStateHome("ariel-sandbox-home-");

let l: LiveMonitor;
let api: string;
const logged = captureMonitorLog();
useServedMonitor(
  () => realpathSync(makeRoot(["api"])),
  (m) => {
    l = m;
    api = join(l.root, "api");
  },
);

const sandboxed = (runId: string, argv: string[], over: Partial<PlannedRun> = {}) =>
  plannedRun(l, runId, {
    source: "api",
    cwd: api,
    argv,
    sandbox: { write: [api], hide: [], net: "none" },
    ...over,
  });

/** One request line to the unix socket at `path`; its reply, or the connect error's code. */
function askAt(path: string, line: string): Promise<unknown> {
  return new Promise((resolve) => {
    const s = connect(path);
    let buf = "";
    s.setEncoding("utf8");
    s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code));
    s.on("data", (t: string) => {
      buf += t;
      if (!buf.includes("\n")) return;
      s.destroy();
      resolve(JSON.parse(buf.slice(0, buf.indexOf("\n"))));
    });
    s.write(`${line}\n`);
  });
}

describe("sandbox ops", () => {
  it("a sandboxed run's own socket answers ping and report only", () => {
    expect([...SANDBOX_OPS]).toEqual(["ping", "report"]);
  });
});

describe.skipIf(!hasBwrap)("a sandboxed run", () => {
  it("in its sandbox: its own socket while it runs, closed at its end; synced before run.finished", async () => {
    const runId = newRunId();
    const script =
      'echo "$ARIEL_SANDBOX"; echo w > inside.txt; touch ../outside.txt; while [ ! -e go ]; do sleep 0.02; done';
    const [result] = await startRuns(l, [sandboxed(runId, ["sh", "-c", script])]);
    const child = (result as { child: { pid: number } }).child;
    const own = sandboxSocketPath(l.root, runId);
    expect(await askAt(own, '{"v":1,"op":"ping"}')).toEqual({ v: 1, ok: true, pid: process.pid });
    expect(await askAt(own, '{"v":1,"op":"create","runs":[]}')).toEqual({
      v: 1,
      ok: false,
      code: "ERR_SANDBOXED",
      message: 'a sandboxed run may not ask "create"',
    });
    expect(JSON.parse(readFileSync(sandboxPaths(l.root, runId).child, "utf8"))).toEqual({
      pid: child.pid,
      startTime: expect.stringMatching(/^\d+$/),
    });
    writeFileSync(join(api, "go"), "");
    expect(await ended(l, runId)).toBe(true);
    expect(await askAt(own, '{"v":1,"op":"ping"}')).toMatch(/^(ENOENT|ECONNREFUSED)$/);
    expect(readFileSync(runPaths(l.root, runId).stdout, "utf8")).toBe("1\n");
    expect(readFileSync(runPaths(l.root, runId).stderr, "utf8")).toBe(
      "touch: cannot touch '../outside.txt': Read-only file system\n",
    );
    expect([existsSync(join(api, "inside.txt")), existsSync(join(l.root, "outside.txt"))]).toEqual([
      true,
      false,
    ]);
    const events = pinned(history(l.root, runId).slice(2)) as Record<string, unknown>[];
    expect(events.map((e) => e.event)).toEqual(["process.exited", "sandbox.synced", "run.finished"]);
    expect(events[1]).toEqual({
      v: 1,
      type: "event",
      event: "sandbox.synced",
      runId,
      ts: "<time>",
      source: "api",
      sandbox: runId,
      finished: true,
      repos: [{ common: join(api, ".git"), objects: 0, moved: [], kept: [], missing: [] }],
    });
    expect(logged).toEqual([]);
  });

  it("a sandbox that cannot be made: the run ended with its error and status, its socket closed", async () => {
    const runId = newRunId();
    const [result] = await startRuns(l, [sandboxed(runId, ["true"], { cwd: l.root, source: null })]);
    const message = `${l.root} is not a git checkout: a sandbox needs one`;
    expect(result).toEqual({ runId, ok: false, status: 66, code: "ERR_NOT_A_CHECKOUT", message });
    expect(await ended(l, runId)).toBe(true);
    expect(readFileSync(runPaths(l.root, runId).stderr, "utf8")).toBe(`ariel: ${message}\n`);
    expect(history(l.root, runId).map((e) => e.event)).toEqual(["run.started", "run.finished"]);
    expect(await askAt(sandboxSocketPath(l.root, runId), '{"v":1,"op":"ping"}')).toMatch(
      /^(ENOENT|ECONNREFUSED)$/,
    );
  });
});

describe.skipIf(!hasBwrap)("sandboxed: a child's start in its sandbox", () => {
  // A run wired for its agent's reports reports inside to the run's own socket (where the
  // workspace's is), and the reporter's program (under /tmp here) is kept visible; an unwired
  // run's environment is left as it is, and the reporter is not asked for.
  let cliDir = "";
  const fakeCli = () => join(cliDir, "fake-cli.cjs");
  const argv1 = process.argv[1];
  beforeEach(() => {
    cliDir = realpathSync(tempDir("ariel-sandbox-cli-"));
  });
  afterEach(() => {
    process.argv[1] = argv1 as string;
    removeDir(cliDir);
  });
  it.each([
    ["wired", true],
    ["not wired", false],
  ])("%s", async (_name, wired) => {
    writeFileSync(fakeCli(), "");
    process.argv[1] = fakeCli();
    const runId = newRunId();
    mkdirSync(runPaths(l.root, runId).dir, { recursive: true });
    const a = newActive(runId, {});
    const env: Record<string, string> = {
      PATH: CHILD_PATH,
      ...(wired ? { [REPORT_ENV.socket]: l.socket } : {}),
    };
    try {
      const s = await sandboxedStart(l.m, a, sandboxed(runId, ["true"]), { argv: ["true"], env, files: [] });
      expect(s.env).toEqual({
        PATH: CHILD_PATH,
        ...(wired ? { [REPORT_ENV.socket]: `${stateDir(l.root)}/monitor.sock` } : {}),
      });
      expect(env[REPORT_ENV.socket]).toBe(wired ? l.socket : undefined);
      expect([s.argv.includes(fakeCli()), s.argv.at(-1), a.sandboxSocket?.path]).toEqual([
        wired,
        "true",
        sandboxSocketPath(l.root, runId),
      ]);
    } finally {
      a.sandboxSocket?.server.close();
    }
  });
});

describe("a run without --sandbox", () => {
  it("no sandbox, no socket of its own, no sync", async () => {
    const runId = newRunId();
    await startRuns(l, [
      plannedRun(l, runId, { source: "api", cwd: api, argv: ["sh", "-c", 'echo "[$ARIEL_SANDBOX]"'] }),
    ]);
    expect(await ended(l, runId)).toBe(true);
    expect(readFileSync(runPaths(l.root, runId).stdout, "utf8")).toBe("[]\n");
    expect([
      existsSync(sandboxPaths(l.root, runId).dir),
      existsSync(sandboxSocketPath(l.root, runId)),
    ]).toEqual([false, false]);
    expect(history(l.root, runId).map((e) => e.event)).toEqual([
      "run.started",
      "process.started",
      "process.exited",
      "run.finished",
    ]);
    expect(logged).toEqual([]); // no sandbox child recorded, none to sync
  });
});
