import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitAll, git, gitRaw, initRepo, tempDir, writeFile } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// ariel-worktree's commands run in this process on real repositories: what each prints, its exit
// status and what it leaves in git. The end-to-end cases (test/worktree*.test.ts and others) run
// the bundle; these are what lets a change to a command module be seen by its own tests.

/** A workspace with two repositories, api and web, each one commit on main; `w` runs a command in it. */
function world() {
  const ws = tempDir("ariel-wt-cmd-");
  initRepo(join(ws, "api"));
  initRepo(join(ws, "web"));
  const w = async (...argv: string[]) => {
    const r = await runInProcess(command, ["-C", ws, ...argv], { cwd: ws });
    return { ...r, stdout: r.stdout.replaceAll(ws, "<ws>"), stderr: r.stderr.replaceAll(ws, "<ws>") };
  };
  const leg = (task: string, source: string) => join(ws, ".ariel/worktrees", task, source);
  return { ws, w, leg };
}

const records = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The first commit of every repository here (fixed identity and dates). */
const INITIAL = initRepo(join(tempDir("ariel-wt-sha-"), "r"));

describe("add, list, path, verify", () => {
  it("add -n plans and makes nothing; --detailed-exitcode says so with 2", async () => {
    const { w, leg } = world();
    const plan = await w("add", "-n", "--detailed-exitcode", "--task", "t1", "--source", "api");
    expect(plan).toEqual({
      code: 2,
      stdout: "add\tt1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\n",
      stderr: "",
    });
    expect(existsSync(leg("t1", "api"))).toBe(false);
    expect((await w("add", "-n", "--task", "t1", "--source", "api")).code).toBe(0);
  });

  it("add: one leg per source on ariel/<task>, locked; list, path and verify see them", async () => {
    const { ws, w, leg } = world();
    const add = await w("add", "--task", "t1", "--source", "api", "--source", "web");
    expect(add).toEqual({
      code: 0,
      stdout:
        "t1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tariel/t1\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: "ariel-worktree: made task t1\n",
    });
    expect(git(leg("t1", "api"), "branch", "--show-current")).toBe("ariel/t1");
    expect(git(join(ws, "api"), "worktree", "list", "--porcelain")).toContain("locked ariel:t1");

    expect(await w("list", "--task", "t1", "--no-bytes")).toEqual({
      code: 0,
      stdout:
        "t1\tapi\tactive\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tactive\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    const listed = records((await w("list", "--json")).stdout);
    expect(listed.map((r) => [r.source, r.status, r.dirty, r.locked, r.head])).toEqual([
      ["api", "active", false, true, INITIAL],
      ["web", "active", false, true, INITIAL],
    ]);
    expect(listed[0]?.taskBytes).toBe(Number(listed[0]?.bytes) + Number(listed[1]?.bytes));

    expect(await w("path", "t1", "api")).toEqual({
      code: 0,
      stdout: "<ws>/.ariel/worktrees/t1/api\n",
      stderr: "",
    });
    expect((await w("path", "t1")).stdout).toBe("<ws>/.ariel/worktrees/t1\n");
    expect(records((await w("path", "t1", "--json")).stdout)).toEqual([
      { v: 1, type: "path", task: "t1", source: null, path: "<ws>/.ariel/worktrees/t1" },
    ]);
    expect(await w("path", "t1", "nope")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'ariel-worktree: error: task "t1" has no leg for source "nope" [ERR_PATH_UNKNOWN]\nariel-worktree: hint: its sources are: api, web\n',
    });

    expect(await w("verify", "--task", "t1")).toEqual({
      code: 0,
      stdout: "t1\tapi\tok\t-\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tok\t-\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(records((await w("verify", "--task", "t1", "--json")).stdout)[0]).toEqual({
      v: 1,
      type: "verify",
      task: "t1",
      source: "api",
      path: "<ws>/.ariel/worktrees/t1/api",
      ok: true,
      checks: { containment: true, presence: true, head: true, fingerprint: true },
    });
  });

  it("verify of a leg that is gone: 3, the failing leg named, the problem on stderr", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    gitRaw(join(ws, "web"), "worktree", "remove", "--force", "--force", leg("t1", "web"));
    const r = await w("verify", "--task", "t1");
    expect(r.code).toBe(3);
    expect(r.stdout.split("\n")).toEqual([
      "t1\tapi\tok\t-\t<ws>/.ariel/worktrees/t1/api",
      expect.stringMatching(/^t1\tweb\tFAIL\tERR_\w+\t<ws>\/\.ariel\/worktrees\/t1\/web$/),
      "",
    ]);
    const code = r.stdout.split("\n")[1]?.split("\t")[3];
    expect(r.stderr).toContain(`[${code}]`);
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(/^ariel-worktree: .*t1.*web/);
  });
});

