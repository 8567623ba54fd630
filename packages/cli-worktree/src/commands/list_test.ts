import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { formatBytes } from "@ariel/core";
import { describe, expect, it } from "vitest";
import { git, initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records, runInProcess } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { command } from "../command.ts";

// `ariel-worktree list` (and the parts every command shares, _common.ts) run in this process on
// real repositories: the terminal table, the tab-separated lines of a pipe, the --json records.

const TTY: Terminal = { stdout: true, stderr: false, columns: 120, color: false };
const STDERR_TTY: Terminal = { stdout: false, stderr: true, columns: 120, color: false };

/**
 * A workspace with two repositories, api and web (one commit on main each), its own state home
 * (port leases, trust). `w` runs in a pipe, `tty` with stdout a terminal, `run` with any terminal
 * and cwd; `<ws>` stands for the workspace in what they return.
 */
function world() {
  const ws = tempDir("ariel-wt-list-");
  const state = tempDir("ariel-wt-list-state-");
  const initial = initRepo(join(ws, "api"));
  initRepo(join(ws, "web"));
  const inWs = inWorkspace(command, ws, { env: { ARIEL_STATE_HOME: state } });
  const run = (term: Terminal | undefined, cwd: string, argv: string[]) =>
    inWs(argv, { cwd, ...(term ? { term } : {}) });
  const w = (...argv: string[]) => inWs(argv);
  const tty = (...argv: string[]) => inWs(argv, { term: TTY });
  const leg = (task: string, source: string) => join(ws, ".ariel/worktrees", task, source);
  /** Make task `task` with a leg per source; fails the test when add does not exit 0. */
  const add = async (task: string, ...sources: string[]) => {
    const r = await w("add", "--task", task, ...sources.flatMap((s) => ["--source", s]));
    expect(r.code).toBe(0);
  };
  return { ws, initial, run, w, tty, leg, add };
}

const lines = (...ls: string[]) => ls.map((l) => `${l}\n`).join("");

describe("list: what it shows", () => {
  it("an empty workspace: nothing at all, in a pipe, on a terminal (no header alone) and with --json", async () => {
    const { w, tty } = world();
    const empty = { code: 0, stdout: "", stderr: "" };
    expect(await w("list")).toEqual(empty);
    expect(await tty("list")).toEqual(empty);
    expect(await tty("list", "--all")).toEqual(empty);
    expect(await w("list", "--json")).toEqual(empty);
  });

  it("terminal, --no-bytes: header, BYTES right-aligned as -, lock reason or `locked`, an orphan's `-` cells", async () => {
    const { ws, w, tty, leg, add } = world();
    await add("t0", "api");
    await add("t1", "api", "web");
    git(join(ws, "web"), "worktree", "unlock", leg("t1", "web"));
    git(join(ws, "web"), "worktree", "lock", leg("t1", "web"));
    mkdirSync(leg("t9", "stray"), { recursive: true });
    expect(await tty("list", "--no-bytes")).toEqual({
      code: 0,
      stdout: lines(
        "TASK  SOURCE  STATUS    LOCK      BRANCH    BYTES  PATH",
        "t0    api     active    ariel:t0  ariel/t0      -  <ws>/.ariel/worktrees/t0/api",
        "t1    api     active    ariel:t1  ariel/t1      -  <ws>/.ariel/worktrees/t1/api",
        "t1    web     active    locked    ariel/t1      -  <ws>/.ariel/worktrees/t1/web",
        "t9    -       orphaned  -         -             -  <ws>/.ariel/worktrees/t9/stray",
      ),
      stderr: "",
    });
    expect(await w("list", "--no-bytes")).toEqual({
      code: 0,
      stdout: lines(
        "t0\tapi\tactive\tariel:t0\tariel/t0\t-\t<ws>/.ariel/worktrees/t0/api",
        "t1\tapi\tactive\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/api",
        "t1\tweb\tactive\tlocked\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/web",
        "t9\t-\torphaned\t-\t-\t-\t<ws>/.ariel/worktrees/t9/stray",
      ),
      stderr: "",
    });
  });

  it("--json --no-bytes: a worktree record per leg and per orphan, bytes and taskBytes null", async () => {
    const { w, leg, add, initial } = world();
    await add("t1", "api");
    mkdirSync(leg("t1", "stray"), { recursive: true });
    expect(records((await w("list", "--json", "--no-bytes")).stdout)).toEqual([
      {
        v: 1,
        type: "worktree",
        task: "t1",
        source: "api",
        status: "active",
        state: "active",
        branch: "ariel/t1",
        path: "<ws>/.ariel/worktrees/t1/api",
        head: initial,
        locked: true,
        lockReason: "ariel:t1",
        dirty: false,
        bytes: null,
        taskBytes: null,
      },
      {
        v: 1,
        type: "worktree",
        task: "t1",
        source: null,
        status: "orphaned",
        state: null,
        branch: null,
        path: "<ws>/.ariel/worktrees/t1/stray",
        head: null,
        locked: false,
        lockReason: null,
        dirty: null,
        bytes: null,
        taskBytes: null,
      },
    ]);
  });
});

