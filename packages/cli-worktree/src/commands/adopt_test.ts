import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, initRepo, tempDir } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { command } from "../command.ts";

// `ariel-worktree adopt` in this process on real repositories: a worktree git made becomes a
// task's leg (recorded, locked ariel:<task>), what it prints in each form, and every refusal.

const TTY: Terminal = { stdout: true, stderr: false, columns: 120, color: false };

/** A workspace with api and web (one commit each) and api/.worktrees/spike, a worktree git made on branch spike. */
function world() {
  const ws = tempDir("ariel-wt-adopt-");
  initRepo(join(ws, "api"));
  initRepo(join(ws, "web"));
  git(join(ws, "api"), "worktree", "add", "-q", "-b", "spike", join(ws, "api/.worktrees/spike"));
  const run = inWorkspace(command, ws);
  const w = (...argv: string[]) => run(argv);
  /** git's lock line of the worktree at `path` in api, or null. */
  const lockOf = (path: string) => {
    const block = git(join(ws, "api"), "worktree", "list", "--porcelain")
      .split("\n\n")
      .find((b) => b.startsWith(`worktree ${join(ws, path)}\n`));
    return block?.split("\n").find((l) => l.startsWith("locked")) ?? null;
  };
  return { ws, w, run, lockOf };
}

const INITIAL = initRepo(join(tempDir("ariel-wt-sha-"), "r"));
const SPIKE = "<ws>/api/.worktrees/spike";

describe("adopt: its forms", () => {
  it("a PATH relative to the cwd: -n plans a row and changes nothing; adopt records and locks it", async () => {
    const { w, lockOf } = world();
    const plan = { code: 0, stdout: `adopt\tt1\tapi\tspike\t${SPIKE}\n`, stderr: "" };
    expect(await w("adopt", "-n", "api/.worktrees/spike", "--task", "t1")).toEqual(plan);
    expect(await w("adopt", "-n", "--detailed-exitcode", "api/.worktrees/spike", "--task", "t1")).toEqual({
      ...plan,
      code: 2,
    });
    expect(lockOf("api/.worktrees/spike")).toBeNull();
    expect((await w("list")).stdout).toBe("");

    expect(await w("adopt", "api/.worktrees/spike", "--task", "t1")).toEqual({
      code: 0,
      stdout: `t1\tapi\tspike\t${SPIKE}\n`,
      stderr: `ariel-worktree: adopted ${SPIKE} into task t1\n`,
    });
    expect(lockOf("api/.worktrees/spike")).toBe("locked ariel:t1");
    expect((await w("list", "--no-bytes")).stdout).toBe(`t1\tapi\tactive\tariel:t1\tspike\t-\t${SPIKE}\n`);
  });

  it("on a terminal: a table with its header, for the plan and for the leg adopted", async () => {
    const { run } = world();
    const argv = ["adopt", "api/.worktrees/spike", "--task", "t1"];
    expect(await run([...argv, "-n"], { term: TTY })).toEqual({
      code: 0,
      stdout: `ACTION  TASK  SOURCE  BRANCH  PATH\nadopt   t1    api     spike   ${SPIKE}\n`,
      stderr: "",
    });
    expect(await run(argv, { term: TTY })).toEqual({
      code: 0,
      stdout: `TASK  SOURCE  BRANCH  PATH\nt1    api     spike   ${SPIKE}\n`,
      stderr: `ariel-worktree: adopted ${SPIKE} into task t1\n`,
    });
  });

  it("--json: -n gives the plan record; adopt the task record, its leg adopted", async () => {
    const { w } = world();
    const plan = await w("adopt", "-n", "--json", "api/.worktrees/spike", "--task", "t1");
    expect([plan.code, plan.stderr, records(plan.stdout)]).toEqual([
      0,
      "",
      [
        {
          v: 1,
          type: "plan",
          action: "worktree.adopt",
          task: "t1",
          source: "api",
          branch: "spike",
          path: SPIKE,
        },
      ],
    ]);
    const made = await w("adopt", "--json", "api/.worktrees/spike", "--task", "t1");
    expect([made.code, made.stderr]).toEqual([0, ""]);
    const [rec, more] = records(made.stdout);
    expect(more).toBeUndefined();
    expect(rec).toMatchObject({
      v: 1,
      type: "task",
      taskId: "t1",
      state: "active",
      legs: [
        {
          source: "api",
          sourcePath: "<ws>/api",
          branch: "spike",
          base: INITIAL,
          head: INITIAL,
          worktreePath: SPIKE,
          overlay: [],
          state: "active",
          adopted: true,
        },
      ],
    });
  });

  it("into an existing task without a leg of that source; without --task, a new id from the directory's name", async () => {
    const { ws, w } = world();
    await w("add", "--task", "t1", "--source", "web");
    expect((await w("adopt", SPIKE.replace("<ws>", ws), "--task", "t1")).stdout).toBe(
      `t1\tapi\tspike\t${SPIKE}\n`,
    );
    expect((await w("list", "--no-bytes")).stdout).toBe(
      `t1\tweb\tactive\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/web\nt1\tapi\tactive\tariel:t1\tspike\t-\t${SPIKE}\n`,
    );
    git(join(ws, "web"), "worktree", "add", "-q", "-b", "fix", join(ws, "web/.worktrees/fix"));
    const r = await w("adopt", "web/.worktrees/fix");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^(fix-[0-9a-z]{6})\tweb\tfix\t<ws>\/web\/\.worktrees\/fix\n$/);
    const id = r.stdout.split("\t")[0];
    expect(r.stderr).toBe(`ariel-worktree: adopted <ws>/web/.worktrees/fix into task ${id}\n`);
  });
});