describe("diff, remove, restore", () => {
  it("diff: commits ahead, files, uncommitted work per leg; --json the records", async () => {
    const { w, leg } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    writeFile(join(leg("t1", "api"), "done.txt"), "done\n");
    const head = commitAll(leg("t1", "api"), "work");
    writeFile(join(leg("t1", "api"), "new.txt"), "x\n");
    const short = INITIAL.slice(0, 12);
    expect(await w("diff", "--task", "t1")).toEqual({
      code: 0,
      stdout: [
        `api\tariel/t1\t1 commit ahead of ${short}, 1 file changed, 1 uncommitted`,
        `  commit ${head.slice(0, 12)} work`,
        "  A done.txt\t+1 -0",
        "  uncommitted new.txt",
        `web\tariel/t1\t0 commits ahead of ${short}, 0 files changed, 0 uncommitted`,
        "",
      ].join("\n"),
      stderr: "",
    });
    const recs = records((await w("diff", "--task", "t1", "--json")).stdout);
    expect(recs.map((r) => [r.source, r.head, r.files, r.uncommitted])).toEqual([
      ["api", head, [expect.objectContaining({ path: "done.txt" })], ["new.txt"]],
      ["web", INITIAL, [], []],
    ]);
  });

  it("remove refuses local work (3, nothing changed); -n the same; --snapshot keeps it; restore brings it back", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    writeFile(join(leg("t1", "api"), "new.txt"), "x\n");
    const refused = {
      code: 3,
      stdout: "",
      stderr:
        "ariel-worktree: error: <ws>/.ariel/worktrees/t1/api has uncommitted changes: new.txt [ERR_DIRTY]\n" +
        "ariel-worktree: hint: commit or stash the changes, pass --snapshot, or --allow dirty; nothing was changed\n" +
        "ariel-worktree: refused, nothing changed: api (dirty); next: ariel-worktree remove --task t1 --snapshot\n",
    };
    expect(await w("remove", "--task", "t1")).toEqual(refused);
    expect(await w("remove", "--task", "t1", "-n")).toEqual(refused);
    expect(records((await w("remove", "--task", "t1", "--json")).stderr)).toEqual([
      {
        v: 1,
        type: "error",
        code: "ERR_DIRTY",
        message: "<ws>/.ariel/worktrees/t1/api has uncommitted changes: new.txt",
        hint: "commit or stash the changes, pass --snapshot, or --allow dirty; nothing was changed",
        exit: 3,
        task: "t1",
        source: "api",
        path: "<ws>/.ariel/worktrees/t1/api",
        reason: "dirty",
        items: ["new.txt"],
      },
    ]);
    expect(existsSync(leg("t1", "web"))).toBe(true);

    expect(await w("remove", "--task", "t1", "--snapshot")).toEqual({
      code: 0,
      stdout:
        "t1\tapi\tsnapshotted\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tremoved\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(existsSync(leg("t1", "api"))).toBe(false);
    const snap = git(join(ws, "api"), "for-each-ref", "--format=%(refname)", "refs/ariel/snapshots/t1/");
    expect(git(join(ws, "api"), "show", `${snap}:new.txt`)).toBe("x");
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toContain("ariel/t1");
    expect((await w("list")).stdout).toBe(
      "t1\tapi\tsnapshotted\t-\tariel/t1\t0\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tremoved\t-\tariel/t1\t0\t<ws>/.ariel/worktrees/t1/web\n",
    );

    expect(await w("restore", "--task", "t1")).toEqual({
      code: 0,
      stdout:
        "t1\tapi\trestored\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\trestored\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(readFileSync(join(leg("t1", "api"), "new.txt"), "utf8")).toBe("x\n");
    expect((await w("list", "--no-bytes")).stdout).toBe(
      "t1\tapi\tdirty\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tactive\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/web\n",
    );
  });
});

describe("land, du, gc, export", () => {
  it("land -n plans per leg; land --strategy squash moves the target and keeps the branch", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    writeFile(join(leg("t1", "api"), "f.txt"), "x\n");
    commitAll(leg("t1", "api"), "work");
    expect(await w("land", "-n", "--task", "t1", "--into", "main")).toEqual({
      code: 0,
      stdout: "land\tt1\tapi\tariel/t1\tmain\t1\tmerge\nskip\tt1\tweb\tariel/t1\tmain\t0\tmerge\n",
      stderr: "",
    });
    expect(git(join(ws, "api"), "rev-parse", "main")).toBe(INITIAL);
    const landed = records((await w("land", "--task", "t1", "--strategy", "squash", "--json")).stdout);
    const main = git(join(ws, "api"), "rev-parse", "main");
    expect(landed.map((r) => [r.source, r.outcome, r.strategy, r.from, r.to, r.branchDeleted])).toEqual([
      ["api", "landed", "squash", INITIAL, main, false],
      ["web", "up-to-date", "squash", INITIAL, INITIAL, false],
    ]);
    expect(main).not.toBe(INITIAL);
    expect(git(join(ws, "api"), "show", "main:f.txt")).toBe("x");
    expect(git(join(ws, "api"), "rev-list", "--count", `${INITIAL}..main`)).toBe("1");
  });

  it("du --json: a record per leg, per task and for the workspace, the totals adding up", async () => {
    const { w } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    const recs = records((await w("du", "--task", "t1", "--json")).stdout);
    expect(recs.map((r) => [r.type, r.source ?? null])).toEqual([
      ["du.leg", "api"],
      ["du.leg", "web"],
      ["du.task", null],
      ["du.workspace", null],
    ]);
    const [a, b, task, all] = recs as Record<string, number>[];
    for (const k of ["checkout", "admin", "total"]) expect(task?.[k]).toBe(Number(a?.[k]) + Number(b?.[k]));
    expect(all?.total).toBe(task?.total);
    expect(all?.tasks).toBe(1);
    expect(Number(all?.free)).toBeGreaterThan(0);
  });

  it("gc -n names what it would reclaim and changes nothing", async () => {
    const { w, leg } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    const r = await w("gc", "-n", "--state", "active", "--older-than", "0s");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^task\.remove\tt1\t\d+\n$/);
    expect(r.stderr).toMatch(/^ariel-worktree: 1 action, \d+ KiB to reclaim\n$/);
    expect(existsSync(leg("t1", "api"))).toBe(true);
    // the default (closed tasks, a week old) finds nothing
    const none = await w("gc", "-n", "--detailed-exitcode");
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
  });

  it("export writes the task to one file; import -n in another workspace plans it", async () => {
    const { w } = world();
    await w("add", "--task", "t1", "--source", "api");
    const file = join(tempDir("ariel-wt-export-"), "t1.ariel");
    const r = await w("export", "--task", "t1", "-o", file);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(`^ariel-worktree: wrote task t1 to ${file} \\(\\d+ bytes, 1 ref\\)\\n$`),
    );
    expect(existsSync(file)).toBe(true);
    const other = world();
    const plan = await other.w("import", "-n", "--detailed-exitcode", file);
    expect(plan.code).toBe(2);
    expect(existsSync(other.leg("t1", "api"))).toBe(false);
  });
});