describe("list: sizes and task totals", () => {
  it("bytes measured: exact counts in a pipe, human sizes and a (task) total on a terminal", async () => {
    const { w, tty, add } = world();
    await add("t1", "api", "web");
    const [a, b] = records((await w("list", "--json")).stdout) as { bytes: number; taskBytes: number }[];
    expect(a?.bytes).toBeGreaterThan(0);
    expect([a?.taskBytes, b?.taskBytes]).toEqual([Number(a?.bytes) + Number(b?.bytes), a?.taskBytes]);
    const [ab, bb, total] = [Number(a?.bytes), Number(b?.bytes), Number(a?.taskBytes)];
    expect((await w("list")).stdout).toBe(
      lines(
        `t1\tapi\tactive\tariel:t1\tariel/t1\t${ab}\t<ws>/.ariel/worktrees/t1/api`,
        `t1\tweb\tactive\tariel:t1\tariel/t1\t${bb}\t<ws>/.ariel/worktrees/t1/web`,
      ),
    );
    const cells = ["BYTES", formatBytes(ab), formatBytes(bb), formatBytes(total)];
    const width = Math.max(...cells.map((c) => c.length));
    const [h, x, y, t] = cells.map((c) => c.padStart(width));
    expect((await tty("list")).stdout).toBe(
      lines(
        `TASK  SOURCE  STATUS  LOCK      BRANCH    ${h}  PATH`,
        `t1    api     active  ariel:t1  ariel/t1  ${x}  <ws>/.ariel/worktrees/t1/api`,
        `t1    web     active  ariel:t1  ariel/t1  ${y}  <ws>/.ariel/worktrees/t1/web`,
        `t1    (task)                              ${t}`,
      ),
    );
  });

  it("a (task) row only after the last leg of a task of several legs, also at the end; none for one leg", async () => {
    const { ws, w, tty, add } = world();
    await add("t1", "api", "web");
    await add("t2", "api");
    await add("t3", "api", "web");
    expect((await w("remove", "--task", "t1")).code).toBe(0);
    expect((await w("remove", "--task", "t2")).code).toBe(0);
    rmSync(join(ws, ".ariel/worktrees/t3"), { recursive: true });
    expect(await tty("list", "--all")).toEqual({
      code: 0,
      stdout: lines(
        "TASK  SOURCE  STATUS   LOCK      BRANCH    BYTES  PATH",
        "t1    api     removed  -         ariel/t1    0 B  <ws>/.ariel/worktrees/t1/api",
        "t1    web     removed  -         ariel/t1    0 B  <ws>/.ariel/worktrees/t1/web",
        "t1    (task)                                 0 B",
        "t2    api     removed  -         ariel/t2    0 B  <ws>/.ariel/worktrees/t2/api",
        "t3    api     missing  ariel:t3  ariel/t3    0 B  <ws>/.ariel/worktrees/t3/api",
        "t3    web     missing  ariel:t3  ariel/t3    0 B  <ws>/.ariel/worktrees/t3/web",
        "t3    (task)                                 0 B",
      ),
      stderr: "",
    });
    expect((await w("list", "--all")).stdout).toBe(
      lines(
        "t1\tapi\tremoved\t-\tariel/t1\t0\t<ws>/.ariel/worktrees/t1/api",
        "t1\tweb\tremoved\t-\tariel/t1\t0\t<ws>/.ariel/worktrees/t1/web",
        "t2\tapi\tremoved\t-\tariel/t2\t0\t<ws>/.ariel/worktrees/t2/api",
        "t3\tapi\tmissing\tariel:t3\tariel/t3\t0\t<ws>/.ariel/worktrees/t3/api",
        "t3\tweb\tmissing\tariel:t3\tariel/t3\t0\t<ws>/.ariel/worktrees/t3/web",
      ),
    );
  });

  it("--no-bytes on a terminal: no (task) row, the task total not being known", async () => {
    const { tty, add } = world();
    await add("t1", "api", "web");
    expect((await tty("list", "--no-bytes")).stdout).toBe(
      lines(
        "TASK  SOURCE  STATUS  LOCK      BRANCH    BYTES  PATH",
        "t1    api     active  ariel:t1  ariel/t1      -  <ws>/.ariel/worktrees/t1/api",
        "t1    web     active  ariel:t1  ariel/t1      -  <ws>/.ariel/worktrees/t1/web",
      ),
    );
  });
});

