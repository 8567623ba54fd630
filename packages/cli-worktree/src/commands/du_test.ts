import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { command } from "../command.ts";

// `ariel-worktree du` runs in this process on real repositories: the table (terminal and pipe),
// the free space line on stderr, the --json records, the warnings and the exit status.

const TTY: Terminal = { stdout: true, stderr: false, columns: 120, color: false };

/** A workspace with api and web (one commit each); `w` runs in a pipe, `tty` on a terminal. */
function world(files?: Record<string, string>) {
  const ws = tempDir("ariel-wt-du-");
  const state = tempDir("ariel-wt-du-state-");
  initRepo(join(ws, "api"), files);
  initRepo(join(ws, "web"));
  const run = inWorkspace(command, ws, { env: { ARIEL_STATE_HOME: state } });
  const w = (...argv: string[]) => run(argv);
  const tty = (...argv: string[]) => run(argv, { term: TTY });
  /** Make task `task` with a leg per source (and `extra` flags); add must exit 0. */
  const add = async (task: string, sources: string[], ...extra: string[]) => {
    const r = await w("add", "--task", task, ...sources.flatMap((s) => ["--source", s]), ...extra);
    expect(r.code).toBe(0);
  };
  return { ws, w, tty, add };
}

const lines = (...ls: string[]) => ls.map((l) => `${l}\n`).join("");

/** The free-space line: exact byte counts in a pipe, human sizes on a terminal. */
const FREE_PIPE = /^ariel-worktree: \d+ free of \d+ on <ws>\/\.ariel\/worktrees\n$/;
const SIZE = String.raw`\d+(\.\d)? (B|KiB|MiB|GiB|TiB|PiB)`;
const FREE_TTY = new RegExp(`^ariel-worktree: ${SIZE} free of ${SIZE} on <ws>/\\.ariel/worktrees\\n$`);

const PARTS = ["checkout", "untracked", "ignored", "admin", "total", "hardlinked"] as const;
/** The byte columns of a du record, tab-separated as a pipe prints them. */
const counts = (r: Record<string, unknown>) => PARTS.map((p) => String(r[p])).join("\t");