describe("the small ones", () => {
  it("ports with no lease prints nothing; shell-init prints the function for the shell asked", async () => {
    const { w } = world();
    expect(await w("ports")).toEqual({ code: 0, stdout: "", stderr: "" });
    const bash = await w("shell-init", "bash");
    expect(bash.code).toBe(0);
    expect(bash.stdout.split("\n")[0]).toBe(
      "# ariel-worktree shell-init bash: acd TASK [SOURCE] changes to a task's worktree.",
    );
    expect(bash.stdout).toContain("complete -F _ariel_acd acd\n");
    const fish = await w("shell-init", "fish");
    expect(fish.stdout.split("\n")[0]).toMatch(/^# ariel-worktree shell-init fish/);
    const bad = await w("shell-init", "tcsh");
    expect(bad.code).toBe(64);
    expect(bad.stdout).toBe("");
  });

  it("trust -n with nothing to trust says so; hooks run with no hook says so", async () => {
    const { w } = world();
    expect(await w("trust", "-n")).toEqual({
      code: 0,
      stdout: "",
      stderr:
        "ariel-worktree: nothing to trust in <ws>: no source has a committed ariel.config.json with hooks\n",
    });
    await w("add", "--task", "t1", "--source", "api");
    expect(await w("hooks", "run", "--task", "t1")).toEqual({
      code: 0,
      stdout: "",
      stderr: "ariel-worktree: task t1 has no post-create hook to run\n",
    });
  });

  it("reconcile with nothing to repair: nothing printed, 0 (also with -n --detailed-exitcode)", async () => {
    const { w } = world();
    await w("add", "--task", "t1", "--source", "api");
    expect(await w("reconcile", "-n", "--detailed-exitcode")).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await w("reconcile", "--json")).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("adopt takes a worktree git made into a task", async () => {
    const { ws, w } = world();
    const path = join(ws, "api/.worktrees/spike");
    git(join(ws, "api"), "worktree", "add", "-q", "-b", "spike", path);
    const plan = await w("adopt", "-n", "--detailed-exitcode", path, "--task", "spike");
    expect(plan.code).toBe(2);
    expect((await w("list")).stdout).toBe("");
    const r = await w("adopt", path, "--task", "spike");
    expect(r.code).toBe(0);
    expect((await w("list", "--no-bytes")).stdout).toBe(
      "spike\tapi\tactive\tariel:spike\tspike\t-\t<ws>/api/.worktrees/spike\n",
    );
  });
});

describe("refusals", () => {
  it.each([
    [["hook", "codex"], 64, 'unknown agent "codex" [ERR_USAGE]', "use one of: claude"],
    [
      ["add", "--task", "t1", "--source", "nope"],
      66,
      'no source named "nope" in <ws> [ERR_SOURCE_NOT_FOUND]',
      "run ariel-discover to list the workspace's sources",
    ],
    [
      ["add", "--task", "-x", "--source", "api"],
      64,
      'flag "--task" needs a value, but the next word "-x" looks like a flag [ERR_USAGE]',
      'to pass a value starting with "-", write --task=-x',
    ],
    [
      ["remove", "--task", "t9"],
      66,
      'no task "t9" in <ws> [ERR_TASK_NOT_FOUND]',
      "run ariel-worktree list --all to see the tasks (closed ones too)",
    ],
  ])("%j: %i, the error and its hint, nothing made", async (argv, code, error, hint) => {
    const { ws, w } = world();
    expect(await w(...argv)).toEqual({
      code,
      stdout: "",
      stderr: `ariel-worktree: error: ${error}\nariel-worktree: hint: ${hint}\n`,
    });
    expect(existsSync(join(ws, ".ariel/worktrees"))).toBe(false);
  });

  it("add of a task id in use with other sources: 3, the task as it was", async () => {
    const { ws, w } = world();
    await w("add", "--task", "t1", "--source", "api");
    expect(await w("add", "--task", "t1", "--source", "web")).toEqual({
      code: 3,
      stdout: "",
      stderr:
        'ariel-worktree: error: task "t1" already exists and differs: its sources are api [ERR_TASK_CONFLICT]\n' +
        "ariel-worktree: hint: use another --task id, or remove the existing task first\n",
    });
    expect(git(join(ws, "web"), "branch", "--list", "ariel/t1")).toBe("");
  });
});

describe("repository hooks: trust, then run", () => {
  it("trust -n shows, trust approves, --list lists, the hook runs at add and again with hooks run; --revoke withdraws", async () => {
    const { ws, w, leg } = world();
    writeFile(join(ws, "api/ariel.config.json"), '{"hooks":{"post-create":["touch","made.txt"]}}\n');
    commitAll(join(ws, "api"), "config");
    const plan = await w("trust", "-n", "--source", "api");
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^api\tapprove\t[0-9a-f]{12}\t<ws>\/api\/ariel\.config\.json\n$/);
    expect(plan.stderr).toBe('ariel-worktree: would approve api post-create: ["touch","made.txt"]\n');
    expect((await w("trust", "--list")).stdout).not.toContain("<ws>/api/ariel.config.json");

    const ok = await w("trust", "--source", "api");
    const digest = plan.stdout.split("\t")[2];
    expect(ok).toEqual({
      code: 0,
      stdout: `api\tapproved\t${digest}\t<ws>/api/ariel.config.json\n`,
      stderr: 'ariel-worktree: approved api post-create: ["touch","made.txt"]\n',
    });
    const listed = (await w("trust", "--list")).stdout
      .split("\n")
      .filter((l) => l.endsWith("<ws>/api/ariel.config.json"));
    expect(listed).toEqual([expect.stringMatching(new RegExp(`^trusted\\t\\S+\\t${digest}\\t`))]);

    expect((await w("add", "--task", "t1", "--source", "api")).code).toBe(0);
    expect(existsSync(join(leg("t1", "api"), "made.txt"))).toBe(true);
    const again = await w("hooks", "run", "--task", "t1");
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^t1\tapi\tpost-create\trepository\t\w+\t0\t\["touch","made.txt"\]\n$/);

    expect(await w("trust", "--revoke", "--source", "api")).toEqual({
      code: 0,
      stdout: `revoked\t${digest}\t<ws>/api/ariel.config.json\n`,
      stderr: "",
    });
    expect((await w("trust", "--list")).stdout).not.toContain("<ws>/api/ariel.config.json");
  });

  it("a hook that cannot start: the leg is kept, 1, and the retry named", async () => {
    const { ws, w, leg } = world();
    writeFile(join(ws, "api/ariel.config.json"), '{"hooks":{"post-create":["no-such-program-here"]}}\n');
    commitAll(join(ws, "api"), "config");
    await w("trust", "--source", "api");
    const r = await w("add", "--task", "t2", "--source", "api");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("t2\tapi\tariel/t2\t<ws>/.ariel/worktrees/t2/api\n");
    expect(r.stderr.split("\n").at(-2)).toBe(
      "ariel-worktree: made task t2, but its setup failed in api (the legs are kept); log: <ws>/.ariel/hooks/t2.log; retry: ariel-worktree hooks run --task t2 --event post-create",
    );
    expect(existsSync(leg("t2", "api"))).toBe(true);
    expect(records((await w("list", "--json")).stdout)[0]).toMatchObject({ task: "t2", setup: "failed" });
    await w("trust", "--revoke", "--source", "api");
  });
});