describe("list: SETUP and PORTS columns", () => {
  it("shown once some task has them: its setup and ports, `-` for the others, empty in a (task) row", async () => {
    const { ws, w, tty, add } = world();
    await add("t1", "api", "web");
    writeFile(
      join(ws, "ariel.config.json"),
      '{"ports":["web","api"],"portRange":[29900,29999],"hooks":{"post-create":["true"]}}\n',
    );
    await add("t2", "api");
    writeFile(join(ws, "ariel.config.json"), '{"hooks":{"post-create":["false"]}}\n');
    expect((await w("add", "--task", "t3", "--source", "web")).code).toBe(1);
    rmSync(join(ws, ".ariel/worktrees/t1"), { recursive: true });
    rmSync(join(ws, ".ariel/worktrees/t2"), { recursive: true });
    rmSync(join(ws, ".ariel/worktrees/t3"), { recursive: true });
    const recs = records((await w("list", "--json")).stdout);
    expect(recs.map((r) => [r.task, r.setup, r.ports])).toEqual([
      ["t1", undefined, undefined],
      ["t1", undefined, undefined],
      ["t2", "ok", { web: expect.any(Number), api: expect.any(Number) }],
      ["t3", "failed", undefined],
    ]);
    const p = recs[2]?.ports as { web: number; api: number };
    const ports = `web=${p.web},api=${p.api}`;
    expect(await tty("list")).toEqual({
      code: 0,
      stdout: lines(
        "TASK  SOURCE  STATUS   LOCK      BRANCH    SETUP   PORTS                BYTES  PATH",
        "t1    api     missing  ariel:t1  ariel/t1  -       -                      0 B  <ws>/.ariel/worktrees/t1/api",
        "t1    web     missing  ariel:t1  ariel/t1  -       -                      0 B  <ws>/.ariel/worktrees/t1/web",
        "t1    (task)                                                              0 B",
        `t2    api     missing  ariel:t2  ariel/t2  ok      ${ports}    0 B  <ws>/.ariel/worktrees/t2/api`,
        "t3    web     missing  ariel:t3  ariel/t3  failed  -                      0 B  <ws>/.ariel/worktrees/t3/web",
      ),
      stderr: "",
    });
    expect((await w("list", "--no-bytes")).stdout).toBe(
      lines(
        "t1\tapi\tmissing\tariel:t1\tariel/t1\t-\t-\t-\t<ws>/.ariel/worktrees/t1/api",
        "t1\tweb\tmissing\tariel:t1\tariel/t1\t-\t-\t-\t<ws>/.ariel/worktrees/t1/web",
        `t2\tapi\tmissing\tariel:t2\tariel/t2\tok\t${ports}\t-\t<ws>/.ariel/worktrees/t2/api`,
        "t3\tweb\tmissing\tariel:t3\tariel/t3\tfailed\t-\t-\t<ws>/.ariel/worktrees/t3/web",
      ),
    );
  });

  it("a PORTS column with `-` for a task whose record holds no port", async () => {
    const { ws, tty, add } = world();
    await add("t1", "api");
    const file = join(ws, ".ariel/tasks/t1.json");
    const rec = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    writeFile(file, `${JSON.stringify({ ...rec, ports: {} })}\n`);
    expect(await tty("list", "--no-bytes")).toEqual({
      code: 0,
      stdout: lines(
        "TASK  SOURCE  STATUS  LOCK      BRANCH    PORTS  BYTES  PATH",
        "t1    api     active  ariel:t1  ariel/t1  -          -  <ws>/.ariel/worktrees/t1/api",
      ),
      stderr: "",
    });
  });
});

