import { copyFileSync, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitAll, git, initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { command } from "../command.ts";

// `ariel-worktree export` and `import` in this process on real repositories: a task written to
// one file (its record, its branches and snapshot refs) and made again in another workspace.

const TTY: Terminal = { stdout: true, stderr: false, columns: 120, color: false };

/** A workspace with api (one commit); `w` runs a command in it, its path shown as <ws>. */
function world() {
  const ws = tempDir("ariel-wt-handoff-");
  initRepo(join(ws, "api"));
  const run = inWorkspace(command, ws);
  const w = (...argv: string[]) => run(argv);
  const leg = (task: string, source: string) => join(ws, ".ariel/worktrees", task, source);
  return { ws, w, run, leg };
}

/** Task t1 of api with one commit and, removed with --snapshot, one uncommitted file; exported to <ws>/t1.ariel. */
async function exported() {
  const from = world();
  await from.w("add", "--task", "t1", "--source", "api");
  writeFile(join(from.leg("t1", "api"), "f.txt"), "x\n");
  const head = commitAll(from.leg("t1", "api"), "work");
  writeFile(join(from.leg("t1", "api"), "g.txt"), "y\n");
  await from.w("remove", "--task", "t1", "--snapshot");
  const file = join(from.ws, "t1.ariel");
  const r = await from.w("export", "--task", "t1", "-o", "t1.ariel");
  return { from, file, head, r };
}

/** One export for the imports (they only read the file). */
let once: ReturnType<typeof exported> | undefined;
const exportedOnce = () => {
  once ??= exported();
  return once;
};

describe("export", () => {
  it("-o relative to the cwd; the line counts the file's bytes and refs: the branch and the snapshot", async () => {
    const { file, r } = await exported();
    expect(r).toEqual({
      code: 0,
      stdout: "",
      stderr: `ariel-worktree: wrote task t1 to <ws>/t1.ariel (${statSync(file).size} bytes, 2 refs)\n`,
    });
    expect(readFileSync(file, "latin1").split("\n")[0]).toBe("ariel-task-export 1");
  });

  it("--json: the export record; a task with one ref says so", async () => {
    const { ws, w } = world();
    await w("add", "--task", "t1", "--source", "api");
    const r = await w("export", "--task", "t1", "-o", "out.ariel", "--json");
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(records(r.stdout)).toEqual([
      {
        v: 1,
        type: "export",
        task: "t1",
        file: "<ws>/out.ariel",
        bytes: statSync(join(ws, "out.ariel")).size,
        refs: ["refs/heads/ariel/t1"],
      },
    ]);
  });

  it("of no such task: 66, no file written", async () => {
    const { ws, w } = world();
    expect(await w("export", "--task", "nope", "-o", "x.ariel")).toEqual({
      code: 66,
      stdout: "",
      stderr:
        'ariel-worktree: error: no task "nope" in <ws> [ERR_TASK_NOT_FOUND]\n' +
        "ariel-worktree: hint: run ariel-worktree list --all to see the tasks (closed ones too)\n",
    });
    expect(existsSync(join(ws, "x.ariel"))).toBe(false);
  });
});

describe("import", () => {
  it("-n: a row per leg (2 with --detailed-exitcode), or the plan record holding the record it would write", async () => {
    const { file, head } = await exportedOnce();
    const { ws, w, leg } = world();
    const row = "t1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\n";
    expect(await w("import", "-n", file)).toEqual({ code: 0, stdout: row, stderr: "" });
    expect(await w("import", "-n", "--detailed-exitcode", file)).toEqual({
      code: 2,
      stdout: row,
      stderr: "",
    });
    const [plan, more] = records((await w("import", "-n", "--json", file)).stdout);
    expect(more).toBeUndefined();
    expect(plan).toMatchObject({
      v: 1,
      type: "plan",
      action: "worktree.import",
      record: {
        type: "task",
        taskId: "t1",
        workspace: { root: "<ws>" },
        state: "closed",
        version: 0,
        legs: [
          {
            source: "api",
            sourcePath: "<ws>/api",
            head,
            worktreePath: "<ws>/.ariel/worktrees/t1/api",
            state: "snapshotted",
          },
        ],
      },
    });
    expect(existsSync(leg("t1", "api"))).toBe(false);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toBe("");
  });

  it("a FILE relative to the cwd: the task made again with its commits and its snapshot; on a terminal, a table", async () => {
    const { file, head } = await exportedOnce();
    const to = world();
    copyFileSync(file, join(to.ws, "t1.ariel"));
    expect(await to.run(["import", "t1.ariel"], { term: TTY })).toEqual({
      code: 0,
      stdout: "TASK  SOURCE  BRANCH    PATH\nt1    api     ariel/t1  <ws>/.ariel/worktrees/t1/api\n",
      stderr: "",
    });
    expect(git(to.leg("t1", "api"), "rev-parse", "HEAD")).toBe(head);
    expect(readFileSync(join(to.leg("t1", "api"), "g.txt"), "utf8")).toBe("y\n");
    expect((await to.w("list", "--no-bytes")).stdout).toBe(
      "t1\tapi\tdirty\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/api\n",
    );
  });

  it("--json: the record of the task made, active", async () => {
    const { file, head } = await exportedOnce();
    const { w } = world();
    const r = await w("import", "--json", file);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [rec, more] = records(r.stdout);
    expect(more).toBeUndefined();
    expect(rec).toMatchObject({
      type: "task",
      taskId: "t1",
      state: "active",
      legs: [{ source: "api", head, worktreePath: "<ws>/.ariel/worktrees/t1/api", state: "active" }],
    });
  });

  it("in a pipe: a row per leg made", async () => {
    const { file } = await exportedOnce();
    const { w } = world();
    expect(await w("import", file)).toEqual({
      code: 0,
      stdout: "t1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\n",
      stderr: "",
    });
  });
});

describe("import: refusals change nothing", () => {
  it("a missing file (66), a file that is no export (65)", async () => {
    const { w } = world();
    expect(await w("import", "missing.ariel")).toEqual({
      code: 66,
      stdout: "",
      stderr:
        "ariel-worktree: error: cannot read <ws>/missing.ariel [ERR_NOINPUT]\n" +
        "ariel-worktree: hint: check the path and that it exists\n",
    });
    expect(await w("import", "api/README.md")).toEqual({
      code: 65,
      stdout: "",
      stderr:
        "ariel-worktree: error: <ws>/api/README.md: not an ariel task export: wrong first line [ERR_INVALID_INPUT]\n" +
        "ariel-worktree: hint: make it with ariel-worktree export --task T -o FILE\n",
    });
  });

  it("a source that is another repository, a branch of that name at another commit: 3", async () => {
    const { file } = await exportedOnce();
    const other = world();
    git(join(other.ws, "api"), "remote", "add", "origin", "https://example.invalid/other.git");
    expect(await other.w("import", file)).toEqual({
      code: 3,
      stdout: "",
      stderr:
        'ariel-worktree: error: source "api" in <ws> is another repository (its remote or default branch differ) [ERR_FINGERPRINT]\n' +
        "ariel-worktree: hint: import into a workspace holding a clone of the same repository; nothing was changed\n",
    });
    const taken = world();
    git(join(taken.ws, "api"), "branch", "ariel/t1");
    expect(await taken.w("import", file)).toEqual({
      code: 3,
      stdout: "",
      stderr:
        "ariel-worktree: error: branch ariel/t1 exists in <ws>/api at another commit [ERR_TASK_CONFLICT]\n" +
        "ariel-worktree: hint: rename or delete that branch first; nothing was changed\n",
    });
    expect((await taken.w("list", "--all")).stdout).toBe("");
  });
});