describe("remove and gc of a clean task", () => {
  it("remove --json: a removal record per leg, the branch kept; gc archives the closed task", async () => {
    const { ws, w } = world();
    await w("add", "--task", "t1", "--source", "api");
    expect(records((await w("remove", "--task", "t1", "--json")).stdout)).toEqual([
      {
        v: 1,
        type: "removal",
        task: "t1",
        source: "api",
        path: "<ws>/.ariel/worktrees/t1/api",
        outcome: "removed",
      },
    ]);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toContain("ariel/t1");
    expect(records((await w("gc", "--state", "closed", "--older-than", "0s", "--json")).stdout)).toEqual([
      { v: 1, type: "gc", action: "gc.task.archive", task: "t1", outcome: "done" },
    ]);
    expect((await w("list", "--all")).stdout).toBe("");
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toContain("ariel/t1");
  });
});

describe("conflicts and crashes", () => {
  it("land of a leg that conflicts: 3, the files named, nothing landed (also -n and --json)", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    writeFile(join(leg("t1", "api"), "README.md"), "mine\n");
    commitAll(leg("t1", "api"), "mine");
    writeFile(join(ws, "api/README.md"), "theirs\n");
    const main = commitAll(join(ws, "api"), "theirs");
    const refused = {
      code: 3,
      stdout: "",
      stderr:
        "ariel-worktree: error: api: ariel/t1 does not merge cleanly into main: README.md [ERR_LAND_CONFLICT]\n" +
        "ariel-worktree: hint: in <ws>/.ariel/worktrees/t1/api: git merge main, resolve the conflicts and commit, then land again; nothing was changed\n" +
        "ariel-worktree: nothing landed: api (conflict) refused; ariel-worktree diff --task t1 shows the task\n",
    };
    expect(await w("land", "-n", "--task", "t1")).toEqual(refused);
    expect(await w("land", "--task", "t1")).toEqual(refused);
    expect(records((await w("land", "--task", "t1", "--json")).stderr)).toEqual([
      expect.objectContaining({
        code: "ERR_LAND_CONFLICT",
        exit: 3,
        reason: "conflict",
        items: ["README.md"],
      }),
    ]);
    expect(git(join(ws, "api"), "rev-parse", "main")).toBe(main);
  });

  it("reconcile after a leg's directory vanished: -n plans (2 with --detailed-exitcode), then repairs in one pass; list says missing", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    rmSync(leg("t1", "api"), { recursive: true, force: true });
    const plan =
      "prune\tt1\t<ws>/.ariel/worktrees/t1/api\t<ws>/api/.git/worktrees/api\n" +
      "remove-dir\tt1\t<ws>/.ariel/worktrees/t1\t-\n" +
      "mark-leg\tt1\t<ws>/.ariel/worktrees/t1/api\tactive -> unknown (task unknown)\n";
    expect(await w("reconcile", "-n")).toEqual({ code: 0, stdout: plan, stderr: "" });
    expect(await w("reconcile", "-n", "--detailed-exitcode")).toEqual({ code: 2, stdout: plan, stderr: "" });
    expect(existsSync(join(ws, "api/.git/worktrees/api"))).toBe(true);
    expect(await w("reconcile")).toEqual({ code: 0, stdout: plan, stderr: "" });
    expect(existsSync(join(ws, "api/.git/worktrees/api"))).toBe(false);
    expect(await w("reconcile", "-n", "--detailed-exitcode")).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await w("list", "--all")).stdout).toBe(
      "t1\tapi\tmissing\t-\tariel/t1\t0\t<ws>/.ariel/worktrees/t1/api\n",
    );
    expect(await w("du")).toMatchObject({
      code: 0,
      stdout: "t1\tapi\t0\t0\t0\t0\t0\t0\t(absent)\n(all)\t1 task\t0\t0\t0\t0\t0\t0\t\n",
    });
  });

  it("import: refused where the task exists (3), made in another workspace with its commits", async () => {
    const { w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    writeFile(join(leg("t1", "api"), "f.txt"), "x\n");
    const head = commitAll(leg("t1", "api"), "work");
    const file = join(tempDir("ariel-wt-export-"), "t1.ariel");
    await w("remove", "--task", "t1");
    expect((await w("export", "--task", "t1", "-o", file)).code).toBe(0);
    expect(await w("import", "-n", file)).toEqual({
      code: 3,
      stdout: "",
      stderr:
        'ariel-worktree: error: task "t1" exists in <ws> already [ERR_TASK_CONFLICT]\n' +
        "ariel-worktree: hint: remove it first, or import into another workspace (-C ROOT); nothing was changed\n",
    });
    const other = world();
    const made = await other.w("import", file);
    expect(made.code).toBe(0);
    expect(git(join(other.ws, "api"), "rev-parse", "ariel/t1")).toBe(head);
    expect((await other.w("restore", "--task", "t1")).code).toBe(0);
    expect(readFileSync(join(other.leg("t1", "api"), "f.txt"), "utf8")).toBe("x\n");
  });
});