describe("list: which tasks", () => {
  it("a closed task with nothing left only with --all or its --task; --task shows that task alone", async () => {
    const { w, add } = world();
    await add("t1", "api");
    await add("t2", "web");
    expect((await w("remove", "--task", "t2")).code).toBe(0);
    const t1 = "t1\tapi\tactive\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/api\n";
    const t2 = "t2\tweb\tremoved\t-\tariel/t2\t-\t<ws>/.ariel/worktrees/t2/web\n";
    expect(await w("list", "--no-bytes")).toEqual({ code: 0, stdout: t1, stderr: "" });
    expect(await w("list", "--no-bytes", "--all")).toEqual({ code: 0, stdout: t1 + t2, stderr: "" });
    expect(await w("list", "--no-bytes", "-a")).toEqual({ code: 0, stdout: t1 + t2, stderr: "" });
    expect(await w("list", "--no-bytes", "--task", "t2")).toEqual({ code: 0, stdout: t2, stderr: "" });
    expect(await w("list", "--no-bytes", "--task", "t1")).toEqual({ code: 0, stdout: t1, stderr: "" });
  });

  it("--task of no task: 66, the error and its hint, nothing on stdout", async () => {
    const { tty, add } = world();
    await add("t1", "api");
    expect(await tty("list", "--task", "t9")).toEqual({
      code: 66,
      stdout: "",
      stderr:
        'ariel-worktree: error: no task "t9" in <ws> [ERR_TASK_NOT_FOUND]\n' +
        "ariel-worktree: hint: run ariel-worktree list --all to see the tasks (closed ones too)\n",
    });
  });

  it("a task record that cannot be read: warned about, the other rows listed, exit 1", async () => {
    const { ws, w, add } = world();
    await add("t1", "api");
    writeFile(join(ws, ".ariel/tasks/bad.json"), "{nope");
    expect(await w("list", "--no-bytes")).toEqual({
      code: 1,
      stdout: "t1\tapi\tactive\tariel:t1\tariel/t1\t-\t<ws>/.ariel/worktrees/t1/api\n",
      stderr: "ariel-worktree: warning: task record <ws>/.ariel/tasks/bad.json: not valid JSON\n",
    });
    const json = await w("list", "--no-bytes", "--json");
    expect(json.code).toBe(1);
    expect(records(json.stdout).map((r) => [r.task, r.source])).toEqual([["t1", "api"]]);
    expect(records(json.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "ERR_RECORD_CORRUPT",
        message: "task record <ws>/.ariel/tasks/bad.json: not valid JSON",
        path: "<ws>/.ariel/tasks/bad.json",
        task: "bad",
      },
    ]);
  });

  it("a workspace root that does not exist: 66, ERR_WORKSPACE_NOT_FOUND", async () => {
    const { ws } = world();
    const r = await runInProcess(command, ["-C", join(ws, "nope"), "list"], { cwd: ws });
    expect({ ...r, stderr: r.stderr.replaceAll(ws, "<ws>") }).toEqual({
      code: 66,
      stdout: "",
      stderr:
        'ariel-worktree: error: workspace root "<ws>/nope" does not exist [ERR_WORKSPACE_NOT_FOUND]\n' +
        "ariel-worktree: hint: pass -C DIR or set ARIEL_WORKSPACE_ROOT\n",
    });
  });
});

