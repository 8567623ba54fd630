import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { git, initRepo, removeDir, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { command } from "../command.ts";

// `ariel-worktree restore` in this process on real repositories (docs/worktree.md): removed legs
// made again with their snapshots, its plans, refusals and the post-restore hooks' failures.

const TTY: Terminal = { stdout: true, stderr: false, columns: 120, color: false };
const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) removeDir(d);
});

/** A workspace with api and web (one commit each on main) and task t1 over both; `w` runs a command. */
async function world() {
  const ws = tempDir("ariel-wt-restore-");
  made.push(ws);
  for (const s of ["api", "web"]) initRepo(join(ws, s));
  const w = inWorkspace(command, ws);
  const leg = (source: string) => join(ws, ".ariel/worktrees/t1", source);
  const add = await w(["add", "--task", "t1", "--no-hooks", "--source", "api", "--source", "web"]);
  expect(add.code, add.stderr).toBe(0);
  return { ws, w, leg };
}

/** The user's own (untracked) workspace config with these hooks. */
function hooks(ws: string, h: Record<string, string>): void {
  writeFileSync(join(ws, "ariel.config.json"), `${JSON.stringify({ hooks: h })}\n`);
}

/** The first commit of every repository here (fixed identity and dates). */
const SHA_DIR = tempDir("ariel-wt-restore-sha-");
const INITIAL = initRepo(join(SHA_DIR, "r"));
afterAll(() => removeDir(SHA_DIR));

const ROWS =
  "t1\tapi\trestored\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\trestored\t<ws>/.ariel/worktrees/t1/web\n";