describe("land: plans, --remove, and what it keeps", () => {
  it("-n --json: a plan record per leg; --remove refuses a leg with local work (3), then lands and removes, keeping a skipped leg's branch", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    writeFile(join(leg("t1", "api"), "f.txt"), "x\n");
    const head = commitAll(leg("t1", "api"), "work");
    expect(records((await w("land", "-n", "--json", "--task", "t1")).stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "task.land",
        task: "t1",
        source: "api",
        branch: "ariel/t1",
        target: "main",
        strategy: "merge",
        from: INITIAL,
        to: expect.stringMatching(/^[0-9a-f]{40}$/),
        commits: 1,
        checkout: "<ws>/api",
      },
      {
        v: 1,
        type: "plan",
        action: "task.land.skip",
        task: "t1",
        source: "web",
        branch: "ariel/t1",
        target: "main",
        strategy: "merge",
        from: INITIAL,
        to: INITIAL,
        commits: 0,
        checkout: "<ws>/web",
      },
    ]);
    writeFile(join(leg("t1", "api"), "g.txt"), "y\n");
    expect(await w("land", "--task", "t1", "--remove")).toEqual({
      code: 3,
      stdout: "",
      stderr:
        "ariel-worktree: error: <ws>/.ariel/worktrees/t1/api has uncommitted changes: g.txt [ERR_DIRTY]\n" +
        "ariel-worktree: hint: commit or stash the changes in <ws>/.ariel/worktrees/t1/api (land takes commits only), or land without --remove and keep them: ariel-worktree remove --task t1 --source api --snapshot; nothing was changed\n" +
        "ariel-worktree: nothing landed: api (dirty) refused; ariel-worktree diff --task t1 shows the task\n",
    });
    expect(git(join(ws, "api"), "rev-parse", "main")).toBe(INITIAL);
    rmSync(join(leg("t1", "api"), "g.txt"));
    const r = await w("land", "--task", "t1", "--remove");
    const main = git(join(ws, "api"), "rev-parse", "main");
    expect(r).toEqual({
      code: 0,
      stdout: `t1\tapi\tmain\tlanded\t${main.slice(0, 12)}\nt1\tweb\tmain\tup-to-date\t${INITIAL.slice(0, 12)}\n`,
      stderr:
        "ariel-worktree: removed task t1: api (removed), web (removed); deleted branch ariel/t1 in api; kept ariel/t1 in web (nothing landed from it)\n",
    });
    expect(git(join(ws, "api"), "rev-parse", "main^2")).toBe(head);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toBe("");
    expect(git(join(ws, "web"), "branch", "--list", "ariel/t1")).toContain("ariel/t1");
    expect(existsSync(leg("t1", "api"))).toBe(false);
  });

  it("a land with uncommitted work in a leg lands the commits and warns of the rest", async () => {
    const { w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    writeFile(join(leg("t1", "api"), "f.txt"), "x\n");
    commitAll(leg("t1", "api"), "work");
    writeFile(join(leg("t1", "api"), "later.txt"), "y\n");
    const r = await w("land", "--task", "t1", "--strategy", "ff");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^t1\tapi\tmain\tlanded\t[0-9a-f]{12}\n$/);
    expect(r.stderr).toBe("ariel-worktree: warning: api: 1 uncommitted path(s) in the leg were not landed\n");
  });

  it("gc -n --json plans the archive of a closed task; gc does it and counts", async () => {
    const { w } = world();
    await w("add", "--task", "t1", "--source", "api");
    await w("remove", "--task", "t1");
    expect(
      records((await w("gc", "-n", "--json", "--state", "closed", "--older-than", "0s")).stdout),
    ).toEqual([{ v: 1, type: "plan", action: "gc.task.archive", task: "t1" }]);
    expect(await w("gc", "--state", "closed", "--older-than", "0s")).toEqual({
      code: 0,
      stdout: "task.archive\tt1\tdone\n",
      stderr: "ariel-worktree: 1 done, 0 skipped\n",
    });
  });
});