describe("what the commands share (_common.ts)", () => {
  it("a progress line on a terminal's stderr, erased at the end; none with --json", async () => {
    const { ws, run, leg } = world();
    const erase = "\r\x1b[K";
    expect(await run(STDERR_TTY, ws, ["add", "--task", "t1", "--source", "api", "--source", "web"])).toEqual({
      code: 0,
      stdout:
        "t1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tariel/t1\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: `${erase}[1/2] api: creating worktree${erase}[2/2] web: creating worktree${erase}ariel-worktree: made task t1\n`,
    });
    const json = await run(STDERR_TTY, ws, ["add", "--json", "--task", "t2", "--source", "api"]);
    expect([json.code, json.stderr, records(json.stdout).map((r) => [r.type, r.taskId])]).toEqual([
      0,
      "",
      [["task", "t2"]],
    ]);
    expect(git(leg("t2", "api"), "branch", "--show-current")).toBe("ariel/t2");
  });

  it("a next command names -C ROOT only when the root was given and is not the cwd", async () => {
    const { ws, run, leg, add } = world();
    await add("t1", "api", "web");
    rmSync(join(leg("t1", "web"), ".git"));
    const elsewhere = tempDir("ariel-wt-list-cwd-");
    const summary = (root: string) =>
      `ariel-worktree: 1 of 2 legs failed: web (ERR_WORKTREE_MISSING); next: ariel-worktree reconcile${root} && ariel-worktree restore${root} --task t1 --source web\n`;
    const there = await run(undefined, elsewhere, ["verify", "--task", "t1"]);
    expect([there.code, there.stderr.split("\n").slice(2).join("\n")]).toEqual([3, summary(" -C <ws>")]);
    const here = await run(undefined, ws, ["verify", "--task", "t1"]);
    expect([here.code, here.stderr.split("\n").slice(2).join("\n")]).toEqual([3, summary("")]);
    expect(here.stdout).toBe(
      "t1\tapi\tok\t-\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tFAIL\tERR_WORKTREE_MISSING\t<ws>/.ariel/worktrees/t1/web\n",
    );
  });

  it("a dry run's lifecycle plan (ports, hooks) after its own rows: lines in a pipe, plan records with --json", async () => {
    const { ws, w, initial } = world();
    writeFile(join(ws, "ariel.config.json"), '{"ports":["web"],"hooks":{"post-create":["true"]}}\n');
    expect(await w("add", "-n", "--task", "t5", "--source", "api")).toEqual({
      code: 0,
      stdout: lines(
        "add\tt5\tapi\tariel/t5\t<ws>/.ariel/worktrees/t5/api",
        "port\tt5\tweb\t20000-29999",
        'hook\tt5\tpost-create\tapi\tyours\t<ws>/ariel.config.json\t["true"]',
      ),
      stderr: "",
    });
    expect(records((await w("add", "-n", "--json", "--task", "t5", "--source", "api")).stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "worktree.add",
        task: "t5",
        source: "api",
        sourcePath: "<ws>/api",
        branch: "ariel/t5",
        base: initial,
        path: "<ws>/.ariel/worktrees/t5/api",
        mode: "create",
        lock: "ariel:t5",
        overlay: [],
      },
      { v: 1, type: "plan", action: "port.lease", task: "t5", name: "web", range: [20000, 29999] },
      {
        v: 1,
        type: "plan",
        action: "hook.run",
        task: "t5",
        event: "post-create",
        source: "api",
        path: "<ws>/.ariel/worktrees/t5/api",
        origin: "workspace",
        file: "<ws>/ariel.config.json",
        hook: ["true"],
        argv: ["true"],
        trusted: true,
      },
    ]);
  });
});

describe("list on a terminal: a leftover directory of a live task", () => {
  it("joins its task's rows, and the (task) total is said once, after them; a pipe keeps the order listed", async () => {
    const { ws, w, tty, add } = world();
    await add("t1", "api", "web");
    await add("t2", "api");
    mkdirSync(join(ws, ".ariel/worktrees/t1/junk"));
    writeFile(join(ws, ".ariel/worktrees/t1/junk/x"), "x\n");
    const cells = (text: string) => text.split("\n").map((l) => l.split(/ {2,}/).slice(0, 3).join(" "));
    const taskBytes = Number(
      records((await w("list", "--json")).stdout).find((r) => r.task === "t1")?.taskBytes,
    );
    expect(taskBytes).toBeGreaterThan(0);
    expect(cells((await tty("list")).stdout)).toEqual([
      "TASK SOURCE STATUS",
      "t1 api active",
      "t1 web active",
      "t1 - orphaned",
      `t1 (task) ${formatBytes(taskBytes)}`,
      "t2 api active",
      "",
    ]);
    const piped = (await w("list", "--no-bytes")).stdout
      .split("\n")
      .map((l) => l.split("\t").slice(0, 3).join(" "));
    expect(piped).toEqual(["t1 api active", "t1 web active", "t2 api active", "t1 - orphaned", ""]);
  });
});
