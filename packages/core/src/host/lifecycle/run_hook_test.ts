/**
 * One hook as a real process: its status and shell-style exit for each way it can end, its
 * output in the log and line by line, its working directory and environment, the group it
 * leaves behind, and the hooks that never start.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processGone, removeDir, tempDir } from "../_fixture.ts";
import { type HookSpec, runHook } from "./run_hook.ts";

let dir: string;
let wt: string;
let log: string;
beforeEach(() => {
  dir = tempDir("ariel-run-hook-");
  wt = join(dir, "wt");
  mkdirSync(wt);
  log = join(dir, "hooks.log");
});
afterEach(() => removeDir(dir));

const PATH = process.env.PATH ?? "/usr/bin:/bin";

/** Run `script` with sh in the worktree; the lines it printed beside the result. */
async function sh(script: string, more: Partial<HookSpec> = {}) {
  const lines: string[] = [];
  const run = await runHook({
    argv: ["sh", "-c", script],
    cwd: wt,
    env: { PATH },
    timeoutMs: 30_000,
    log,
    onLine: (l) => lines.push(l),
    ...more,
  });
  return { run, lines };
}

const logText = () => readFileSync(log, "utf8");

describe("runHook", () => {
  it("a hook that exits 0 is ok; its output is in the log as written and handed out line by line", async () => {
    const { run, lines } = await sh("printf 'one\\ntwo\\n'; printf 'last'");
    expect(run).toMatchObject({ status: "ok", exit: 0, signal: null });
    expect(run.error).toBeUndefined();
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
    expect(lines).toEqual(["one", "two", "last"]);
    expect(logText()).toBe("one\ntwo\nlast");
  });

  it("stderr is logged and handed out like stdout", async () => {
    const { run, lines } = await sh("echo to-err >&2");
    expect(run.status).toBe("ok");
    expect(lines).toEqual(["to-err"]);
    expect(logText()).toBe("to-err\n");
  });

  it("a hook that exits non-zero has failed, with its code", async () => {
    const { run, lines } = await sh("echo before; exit 3");
    expect(run).toMatchObject({ status: "failed", exit: 3, signal: null });
    expect(lines).toEqual(["before"]);
  });

  it("a hook killed by a signal has failed with 128+N and the signal's name", async () => {
    const { run } = await sh("kill -TERM $$");
    expect(run).toMatchObject({ status: "failed", exit: 143, signal: "SIGTERM" });
  });

  it("runs in the worktree with exactly the environment given", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    const { run, lines } = await sh('pwd; echo "[$HOOK_VALUE]"; echo "[${HOME-unset}]"', {
      env: { PATH, HOOK_VALUE: "a b" },
    });
    expect(run.status).toBe("ok");
    expect(lines).toEqual([realpathSync(wt), "[a b]", "[unset]"]);
  });

  it("takes its argv as it is: no shell of ours reads it", async () => {
    const { run } = await sh("", { argv: ["touch", "a;b", "$(x)"] });
    expect(run.status).toBe("ok");
    expect(existsSync(join(wt, "a;b"))).toBe(true);
    expect(existsSync(join(wt, "$(x)"))).toBe(true);
    expect(existsSync(join(wt, "b"))).toBe(false);
  });

  it("appends to the log: what was there stays", async () => {
    await sh("echo first");
    await sh("echo second");
    expect(logText()).toBe("first\nsecond\n");
  });

  it("past its time the group gets SIGTERM: timeout, 143", async () => {
    // Time enough for the shell to start and print on a loaded machine.
    const { run, lines } = await sh("echo started; sleep 30", { timeoutMs: 1500 });
    expect(run).toMatchObject({ status: "timeout", exit: 143, signal: "SIGTERM" });
    expect(run.durationMs).toBeGreaterThanOrEqual(1500);
    expect(lines).toEqual(["started"]);
  });

  it("a hook that ignores SIGTERM gets SIGKILL after the grace", { timeout: 20_000 }, async () => {
    const { run } = await sh("trap '' TERM; echo ready; while :; do sleep 0.1; done", {
      timeoutMs: 1500,
    });
    expect(run).toMatchObject({ status: "timeout", exit: 137, signal: "SIGKILL" });
  });

  it("what the hook left running in its group gets SIGTERM when the hook exits", async () => {
    const pidFile = join(dir, "bg.pid");
    const { run } = await sh(`sleep 30 >/dev/null 2>&1 & echo $! > '${pidFile}'`);
    expect(run.status).toBe("ok");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(await processGone(pid)).toBe(true);
  });

  it("a child that keeps the pipes open does not hold the hook past its exit", async () => {
    const { run } = await sh("sleep 30 & exit 0");
    expect(run.status).toBe("ok");
    expect(run.durationMs).toBeLessThan(30_000);
  });

  it("a missing worktree: not started, 125, said in the log; nothing runs", async () => {
    const gone = join(dir, "gone");
    const { run, lines } = await sh(`touch '${join(dir, "ran")}'`, { cwd: gone });
    expect(run).toEqual({
      status: "not-started",
      exit: 125,
      signal: null,
      durationMs: 0,
      error: `the worktree ${gone} is missing`,
    });
    expect(lines).toEqual([]);
    expect(logText()).toBe(`the worktree ${gone} is missing\n`);
    expect(existsSync(join(dir, "ran"))).toBe(false);
  });

  it("a worktree path that is a file is missing too", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    const { run } = await sh("true", { cwd: file });
    expect(run.status).toBe("not-started");
    expect(run.exit).toBe(125);
  });

  it("a command that is not found: not started, 127, said in the log", async () => {
    const { run } = await sh("", { argv: ["ariel-no-such-command-here", "x"] });
    expect(run).toMatchObject({
      status: "not-started",
      exit: 127,
      signal: null,
      error: "command not found: ariel-no-such-command-here",
    });
    expect(logText()).toBe("command not found: ariel-no-such-command-here\n");
  });

  it("a log that cannot be written never fails the hook", async () => {
    const { run, lines } = await sh("echo fine", { log: join(dir, "no", "such", "dir.log") });
    expect(run.status).toBe("ok");
    expect(lines).toEqual(["fine"]);
  });
});