describe("add: its defaults and repeats", () => {
  it("without --source: the source the cwd is in; at a root that is no checkout, a usage error", async () => {
    const { ws, w } = world();
    const inApi = await runInProcess(command, ["-C", ws, "add", "--task", "t1"], { cwd: join(ws, "api") });
    expect([inApi.code, inApi.stdout.replaceAll(ws, "<ws>")]).toEqual([
      0,
      "t1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\n",
    ]);
    expect(await w("add", "--task", "t2")).toEqual({
      code: 64,
      stdout: "",
      stderr:
        "ariel-worktree: error: add needs at least one --source NAME [ERR_USAGE]\n" +
        "ariel-worktree: hint: name a source of the workspace: ariel-worktree add --source NAME (ariel-discover lists them), or run it from inside one\n",
    });
  });

  it("-n without --task names the id it generated; a repeat of an existing task does nothing, and says so", async () => {
    const { w } = world();
    const plan = await w("add", "-n", "--source", "api");
    const id = plan.stdout.split("\t")[1];
    expect(plan).toEqual({
      code: 0,
      stdout: `add\t${id}\tapi\tariel/${id}\t<ws>/.ariel/worktrees/${id}/api\n`,
      stderr: `ariel-worktree: task id ${id} was generated for this plan; add --task ${id} to make exactly this\n`,
    });
    await w("add", "--task", "t1", "--source", "api");
    expect(await w("add", "-n", "--detailed-exitcode", "--task", "t1", "--source", "api")).toEqual({
      code: 0,
      stdout: "",
      stderr: "ariel-worktree: task t1 exists already; nothing to do\n",
    });
    expect(await w("add", "--task", "t1", "--source", "api")).toEqual({
      code: 0,
      stdout: "t1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\n",
      stderr: "ariel-worktree: task t1 exists already; nothing changed\n",
    });
  });

  it("--min-free that cannot be met: 75, nothing made; a bad size is a usage error", async () => {
    const { ws, w } = world();
    const r = await w("add", "--task", "t1", "--source", "api", "--min-free", "900000T");
    expect(r.code).toBe(75);
    expect(r.stderr.split("\n")[0]).toMatch(
      /^ariel-worktree: error: add: only \S+ \w+ free on <ws>, under the floor of 879 PiB \[ERR_DISK_LOW\]$/,
    );
    expect(existsSync(join(ws, ".ariel/worktrees/t1"))).toBe(false);
    const bad = await w("add", "--task", "t1", "--source", "api", "--min-free", "lots");
    expect(bad.code).toBe(64);
  });
});

