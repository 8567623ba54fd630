import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ReconcileStep } from "@ariel/core";
import { withLease } from "@ariel/core/host";
import { describe, expect, it } from "vitest";
import { git, initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records } from "../../../core/src/host/cli/_fixture.ts";
import { stealLease } from "../../../core/src/host/worktree/_fixture.ts";
import { command } from "../command.ts";
import { stepRow } from "./reconcile.ts";

// `ariel-worktree reconcile` in this process (docs/durability.md, Reconcile): its rows and
// records, what it says on a terminal, what it leaves alone, a busy task and a step that fails.
// The rows of each kind of step are in reconcile_test.ts.

const TERMINAL = { stdout: true, stderr: false, columns: 120, color: false };

/** A workspace with api; with `vanished`, task t1 whose leg's directory was deleted. */
async function world(o: { vanished?: boolean } = {}) {
  const ws = tempDir("ariel-wt-rc-");
  initRepo(join(ws, "api"));
  const w = inWorkspace(command, ws);
  if (o.vanished) {
    await w(["add", "--task", "t1", "--source", "api"]);
    rmSync(join(ws, ".ariel/worktrees/t1/api"), { recursive: true, force: true });
  }
  return { ws, w };
}

/** The plan of t1 once its leg's directory vanished, as rows in a pipe. */
const PLAN =
  "prune\tt1\t<ws>/.ariel/worktrees/t1/api\t<ws>/api/.git/worktrees/api\n" +
  "remove-dir\tt1\t<ws>/.ariel/worktrees/t1\t-\n" +
  "mark-leg\tt1\t<ws>/.ariel/worktrees/t1/api\tactive -> unknown (task unknown)\n";

describe("reconcile: what it prints", () => {
  it.each([
    [["reconcile"], 'ariel-worktree: nothing to reconcile in "<ws>"\n'],
    [["reconcile", "-n"], 'ariel-worktree: nothing to reconcile in "<ws>"\n'],
    [["reconcile", "--json"], ""],
  ])("%j with nothing to do on a terminal: 0, says so unless --json", async (argv, stderr) => {
    const { w } = await world();
    expect(await w(argv, { term: TERMINAL })).toEqual({ code: 0, stdout: "", stderr });
  });

  it("steps on a terminal: a table with its header, no 'nothing' line", async () => {
    const { w } = await world({ vanished: true });
    const r = await w(["reconcile", "-n"], { term: TERMINAL });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    // The columns are padded to the temporary root's length: compare cell by cell.
    expect(r.stdout.split("\n").map((l) => l.split(/ {2,}/))).toEqual([
      ["FIX", "TASK", "TARGET", "DETAIL"],
      ["prune", "t1", "<ws>/.ariel/worktrees/t1/api", "<ws>/api/.git/worktrees/api"],
      ["remove-dir", "t1", "<ws>/.ariel/worktrees/t1", "-"],
      ["mark-leg", "t1", "<ws>/.ariel/worktrees/t1/api", "active -> unknown (task unknown)"],
      [""],
    ]);
  });

  it("--json: a plan record per step applied, and no rows", async () => {
    const { w } = await world({ vanished: true });
    const r = await w(["reconcile", "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(records(r.stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "worktree.reconcile",
        task: "t1",
        fix: "prune",
        repo: "<ws>/api",
        path: "<ws>/.ariel/worktrees/t1/api",
        adminDir: "<ws>/api/.git/worktrees/api",
      },
      {
        v: 1,
        type: "plan",
        action: "worktree.reconcile",
        task: "t1",
        fix: "remove-dir",
        path: "<ws>/.ariel/worktrees/t1",
      },
      {
        v: 1,
        type: "plan",
        action: "worktree.reconcile",
        task: "t1",
        fix: "mark-leg",
        source: "api",
        path: "<ws>/.ariel/worktrees/t1/api",
        from: "active",
        to: "unknown",
        taskState: "unknown",
      },
    ]);
  });

  it("a step of a kind this version does not know: its path, and '-' for detail", () => {
    const step = { fix: "from-the-future", task: "t1", path: "/w/x" } as unknown as ReconcileStep;
    expect(stepRow(step)).toEqual(["from-the-future", "t1", "/w/x", "-"]);
  });
});

describe("reconcile: what it leaves alone or cannot do", () => {
  it("a worktree under the root that someone else locked: a warning, then the closing 'kept' line", async () => {
    const { ws, w } = await world();
    const other = join(ws, ".ariel/worktrees/zz/api");
    git(join(ws, "api"), "worktree", "add", "-q", "-b", "other", other);
    git(join(ws, "api"), "worktree", "lock", "--reason", "other tool", other);
    const warning =
      'worktree <ws>/.ariel/worktrees/zz/api is locked by someone else ("other tool"); left alone';
    expect(await w(["reconcile"])).toEqual({
      code: 0,
      stdout: "",
      stderr:
        `ariel-worktree: warning: ${warning}\n` +
        "ariel-worktree: kept 1 for you to look at: <ws>/.ariel/worktrees/zz/api (W_NOT_OURS); each warning above says why\n",
    });
    expect(records((await w(["reconcile", "--json"])).stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "W_NOT_OURS",
        message: warning,
        path: "<ws>/.ariel/worktrees/zz/api",
        repo: "<ws>/api",
      },
    ]);
  });

  it("a task another live process holds: skipped with W_TASK_BUSY, 75, nothing changed; -n plans it as usual", async () => {
    const { ws, w } = await world({ vanished: true });
    await withLease(ws, "t1", { owner: "other" }, async () => {});
    stealLease(ws, "t1");
    const busy = {
      code: 75,
      stdout: "",
      stderr: "ariel-worktree: warning: task t1 is leased by a live process; skipped (retry later)\n",
    };
    expect(await w(["reconcile"])).toEqual(busy);
    expect(records((await w(["reconcile", "--json"])).stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "W_TASK_BUSY",
        message: "task t1 is leased by a live process; skipped (retry later)",
        task: "t1",
      },
    ]);
    expect(await w(["reconcile", "-n"])).toEqual({ code: 0, stdout: PLAN, stderr: "" });
    expect(await w(["reconcile"])).toEqual(busy);
  });

  it("a directory that gained a file before its rmdir: refused (3), kept as it is; the error names step and task", async () => {
    const { ws, w } = await world({ vanished: true });
    const dir = join(ws, ".ariel/worktrees/t1");
    const stray = join(dir, "stray.txt");
    // Written as the prune is told, before the task directory is removed: rmdir then fails.
    const onStdout = (t: string) => {
      if (t.includes('"fix":"prune"')) writeFile(stray, "x\n");
    };
    const r = await w(["reconcile", "--json"], { onStdout });
    expect(r.code).toBe(3);
    expect(records(r.stdout).map((s) => s.fix)).toEqual(["prune", "mark-leg"]);
    expect(records(r.stderr)).toEqual([
      {
        v: 1,
        type: "error",
        code: "ERR_REFUSED",
        exit: 3,
        message: '"<ws>/.ariel/worktrees/t1" gained content since it was planned: kept',
        hint: "look at what is in it, move it away or remove it yourself, then run ariel-worktree reconcile again",
        path: "<ws>/.ariel/worktrees/t1",
        step: "remove-dir",
        task: "t1",
      },
    ]);
    expect(readFileSync(stray, "utf8")).toBe("x\n");
    expect(await w(["reconcile", "-n"])).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});