/** The situations adopt refuses, all in one workspace (made once). */
let refusals: Promise<ReturnType<typeof world>> | undefined;
function refusalWorld() {
  refusals ??= (async () => {
    const wld = world();
    const { ws, w } = wld;
    const api = join(ws, "api");
    mkdirSync(join(ws, "plain"));
    git(api, "worktree", "add", "-q", "-b", "locked", join(api, ".worktrees/locked"));
    git(api, "worktree", "lock", "--reason", "mine", join(api, ".worktrees/locked"));
    git(api, "worktree", "add", "-q", "--detach", join(api, ".worktrees/det"));
    git(api, "worktree", "add", "-q", "-b", "two", join(api, ".worktrees/two"));
    const other = join(tempDir("ariel-wt-other-"), "r");
    initRepo(other);
    git(other, "worktree", "add", "-q", "-b", "f", join(ws, "foreign"));
    await w("add", "--task", "t1", "--source", "api");
    return wld;
  })();
  return refusals;
}

describe("adopt: refusals change nothing, -n refuses the same", () => {
  const hint = "ariel-worktree: hint: nothing was changed\n";
  it.each([
    [
      "a missing path",
      ["nope"],
      66,
      "<ws>/nope does not exist [ERR_NOINPUT]",
      "check the path and that it exists",
    ],
    [
      "a directory that is no worktree",
      ["plain"],
      66,
      "<ws>/plain is not the top directory of a git worktree [ERR_NOINPUT]",
    ],
    ["a main worktree", ["api"], 3, "<ws>/api is the main worktree of api [ERR_MAIN_WORKTREE]"],
    [
      "a worktree locked by someone else",
      ["api/.worktrees/locked"],
      3,
      "<ws>/api/.worktrees/locked is locked by someone else (mine) [ERR_FOREIGN_LOCK]",
    ],
    [
      "a detached HEAD",
      ["api/.worktrees/det"],
      3,
      "<ws>/api/.worktrees/det has a detached HEAD; check out a branch in it first [ERR_REFUSED]",
    ],
    [
      "a task's own leg",
      [".ariel/worktrees/t1/api", "--task", "x"],
      3,
      "<ws>/.ariel/worktrees/t1/api already belongs to task t1 [ERR_IN_TASK]",
    ],
    [
      "a task that has a leg of that source",
      ["api/.worktrees/two", "--task", "t1"],
      3,
      "task t1 already has a leg for source api [ERR_TASK_CONFLICT]",
    ],
    [
      "a worktree of another repository",
      ["foreign"],
      3,
      "<ws>/foreign is a worktree of a repository that is none of the workspace's sources [ERR_FOREIGN_REPO]",
    ],
  ])("%s", async (_name, argv, code, error, hintText?: string) => {
    const { w } = await refusalWorld();
    const refused = {
      code,
      stdout: "",
      stderr: `ariel-worktree: error: ${error}\n${hintText ? `ariel-worktree: hint: ${hintText}\n` : hint}`,
    };
    expect(await w("adopt", ...argv)).toEqual(refused);
    expect(await w("adopt", "-n", ...argv)).toEqual(refused);
    expect((await w("list", "--no-bytes")).stdout).toBe(
      "t1\tapi\tactive\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/api\n",
    );
  });

  it("a path outside the workspace root: 77, and how to bring it in", async () => {
    const { w } = world();
    const out = tempDir("ariel-wt-out-");
    expect(await w("adopt", out)).toEqual({
      code: 77,
      stdout: "",
      stderr:
        `ariel-worktree: error: ${out} is outside the workspace root; ariel only removes what lies inside it [ERR_PATH_ESCAPE]\n` +
        "ariel-worktree: hint: move it inside the workspace (git worktree move) and adopt it there\n",
    });
  });
});