describe("remove: plans, snapshots, --allow, and a failing pre-remove hook", () => {
  it("-n: a row (or plan record) per leg it would remove, snapshot or not; nothing removed", async () => {
    const { w, leg } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    writeFile(join(leg("t1", "api"), "new.txt"), "x\n");
    expect(await w("remove", "-n", "--detailed-exitcode", "--task", "t1", "--snapshot")).toEqual({
      code: 2,
      stdout:
        "remove\tt1\tapi\tyes\t<ws>/.ariel/worktrees/t1/api\nremove\tt1\tweb\tno\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(records((await w("remove", "-n", "--json", "--task", "t1", "--allow", "dirty")).stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "worktree.remove",
        task: "t1",
        source: "api",
        path: "<ws>/.ariel/worktrees/t1/api",
        snapshot: false,
        allowed: ["dirty"],
      },
      {
        v: 1,
        type: "plan",
        action: "worktree.remove",
        task: "t1",
        source: "web",
        path: "<ws>/.ariel/worktrees/t1/web",
        snapshot: false,
        allowed: [],
      },
    ]);
    expect(existsSync(leg("t1", "api"))).toBe(true);
  });

  it("--snapshot --json: the removal record names the snapshot; --allow dirty removes the named loss only", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    writeFile(join(leg("t1", "api"), "new.txt"), "x\n");
    const [rec] = records((await w("remove", "--task", "t1", "--snapshot", "--json")).stdout);
    const ref = git(join(ws, "api"), "for-each-ref", "--format=%(refname)", "refs/ariel/snapshots/t1/");
    expect(rec).toEqual({
      v: 1,
      type: "removal",
      task: "t1",
      source: "api",
      path: "<ws>/.ariel/worktrees/t1/api",
      outcome: "snapshotted",
      snapshotRef: ref,
      snapshotCommit: git(join(ws, "api"), "rev-parse", ref),
    });
    await w("add", "--task", "t2", "--source", "api");
    writeFile(join(leg("t2", "api"), "scratch.txt"), "x\n");
    const r = await w("remove", "--task", "t2", "--allow", "dirty");
    expect([r.code, r.stdout]).toEqual([0, "t2\tapi\tremoved\t<ws>/.ariel/worktrees/t2/api\n"]);
    expect(existsSync(leg("t2", "api"))).toBe(false);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t2")).toContain("ariel/t2");
  });

  it("a failing pre-remove hook keeps the task (3) and names the way without hooks", async () => {
    const { ws, w, leg } = world();
    writeFile(join(ws, "api/ariel.config.json"), '{"hooks":{"pre-remove":["false"]}}\n');
    commitAll(join(ws, "api"), "config");
    await w("trust", "--source", "api");
    await w("add", "--task", "t1", "--source", "api");
    const r = await w("remove", "--task", "t1");
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n").at(-2)).toBe(
      "ariel-worktree: kept t1: the pre-remove hook of api failed, nothing was removed; log: <ws>/.ariel/hooks/t1.log; to remove without hooks: ariel-worktree remove --task t1 --no-hooks",
    );
    expect(existsSync(leg("t1", "api"))).toBe(true);
    expect((await w("remove", "--task", "t1", "--no-hooks")).code).toBe(0);
    expect(existsSync(leg("t1", "api"))).toBe(false);
    await w("trust", "--revoke", "--source", "api");
  });
});

describe("gc: states, snapshots, merged branches", () => {
  it("an unknown --state is a usage error that lists the states", async () => {
    const { w } = world();
    expect(await w("gc", "--state", "bogus")).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-worktree: error: --state: unknown task state "bogus" [ERR_USAGE]\nariel-worktree: hint: use one of: active, cleaning, closed, unknown\n',
    });
  });

  it("--state active snapshots local work before it removes; --prune-merged deletes only merged branches and says what it skipped", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    await w("add", "--task", "t2", "--source", "api");
    writeFile(join(leg("t2", "api"), "new.txt"), "x\n");
    await w("add", "--task", "t3", "--source", "web");
    writeFile(join(leg("t3", "web"), "n.txt"), "x\n");
    commitAll(leg("t3", "web"), "unmerged");
    const plan = await w("gc", "-n", "--state", "active", "--older-than", "0s");
    expect(plan.stdout).toMatch(/^task\.remove\tt1\t\d+\ntask\.remove\tt2\t\d+\ntask\.remove\tt3\t\d+\n$/);
    expect(plan.stderr).toMatch(/^ariel-worktree: 3 actions, \d+ KiB to reclaim\n$/);
    const done = records((await w("gc", "--state", "active", "--older-than", "0s", "--json")).stdout);
    const snap = git(join(ws, "api"), "rev-parse", "refs/ariel/snapshots/t2/api");
    expect(done.map((r) => [r.action, r.task, r.outcome, r.snapshots])).toEqual([
      ["gc.task.remove", "t1", "done", []],
      ["gc.task.remove", "t2", "done", [{ source: "api", ref: "refs/ariel/snapshots/t2/api", commit: snap }]],
      ["gc.task.remove", "t3", "done", []],
    ]);
    expect(git(join(ws, "api"), "show", `${snap}:new.txt`)).toBe("x");

    const skips =
      "ariel-worktree: skip t2: snapshot-kept (restore reads its record)\n" +
      "ariel-worktree: skip t3: not-merged (ariel/t3 in web)\n";
    expect(await w("gc", "-n", "--prune-merged", "--older-than", "0s")).toEqual({
      code: 0,
      stdout: "task.archive\tt1\t-\nbranch.delete\tt1 api ariel/t1\t-\ntask.archive\tt3\t-\n",
      stderr: `${skips}ariel-worktree: 3 actions, 0 B to reclaim\n`,
    });
    expect(await w("gc", "--prune-merged", "--older-than", "0s")).toEqual({
      code: 0,
      stdout: "task.archive\tt1\tdone\nbranch.delete\tt1 api ariel/t1\tdone\ntask.archive\tt3\tdone\n",
      stderr: `${skips}ariel-worktree: 3 done, 2 skipped\n`,
    });
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toBe("");
    expect(git(join(ws, "web"), "branch", "--list", "ariel/t3")).toContain("ariel/t3");
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t2")).toContain("ariel/t2");
  });
});