describe("du: the table", () => {
  it("an empty workspace: the (all) row alone, the free space, 0; --json the workspace record", async () => {
    const { w, tty } = world();
    const pipe = await w("du");
    expect([pipe.code, pipe.stdout]).toEqual([0, "(all)\t0 tasks\t0\t0\t0\t0\t0\t0\t\n"]);
    expect(pipe.stderr).toMatch(/^ariel-worktree: \d+ free of \d+ on <ws>\n$/);
    const term = await tty("du");
    expect([term.code, term.stdout]).toEqual([
      0,
      lines(
        "TASK   SOURCE   CHECKOUT  UNTRACKED  IGNORED  ADMIN  TOTAL  HARDLINKED  PATH",
        "(all)  0 tasks       0 B        0 B      0 B    0 B    0 B         0 B",
      ),
    ]);
    const json = await w("du", "--json");
    expect([json.code, json.stderr]).toEqual([0, ""]);
    expect(records(json.stdout)).toEqual([
      {
        v: 1,
        type: "du.workspace",
        root: "<ws>",
        tasks: 0,
        checkout: 0,
        untracked: 0,
        ignored: 0,
        admin: 0,
        total: 0,
        hardlinked: 0,
        free: expect.any(Number),
        fsSize: expect.any(Number),
        fsPath: "<ws>",
      },
    ]);
  });

  it("legs gone: (absent) rows of zeros, a (task) row after a task of several legs, `2 tasks`", async () => {
    const { ws, w, tty, add } = world();
    await add("t1", ["api", "web"]);
    await add("t2", ["api"]);
    expect((await w("remove", "--task", "t1")).code).toBe(0);
    rmSync(join(ws, ".ariel/worktrees/t2"), { recursive: true });
    const term = await tty("du");
    expect(term).toEqual({
      code: 0,
      stdout: lines(
        "TASK   SOURCE   CHECKOUT  UNTRACKED  IGNORED  ADMIN  TOTAL  HARDLINKED  PATH",
        "t1     api           0 B        0 B      0 B    0 B    0 B         0 B  (absent)",
        "t1     web           0 B        0 B      0 B    0 B    0 B         0 B  (absent)",
        "t1     (task)        0 B        0 B      0 B    0 B    0 B         0 B",
        "t2     api           0 B        0 B      0 B    0 B    0 B         0 B  (absent)",
        "(all)  2 tasks       0 B        0 B      0 B    0 B    0 B         0 B",
      ),
      stderr: expect.stringMatching(FREE_TTY),
    });
    const pipe = await w("du");
    expect(pipe).toEqual({
      code: 0,
      stdout: lines(
        "t1\tapi\t0\t0\t0\t0\t0\t0\t(absent)",
        "t1\tweb\t0\t0\t0\t0\t0\t0\t(absent)",
        "t1\t(task)\t0\t0\t0\t0\t0\t0\t",
        "t2\tapi\t0\t0\t0\t0\t0\t0\t(absent)",
        "(all)\t2 tasks\t0\t0\t0\t0\t0\t0\t",
      ),
      stderr: expect.stringMatching(FREE_PIPE),
    });
    expect((await w("du", "--task", "t2")).stdout).toBe(
      lines("t2\tapi\t0\t0\t0\t0\t0\t0\t(absent)", "(all)\t1 task\t0\t0\t0\t0\t0\t0\t"),
    );
  });

  it("legs there: each leg's bytes, the task's sum after its legs, the workspace's in (all)", async () => {
    const { w, add } = world();
    await add("t1", ["api", "web"]);
    await add("t2", ["api"]);
    const recs = records((await w("du", "--json")).stdout);
    expect(recs.map((r) => [r.type, r.task ?? null, r.source ?? null, r.present ?? null])).toEqual([
      ["du.leg", "t1", "api", true],
      ["du.leg", "t1", "web", true],
      ["du.leg", "t2", "api", true],
      ["du.task", "t1", null, null],
      ["du.task", "t2", null, null],
      ["du.workspace", null, null, null],
    ]);
    const [a, b, c, t1, t2, all] = recs as Record<string, number>[];
    for (const k of PARTS) {
      expect(t1?.[k]).toBe(Number(a?.[k]) + Number(b?.[k]));
      expect(t2?.[k]).toBe(c?.[k]);
      expect(all?.[k]).toBe(Number(t1?.[k]) + Number(t2?.[k]));
    }
    expect(a?.total).toBe(Number(a?.checkout) + Number(a?.untracked) + Number(a?.ignored) + Number(a?.admin));
    expect(Number(a?.checkout) * Number(a?.admin)).toBeGreaterThan(0);
    const r = await w("du");
    expect([r.code, r.stdout]).toEqual([
      0,
      lines(
        `t1\tapi\t${counts(a!)}\t<ws>/.ariel/worktrees/t1/api`,
        `t1\tweb\t${counts(b!)}\t<ws>/.ariel/worktrees/t1/web`,
        `t1\t(task)\t${counts(t1!)}\t`,
        `t2\tapi\t${counts(c!)}\t<ws>/.ariel/worktrees/t2/api`,
        `(all)\t2 tasks\t${counts(all!)}\t`,
      ),
    ]);
    expect((await w("du", "--task", "t1")).stdout).toBe(
      lines(
        `t1\tapi\t${counts(a!)}\t<ws>/.ariel/worktrees/t1/api`,
        `t1\tweb\t${counts(b!)}\t<ws>/.ariel/worktrees/t1/web`,
        `t1\t(task)\t${counts(t1!)}\t`,
        `(all)\t1 task\t${counts(t1!)}\t`,
      ),
    );
  });

  it("--task of no task: 66, the error and its hint", async () => {
    const { w, add } = world();
    await add("t1", ["api"]);
    expect(await w("du", "--task", "t9")).toEqual({
      code: 66,
      stdout: "",
      stderr:
        'ariel-worktree: error: no task "t9" in <ws> [ERR_TASK_NOT_FOUND]\n' +
        "ariel-worktree: hint: run ariel-worktree list --all to see the tasks (closed ones too)\n",
    });
  });
});