describe("restore: plans", () => {
  it("-n lists only the legs it would bring back, not an active one; nothing left to restore is 0", async () => {
    const { w, leg } = await world();
    expect((await w(["remove", "--task", "t1", "--source", "web"])).code).toBe(0);
    const plan = "restore\tt1\tweb\t-\t<ws>/.ariel/worktrees/t1/web\n";
    expect(await w(["restore", "-n", "--detailed-exitcode", "--task", "t1"])).toEqual({
      code: 2,
      stdout: plan,
      stderr: "",
    });
    expect(records((await w(["restore", "-n", "--json", "--task", "t1"])).stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "worktree.restore",
        task: "t1",
        source: "web",
        branch: "ariel/t1",
        path: "<ws>/.ariel/worktrees/t1/web",
      },
    ]);
    expect(existsSync(leg("web"))).toBe(false);
    expect(await w(["restore", "--task", "t1"])).toEqual({
      code: 0,
      stdout:
        "t1\tapi\tactive\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\trestored\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(await w(["restore", "-n", "--detailed-exitcode", "--task", "t1"])).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
  });

  it("on a terminal: the plan and the result as tables with their headers", async () => {
    const { ws, w, leg } = await world();
    writeFile(join(leg("api"), "new.txt"), "x\n");
    expect((await w(["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    expect(await w(["restore", "-n", "--task", "t1"], { term: TTY })).toEqual({
      code: 0,
      stdout:
        "ACTION   TASK  SOURCE  SNAPSHOT                     PATH\n" +
        "restore  t1    api     refs/ariel/snapshots/t1/api  <ws>/.ariel/worktrees/t1/api\n" +
        "restore  t1    web     -                            <ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(await w(["restore", "--task", "t1"], { term: TTY })).toEqual({
      code: 0,
      stdout:
        "TASK  SOURCE  OUTCOME   PATH\n" +
        "t1    api     restored  <ws>/.ariel/worktrees/t1/api\n" +
        "t1    web     restored  <ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(readFileSync(join(leg("api"), "new.txt"), "utf8")).toBe("x\n");
    expect(git(join(ws, "api"), "worktree", "list", "--porcelain")).toContain("locked ariel:t1");
  });
});

describe("restore: post-restore hooks", () => {
  it("a failing post-restore: the legs stay restored, exit 1, the error names the log and the retry", async () => {
    const { w, ws, leg } = await world();
    expect((await w(["remove", "--task", "t1"])).code).toBe(0);
    hooks(ws, { "post-restore": '[ "$ARIEL_SOURCE" = api ] && exit 3 || true' });
    const r = await w(["restore", "--task", "t1"]);
    expect(r).toEqual({
      code: 1,
      stdout: ROWS,
      stderr:
        `ariel-worktree: error: api: post-restore hook "[ \\"$ARIEL_SOURCE\\" = api ] && exit 3 || true" exited 3 [ERR_HOOK_FAILED]\n` +
        "ariel-worktree: hint: read <ws>/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree hooks run --task t1 --event post-restore\n" +
        "ariel-worktree: restored task t1, but 1 post-restore hook(s) failed; log: <ws>/.ariel/hooks/t1.log\n",
    });
    expect([existsSync(leg("api")), existsSync(leg("web"))]).toEqual([true, true]);
  });

  it("--json: the failure is an error record with the task; the task record on stdout", async () => {
    const { w, ws } = await world();
    expect((await w(["remove", "--task", "t1", "--source", "api"])).code).toBe(0);
    hooks(ws, { "post-restore": "exit 5" });
    const r = await w(["restore", "--task", "t1", "--json"]);
    expect(r.code).toBe(1);
    expect(records(r.stdout)).toEqual([
      expect.objectContaining({ type: "task", taskId: "t1", state: "active" }),
    ]);
    expect(records(r.stderr)).toEqual([
      {
        v: 1,
        type: "error",
        code: "ERR_HOOK_FAILED",
        message: 'api: post-restore hook "exit 5" exited 5',
        hint: "read <ws>/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree hooks run --task t1 --event post-restore",
        exit: 1,
        task: "t1",
        source: "api",
        event: "post-restore",
        file: "<ws>/ariel.config.json",
        status: "failed",
        hookExit: 5,
        log: "<ws>/.ariel/hooks/t1.log",
      },
    ]);
  });

  it("--no-hooks runs none: exit 0; from another directory the retry names the root", async () => {
    const { w, ws } = await world();
    hooks(ws, { "post-restore": 'touch "$ARIEL_WORKSPACE_ROOT/ran"; exit 1' });
    expect((await w(["remove", "--task", "t1"])).code).toBe(0);
    expect(await w(["restore", "--task", "t1", "--no-hooks"])).toEqual({ code: 0, stdout: ROWS, stderr: "" });
    expect(existsSync(join(ws, "ran"))).toBe(false);
    expect((await w(["remove", "--task", "t1", "--no-hooks"])).code).toBe(0);
    const elsewhere = tempDir("ariel-wt-restore-cwd-");
    made.push(elsewhere);
    const r = await w(["restore", "--task", "t1", "--source", "web"], { cwd: elsewhere });
    expect([r.code, r.stdout]).toEqual([1, "t1\tweb\trestored\t<ws>/.ariel/worktrees/t1/web\n"]);
    expect(r.stderr.split("\n")[1]).toBe(
      "ariel-worktree: hint: read <ws>/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree -C <ws> hooks run --task t1 --event post-restore",
    );
    expect(existsSync(join(ws, "ran"))).toBe(true);
  });
});

describe("restore: refusals", () => {
  it("an unknown task (66) or source (66, with a suggestion); a path in the way (73): nothing made", async () => {
    const { ws, w, leg } = await world();
    expect(await w(["restore", "--task", "nope"])).toEqual({
      code: 66,
      stdout: "",
      stderr:
        'ariel-worktree: error: no task "nope" in <ws> [ERR_TASK_NOT_FOUND]\n' +
        "ariel-worktree: hint: run ariel-worktree list --all to see the tasks (closed ones too)\n",
    });
    expect((await w(["remove", "--task", "t1"])).code).toBe(0);
    expect(await w(["restore", "--task", "t1", "--source", "apj"])).toEqual({
      code: 66,
      stdout: "",
      stderr:
        'ariel-worktree: error: task "t1" has no leg for source "apj" [ERR_SOURCE_NOT_FOUND]\n' +
        'ariel-worktree: hint: did you mean "api"? its sources are: api, web\n',
    });
    writeFile(join(leg("api"), "stray.txt"), "x\n");
    expect(await w(["restore", "--task", "t1"])).toEqual({
      code: 73,
      stdout: "",
      stderr:
        "ariel-worktree: error: <ws>/.ariel/worktrees/t1/api exists; cannot restore api there [ERR_EXISTS]\n" +
        "ariel-worktree: hint: move it away, or run ariel-worktree reconcile\n",
    });
    expect(readFileSync(join(leg("api"), "stray.txt"), "utf8")).toBe("x\n");
    expect(existsSync(leg("web"))).toBe(false);
    expect(git(join(ws, "api"), "worktree", "list").split("\n")).toHaveLength(1);
  });

  it("a leg whose branch is gone: 66 with the command that recreates it, no leg made (all checked first)", async () => {
    const { ws, w, leg } = await world();
    expect((await w(["remove", "--task", "t1"])).code).toBe(0);
    git(join(ws, "web"), "branch", "-D", "ariel/t1");
    expect(await w(["restore", "--task", "t1"])).toEqual({
      code: 66,
      stdout: "",
      stderr:
        "ariel-worktree: error: branch ariel/t1 of web is gone; cannot restore [ERR_NOINPUT]\n" +
        `ariel-worktree: hint: recreate it (git -C <ws>/web branch ariel/t1 ${INITIAL}) and retry\n`,
    });
    expect([existsSync(leg("api")), existsSync(leg("web"))]).toEqual([false, false]);
    git(join(ws, "web"), "branch", "ariel/t1", INITIAL);
    expect(await w(["restore", "--task", "t1"])).toEqual({ code: 0, stdout: ROWS, stderr: "" });
  });
});