describe("diff, hooks, restore and adopt: the other forms", () => {
  it("diff --stat --patch of a committed change; a removed leg says its state", async () => {
    const { w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    writeFile(join(leg("t1", "api"), "README.md"), "hello\nmore\n");
    const head = commitAll(leg("t1", "api"), "more");
    const r = await w("diff", "--task", "t1", "--stat", "--patch");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      `api\tariel/t1\t1 commit ahead of ${INITIAL.slice(0, 12)}, 1 file changed, 0 uncommitted`,
      `  commit ${head.slice(0, 12)} more`,
      "  M README.md\t+1 -0",
    ]);
    expect(r.stdout).toContain(" README.md | 1 +\n");
    expect(r.stdout).toContain("+more\n");
    await w("remove", "--task", "t1");
    expect((await w("diff", "--task", "t1")).stdout.split("\n")[0]).toBe(
      `api\tariel/t1\t1 commit ahead of ${INITIAL.slice(0, 12)}, 1 file changed, 0 uncommitted (removed)`,
    );
  });

  it("hooks: an unknown action or event is a usage error; run --json gives a record per hook run", async () => {
    const { ws, w } = world();
    expect(await w("hooks", "list", "--task", "t1")).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-worktree: error: hooks: unknown action "list" [ERR_USAGE]\nariel-worktree: hint: run: ariel-worktree hooks run --task ID [--event EVENT]\n',
    });
    expect(await w("hooks", "run", "--task", "t1", "--event", "pre-push")).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-worktree: error: unknown hook event "pre-push" [ERR_USAGE]\nariel-worktree: hint: the events are: post-create, pre-remove, post-restore, pre-land, post-land\n',
    });
    writeFile(
      join(ws, "api/ariel.config.json"),
      '{"hooks":{"post-create":["touch","made.txt"],"pre-remove":["true"]}}\n',
    );
    commitAll(join(ws, "api"), "config");
    await w("trust", "--source", "api");
    await w("add", "--task", "t1", "--source", "api");
    const [rec, more] = records(
      (await w("hooks", "run", "--task", "t1", "--event", "pre-remove", "--json")).stdout,
    );
    expect(more).toBeUndefined();
    expect(rec).toMatchObject({
      v: 1,
      type: "hook",
      task: "t1",
      source: "api",
      event: "pre-remove",
      origin: "repository",
      exit: 0,
    });
    await w("trust", "--revoke", "--source", "api");
  });

  it("restore -n: a row (or plan record) per leg it would bring back, with its snapshot", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api", "--source", "web");
    writeFile(join(leg("t1", "api"), "new.txt"), "x\n");
    await w("remove", "--task", "t1", "--snapshot");
    const ref = "refs/ariel/snapshots/t1/api";
    expect(await w("restore", "-n", "--detailed-exitcode", "--task", "t1")).toEqual({
      code: 2,
      stdout: `restore\tt1\tapi\t${ref}\t<ws>/.ariel/worktrees/t1/api\nrestore\tt1\tweb\t-\t<ws>/.ariel/worktrees/t1/web\n`,
      stderr: "",
    });
    expect(records((await w("restore", "-n", "--json", "--task", "t1", "--source", "api")).stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "worktree.restore",
        task: "t1",
        source: "api",
        branch: "ariel/t1",
        path: "<ws>/.ariel/worktrees/t1/api",
        snapshotRef: ref,
        snapshotCommit: git(join(ws, "api"), "rev-parse", ref),
      },
    ]);
    expect(existsSync(leg("t1", "api"))).toBe(false);
    const [rec] = records((await w("restore", "--json", "--task", "t1")).stdout);
    expect(rec).toMatchObject({ type: "task", taskId: "t1", state: "active" });
  });

  it("adopt -n --json: the plan record; nothing taken", async () => {
    const { ws, w } = world();
    const path = join(ws, "api/.worktrees/spike");
    git(join(ws, "api"), "worktree", "add", "-q", "-b", "spike", path);
    const [plan] = records((await w("adopt", "-n", "--json", path, "--task", "spike")).stdout);
    expect(plan).toMatchObject({
      v: 1,
      type: "plan",
      action: "worktree.adopt",
      task: "spike",
      source: "api",
      branch: "spike",
    });
    expect((await w("list")).stdout).toBe("");
  });
});
