import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// ariel-spawn's command run in this process on a real workspace of two checkouts, alpha and
// beta: foreground runs in the checkouts and in worktrees of their own, their output, statuses,
// summaries and histories. The bundled bin's cases are in test/spawn*.test.ts.
let ws: string;
let head: string;

beforeAll(() => {
  ws = tempDir("ariel-spawn-cmd-");
  head = initRepo(join(ws, "alpha"));
  initRepo(join(ws, "beta"));
});
afterAll(() => removeDir(ws));

const spawn = (argv: string[]) => runInProcess(command, ["-C", ws, ...argv], { cwd: ws });

/** The events of the history a summary line names. */
function historyOf(stderr: string): Record<string, unknown>[] {
  const m = /history: (\.ariel\/runs\/\S+\.ndjson)/.exec(stderr);
  if (!m) throw new Error(`no history in ${JSON.stringify(stderr)}`);
  return readFileSync(join(ws, m[1] as string), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
}

function newestHistory(): Record<string, unknown>[] {
  const files = readdirSync(join(ws, ".ariel/runs"))
    .filter((f) => f.endsWith(".ndjson"))
    .sort();
  return readFileSync(join(ws, ".ariel/runs", files.at(-1) as string), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe("ariel-spawn (in-process)", () => {
  it("one source: the child's output as it is, status 0, and a history of what happened", async () => {
    const r = await spawn(["--source", "alpha", "--", "sh", "-c", "echo hi; echo err >&2"]);
    expect(r).toEqual({ code: 0, stdout: "hi\n", stderr: "err\n" });
    const h = newestHistory();
    expect(h.map((e) => e.event)).toEqual([
      "run.started",
      "process.started",
      "output",
      "output",
      "process.exited",
      "run.finished",
    ]);
    expect(h[0]).toMatchObject({
      argv: ["sh", "-c", "echo hi; echo err >&2"],
      targets: ["alpha"],
      mode: "shared",
    });
    expect(h[1]).toMatchObject({ source: "alpha", cwd: join(ws, "alpha") });
    expect(h.filter((e) => e.event === "output").map((e) => [e.stream, e.line])).toEqual(
      expect.arrayContaining([
        ["stdout", "hi"],
        ["stderr", "err"],
      ]),
    );
    expect(h[4]).toMatchObject({ code: 0, signal: null, status: 0 });
    expect(h[5]).toMatchObject({ summary: { targets: 1, succeeded: 1, failed: 0, skipped: 0, exit: 0 } });
  });

  it("the child's environment names the source, the workspace and the run", async () => {
    const r = await spawn([
      "--source",
      "beta",
      "--",
      "sh",
      "-c",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion
      'echo "$ARIEL_SOURCE|$ARIEL_WORKSPACE_ROOT|${#ARIEL_WORKSPACE_HASH}|${ARIEL_RUN_ID:+set}"; pwd',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`beta|${ws}|16|set\n${join(ws, "beta")}\n`);
  });

  it("two sources: each line prefixed with its source, names padded to one width", async () => {
    const r = await spawn(["--source", "alpha", "--source", "beta", "-j", "1", "--", "echo", "hi"]);
    expect(r).toEqual({ code: 0, stdout: "[alpha] hi\n[beta]  hi\n", stderr: "" });
  });

  it("--json: every event as an NDJSON record; a failing command fails the run with 1", async () => {
    const r = await spawn([
      "--source",
      "alpha",
      "--source",
      "beta",
      "-j",
      "1",
      "--json",
      "--",
      "sh",
      "-c",
      "exit 3",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    const recs = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(recs.map((e) => [e.event, e.source])).toEqual([
      ["run.started", null],
      ["process.started", "alpha"],
      ["process.exited", "alpha"],
      ["process.started", "beta"],
      ["process.exited", "beta"],
      ["run.finished", null],
    ]);
    expect(recs.every((e) => e.v === 1 && e.type === "event")).toBe(true);
    expect(recs[2]).toMatchObject({ code: 3, signal: null, status: 3 });
    expect(recs[5].summary).toEqual({ targets: 2, succeeded: 0, failed: 2, skipped: 0, exit: 1 });
    expect(recs[0]).toMatchObject({ jobs: 1, failFast: false, targets: ["alpha", "beta"] });
  });

  it("--fail-fast: after the first failure nothing more starts, and the summary says so", async () => {
    const r = await spawn([
      "--source",
      "alpha",
      "--source",
      "beta",
      "-j",
      "1",
      "--fail-fast",
      "--",
      "sh",
      "-c",
      "exit 2",
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^ariel-spawn: 1 of 2 failed: alpha \(exit 2\); 1 not started \(--fail-fast\); history: \.ariel\/runs\/\S+\.ndjson\n$/,
    );
    const h = historyOf(r.stderr);
    expect(h.at(-1)).toMatchObject({ summary: { targets: 2, succeeded: 0, failed: 1, skipped: 1, exit: 1 } });
  });

  it("a single source's status is the child's: a code, 128+N for a signal", async () => {
    const three = await spawn(["--source", "alpha", "--", "sh", "-c", "exit 3"]);
    expect(three.code).toBe(3);
    expect(three.stderr).toMatch(/^ariel-spawn: 1 of 1 failed: alpha \(exit 3\); history: /);
    const killed = await spawn(["--source", "alpha", "--", "sh", "-c", "kill -TERM $$"]);
    expect(killed.code).toBe(143);
    expect(killed.stderr).toMatch(/^ariel-spawn: 1 of 1 failed: alpha \(SIGTERM\); history: /);
    expect(historyOf(killed.stderr).find((e) => e.event === "process.exited")).toMatchObject({
      code: null,
      signal: "SIGTERM",
      status: 143,
    });
  });

  it("a command that is not there: 127, ERR_COMMAND_NOT_FOUND with its hint", async () => {
    const r = await spawn(["--source", "alpha", "--", "no-such-command-here"]);
    expect(r.code).toBe(127);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines.slice(0, 2)).toEqual([
      "ariel-spawn: error: command not found: no-such-command-here [ERR_COMMAND_NOT_FOUND]",
      "ariel-spawn: hint: check the command name and PATH",
    ]);
    expect(lines[2]).toMatch(/^ariel-spawn: 1 of 1 failed: alpha \(exit 127\); history: /);
  });

  it("-n: the plan, one line per source (or a record with --json), nothing run, nothing written", async () => {
    const runs = () =>
      existsSync(join(ws, ".ariel/runs")) ? readdirSync(join(ws, ".ariel/runs")).length : 0;
    const before = runs();
    const r = await spawn(["-n", "--source", "alpha", "--source", "beta", "--", "make", "test"]);
    expect(r).toEqual({
      code: 0,
      stdout: `alpha\t${ws}/alpha\t-\tmake test\nbeta\t${ws}/beta\t-\tmake test\n`,
      stderr: "",
    });
    const j = await spawn(["-n", "--json", "--source", "alpha", "--", "true"]);
    expect(JSON.parse(j.stdout)).toEqual({
      v: 1,
      type: "plan",
      action: "spawn.run",
      source: "alpha",
      cwd: `${ws}/alpha`,
      worktree: null,
      branch: null,
      overlay: [],
      argv: ["true"],
      env: ["ARIEL_WORKSPACE_ROOT", "ARIEL_WORKSPACE_HASH", "ARIEL_SOURCE", "ARIEL_RUN_ID"],
    });
    expect((await spawn(["-n", "--detailed-exitcode", "--source", "alpha", "--", "true"])).code).toBe(2);
    expect(runs()).toBe(before);
  });

  it("an unknown source is refused before anything runs", async () => {
    const r = await spawn(["--source", "gamma", "--", "true"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/gamma/);
    expect(r.stdout).toBe("");
  });

  it("--isolate: the command runs in a worktree of its own on the task's branch, removed when clean", async () => {
    const r = await spawn([
      "--source",
      "alpha",
      "--isolate",
      "--task",
      "t1",
      "--",
      "sh",
      "-c",
      "pwd; git branch --show-current",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${ws}/.ariel/worktrees/t1/alpha\nariel/t1\n`);
    expect(existsSync(join(ws, ".ariel/worktrees/t1/alpha"))).toBe(false);
    expect(git(join(ws, "alpha"), "worktree", "list", "--porcelain")).not.toMatch(/t1/);
  });

  it("--isolate: a worktree with uncommitted work is kept, with the command that removes it safely", async () => {
    const r = await spawn([
      "--source",
      "alpha",
      "--isolate",
      "--task",
      "t2",
      "--",
      "sh",
      "-c",
      "echo x > new.txt",
    ]);
    expect(r.code).toBe(0);
    const wt = join(ws, ".ariel/worktrees/t2/alpha");
    expect(readFileSync(join(wt, "new.txt"), "utf8")).toBe("x\n");
    expect(r.stderr).toContain(
      `ariel-spawn: warning: kept the worktree of "alpha" (dirty): ${wt} has uncommitted changes: new.txt\n`,
    );
    expect(r.stderr).toContain(
      "ariel-spawn: hint: ariel-worktree remove --task t2 --source alpha --snapshot\n",
    );
    expect(r.stderr).toMatch(/kept alpha \(dirty\): ariel-worktree remove --task t2 --snapshot; history: /);
    expect(git(wt, "rev-parse", "HEAD").trim()).toBe(head);
  });
  it("--isolate --span: one task directory holding a leg of each source, the command run there once", async () => {
    const r = await spawn([
      "--source",
      "alpha",
      "--source",
      "beta",
      "--isolate",
      "--span",
      "--task",
      "t5",
      "--",
      "sh",
      "-c",
      "pwd; ls",
    ]);
    expect(r).toMatchObject({ code: 0, stdout: `${ws}/.ariel/worktrees/t5\nalpha\nbeta\n` });
    expect(existsSync(join(ws, ".ariel/worktrees/t5/alpha"))).toBe(false);
  });

  it("--with-changes carries the checkout's uncommitted work into the leg; --keep keeps the leg", async () => {
    const change = join(ws, "alpha/carried.txt");
    writeFileSync(change, "change\n");
    try {
      const r = await spawn([
        "--source",
        "alpha",
        "--isolate",
        "--with-changes",
        "--keep",
        "--task",
        "t6",
        "--",
        "cat",
        "carried.txt",
      ]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("change\n");
      expect(r.stderr).toMatch(/kept alpha \(keep\): ariel-worktree remove --task t6 --snapshot; history: /);
      expect(readFileSync(join(ws, ".ariel/worktrees/t6/alpha/carried.txt"), "utf8")).toBe("change\n");
      // the checkout keeps its own copy: nothing was moved out of it
      expect(readFileSync(change, "utf8")).toBe("change\n");
    } finally {
      rmSync(change);
    }
  });

  it("-j 2: both sources run, each line still under its source", async () => {
    const r = await spawn([
      "--source",
      "alpha",
      "--source",
      "beta",
      "-j",
      "2",
      "--",
      "sh",
      "-c",
      'echo "$ARIEL_SOURCE"',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").sort()).toEqual(["", "[alpha] alpha", "[beta]  beta"]);
  });
});