describe("du: shares and warnings", () => {
  it("a share store: a du.share record and a (share) row, in the workspace total, left out by --task", async () => {
    const { ws, w, add } = world({ "package-lock.json": "{}\n", ".gitignore": "node_modules/\n" });
    writeFile(join(ws, "api/node_modules/pkg/index.js"), "x".repeat(5000));
    await add("t1", ["api"], "--share", "node_modules", "--share-mode", "store");
    const recs = records((await w("du", "--json")).stdout);
    expect(recs.map((r) => r.type)).toEqual(["du.leg", "du.task", "du.share", "du.workspace"]);
    const [leg, task, share, all] = recs as Record<string, number>[];
    const store = String(share?.store);
    expect(share).toEqual({
      v: 1,
      type: "du.share",
      store: expect.stringMatching(/^[0-9a-f]{32}$/),
      source: "api",
      dir: "node_modules",
      path: `<ws>/.ariel/share/${store}`,
      users: ["t1/api"],
      checkout: 0,
      untracked: 0,
      ignored: share?.total,
      admin: 0,
      total: expect.any(Number),
      hardlinked: expect.any(Number),
    });
    expect(share?.total).toBeGreaterThan(0);
    for (const k of PARTS) expect(all?.[k]).toBe(Number(task?.[k]) + Number(share?.[k]));
    expect((await w("du")).stdout).toBe(
      lines(
        `t1\tapi\t${counts(leg!)}\t<ws>/.ariel/worktrees/t1/api`,
        `(share)\tapi node_modules\t${counts(share!)}\t<ws>/.ariel/share/${store}`,
        `(all)\t1 task\t${counts(all!)}\t`,
      ),
    );
    const one = records((await w("du", "--task", "t1", "--json")).stdout);
    expect(one.map((r) => [r.type, r.total])).toEqual([
      ["du.leg", leg?.total],
      ["du.task", task?.total],
      ["du.workspace", task?.total],
    ]);
  });

  it("a task record that cannot be read: warned as not measured, the rest measured, exit 1 (also --json)", async () => {
    const { ws, w, add } = world();
    await add("t1", ["api"]);
    writeFile(join(ws, ".ariel/tasks/bad.json"), "{nope");
    const warning =
      "<ws>/.ariel/tasks/bad.json: not measured (task record <ws>/.ariel/tasks/bad.json: not valid JSON)";
    const json = await w("du", "--json");
    expect(json.code).toBe(1);
    const recs = records(json.stdout);
    expect(recs.map((r) => r.type)).toEqual(["du.leg", "du.task", "du.workspace"]);
    expect(records(json.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "ERR_RECORD_CORRUPT",
        message: warning,
        path: "<ws>/.ariel/tasks/bad.json",
      },
    ]);
    const pipe = await w("du");
    expect([pipe.code, pipe.stdout]).toEqual([
      1,
      lines(
        `t1\tapi\t${counts(recs[0]!)}\t<ws>/.ariel/worktrees/t1/api`,
        `(all)\t1 task\t${counts(recs[2]!)}\t`,
      ),
    ]);
    const [first, free] = pipe.stderr.split(/(?<=\n)/);
    expect(first).toBe(`ariel-worktree: warning: ${warning}\n`);
    expect(free).toMatch(FREE_PIPE);
  });

  it("a leg git does not see as a worktree: measured as all checkout, WARN_DU_NOT_A_WORKTREE, exit 1", async () => {
    const { ws, w, add } = world();
    await add("t1", ["api", "web"]);
    rmSync(join(ws, ".ariel/worktrees/t1/web/.git"));
    const json = await w("du", "--json", "--task", "t1");
    expect(json.code).toBe(1);
    const web = records(json.stdout)[1] as Record<string, number>;
    expect([web.source, web.present, web.untracked, web.ignored, web.admin]).toEqual(["web", true, 0, 0, 0]);
    expect(web.checkout).toBeGreaterThan(0);
    const path = "<ws>/.ariel/worktrees/t1/web";
    expect(records(json.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "WARN_DU_NOT_A_WORKTREE",
        message: expect.stringMatching(
          new RegExp(`^${path}: not measured \\(git ls-files failed in ${path}: `),
        ),
        path,
      },
    ]);
    const pipe = await w("du", "--task", "t1");
    expect(pipe.code).toBe(1);
    expect(pipe.stdout.split("\n")[1]).toBe(`t1\tweb\t${counts(web)}\t${path}`);
    expect(pipe.stderr).toMatch(
      new RegExp(`^ariel-worktree: warning: ${path}: not measured \\(git ls-files`),
    );
  });
});
