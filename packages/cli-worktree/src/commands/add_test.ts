import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { workspaceHash } from "../../../core/src/hash.ts";
import { commitAll, git, initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records, runInProcess } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { runFields } from "../../../core/src/host/runs/_fixture.ts";
import { selfMonitorRef } from "../../../core/src/host/runs/identity.ts";
import { createRun } from "../../../core/src/host/runs/store.ts";
import { runPaths } from "../../../core/src/runs/paths.ts";
import { command } from "../command.ts";

// `ariel-worktree add` in this process on real repositories: each flag's effect on the legs it
// makes, what it prints (pipe, terminal, --json, -n) and its refusals.

const TTY: Terminal = { stdout: true, stderr: false, columns: 120, color: false };

/** A workspace of repositories (api and web by default), one commit each; `w` runs a command in it. */
function world(repos: readonly string[] = ["api", "web"]) {
  const ws = tempDir("ariel-wt-add-");
  for (const r of repos) initRepo(join(ws, r));
  const run = inWorkspace(command, ws);
  const w = (...argv: string[]) => run(argv);
  const leg = (task: string, source: string) => join(ws, ".ariel/worktrees", task, source);
  return { ws, w, run, leg };
}

/** The first commit of every repository here (fixed identity and dates). */
const INITIAL = initRepo(join(tempDir("ariel-wt-sha-"), "r"));

/** Commit `hooks` as the source's ariel.config.json and trust them; returns the revoke. */
async function trustedHooks(
  ws: string,
  w: (...a: string[]) => Promise<unknown>,
  source: string,
  hooks: object,
) {
  writeFile(join(ws, source, "ariel.config.json"), `${JSON.stringify({ hooks })}\n`);
  commitAll(join(ws, source), "config");
  await w("trust", "--source", source);
  return () => w("trust", "--revoke", "--source", source);
}

describe("add: the terminal form and --json", () => {
  it("on a terminal: a table with its header, for the plan (-n) and for the task made", async () => {
    const { run } = world();
    const argv = ["add", "--task", "t1", "--source", "api", "--source", "web"];
    expect(await run([...argv, "-n"], { term: TTY })).toEqual({
      code: 0,
      stdout:
        "ACTION  TASK  SOURCE  BRANCH    PATH\n" +
        "add     t1    api     ariel/t1  <ws>/.ariel/worktrees/t1/api\n" +
        "add     t1    web     ariel/t1  <ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(await run(argv, { term: TTY })).toEqual({
      code: 0,
      stdout:
        "TASK  SOURCE  BRANCH    PATH\n" +
        "t1    api     ariel/t1  <ws>/.ariel/worktrees/t1/api\n" +
        "t1    web     ariel/t1  <ws>/.ariel/worktrees/t1/web\n",
      stderr: "ariel-worktree: made task t1\n",
    });
    expect(await run([...argv, "-n"], { term: TTY })).toEqual({
      code: 0,
      stdout: "",
      stderr: "ariel-worktree: task t1 exists already; nothing to do\n",
    });
  });

  it("-n --json: a plan record per leg, each with its own overlay; nothing made", async () => {
    const { ws, w, leg } = world();
    writeFile(join(ws, "api/.env"), "KEY=1\n");
    const r = await w("add", "-n", "--json", "--task", "t1", "--source", "api", "--source", "web");
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const plan = (source: string, overlay: unknown[]) => ({
      v: 1,
      type: "plan",
      action: "worktree.add",
      task: "t1",
      source,
      sourcePath: `<ws>/${source}`,
      branch: "ariel/t1",
      base: INITIAL,
      path: `<ws>/.ariel/worktrees/t1/${source}`,
      mode: "create",
      lock: "ariel:t1",
      overlay,
    });
    expect(records(r.stdout)).toEqual([
      plan("api", [{ path: ".env", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]),
      plan("web", []),
    ]);
    expect(existsSync(leg("t1", "api"))).toBe(false);
  });

  it("--json: the task record it made; a repeat prints the same record", async () => {
    const { w } = world();
    const made = await w("add", "--json", "--task", "t1", "--source", "api");
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
          branch: "ariel/t1",
          base: INITIAL,
          head: INITIAL,
          worktreePath: "<ws>/.ariel/worktrees/t1/api",
          state: "active",
        },
      ],
    });
    const again = await w("add", "--json", "--task", "t1", "--source", "api");
    expect([again.code, again.stderr, records(again.stdout)]).toEqual([0, "", [rec]]);
  });
});

describe("add: where the legs start and what they carry", () => {
  it("--base and --branch: every leg starts at the base, on that branch", async () => {
    const { ws, w, leg } = world();
    writeFile(join(ws, "api/later.txt"), "x\n");
    commitAll(join(ws, "api"), "later");
    const r = await w("add", "--task", "t1", "--source", "api", "--base", INITIAL, "--branch", "feat/x");
    expect(r).toEqual({
      code: 0,
      stdout: "t1\tapi\tfeat/x\t<ws>/.ariel/worktrees/t1/api\n",
      stderr: "ariel-worktree: made task t1\n",
    });
    expect(git(leg("t1", "api"), "rev-parse", "HEAD")).toBe(INITIAL);
    expect(git(leg("t1", "api"), "branch", "--show-current")).toBe("feat/x");
    expect(existsSync(join(leg("t1", "api"), "later.txt"))).toBe(false);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toBe("");
  });

  it("without --base each leg starts at its source's HEAD", async () => {
    const { ws, w, leg } = world();
    writeFile(join(ws, "api/later.txt"), "x\n");
    const head = commitAll(join(ws, "api"), "later");
    expect((await w("add", "--task", "t1", "--source", "api")).code).toBe(0);
    expect(git(leg("t1", "api"), "rev-parse", "HEAD")).toBe(head);
  });

  it("a --base that names no commit (66), a bad --branch (65): refused, nothing made", async () => {
    const { ws, w } = world();
    expect(await w("add", "--task", "t1", "--source", "api", "--base", "nope")).toEqual({
      code: 66,
      stdout: "",
      stderr:
        "ariel-worktree: error: base nope not found in source api [ERR_NOINPUT]\n" +
        "ariel-worktree: hint: pass --base with a commit that exists in every source\n",
    });
    expect(await w("add", "--task", "t1", "--source", "api", "--branch", "a..b")).toEqual({
      code: 65,
      stdout: "",
      stderr:
        'ariel-worktree: error: invalid branch name "a..b": contains ".." [ERR_INVALID_BRANCH]\n' +
        "ariel-worktree: hint: use a plain branch name such as ariel/my-task\n",
    });
    expect(existsSync(join(ws, ".ariel/worktrees/t1"))).toBe(false);
  });

  it("--with-changes carries the source's uncommitted work; without it a warning names what stays behind", async () => {
    const { ws, w, leg } = world();
    writeFile(join(ws, "api/README.md"), "changed\n");
    writeFile(join(ws, "api/new.txt"), "new\n");
    const left = await w("add", "--task", "t1", "--source", "api");
    expect([left.code, left.stderr]).toEqual([
      0,
      'ariel-worktree: warning: "api" has uncommitted changes its new worktree starts without: README.md, new.txt\n' +
        "ariel-worktree: hint: pass --with-changes to carry them into the worktree (the source stays as it is), or commit them first\n" +
        "ariel-worktree: made task t1\n",
    ]);
    expect(existsSync(join(leg("t1", "api"), "new.txt"))).toBe(false);
    expect(readFileSync(join(leg("t1", "api"), "README.md"), "utf8")).toBe("hello\n");

    const carried = await w("add", "--task", "t2", "--source", "api", "--with-changes");
    expect(carried).toEqual({
      code: 0,
      stdout: "t2\tapi\tariel/t2\t<ws>/.ariel/worktrees/t2/api\n",
      stderr: "ariel-worktree: made task t2\n",
    });
    expect(readFileSync(join(leg("t2", "api"), "new.txt"), "utf8")).toBe("new\n");
    expect(readFileSync(join(leg("t2", "api"), "README.md"), "utf8")).toBe("changed\n");
    expect(readFileSync(join(ws, "api/new.txt"), "utf8")).toBe("new\n");
    expect(git(leg("t2", "api"), "rev-parse", "HEAD")).toBe(INITIAL);
  });

  it("--sparse: only the named directories and the top-level files; a path out of the checkout is a usage error", async () => {
    const { ws, w, leg } = world();
    writeFile(join(ws, "api/src/a.txt"), "a\n");
    writeFile(join(ws, "api/docs/b.txt"), "b\n");
    commitAll(join(ws, "api"), "tree");
    const [rec] = records(
      (await w("add", "--json", "--task", "t1", "--source", "api", "--sparse", "src")).stdout,
    );
    expect(rec).toMatchObject({ legs: [{ source: "api", sparse: ["src"] }] });
    expect(readdirSync(leg("t1", "api")).sort()).toEqual([".git", "README.md", "src"]);
    expect(existsSync(join(leg("t1", "api"), "src/a.txt"))).toBe(true);

    expect((await w("add", "--task", "t2", "--source", "api")).code).toBe(0);
    expect(existsSync(join(leg("t2", "api"), "docs/b.txt"))).toBe(true);

    expect(await w("add", "--task", "t3", "--source", "api", "--sparse", "../x")).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-worktree: error: --sparse: not a directory inside the checkout: "../x" [ERR_USAGE]\n' +
        "ariel-worktree: hint: name directories relative to the source's top, e.g. --sparse packages/api\n",
    });
  });
});

describe("add: sizes and defaults", () => {
  it("a --min-free that is no size names the flag", async () => {
    const { w } = world();
    const r = await w("add", "--task", "t1", "--source", "api", "--min-free", "lots");
    expect(r).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-worktree: error: --min-free: not a size: "lots" [ERR_USAGE]\n' +
        "ariel-worktree: hint: write a byte count or a number with K, M, G or T (binary units), e.g. 512M or 5G\n",
    });
  });

  it("at a root that is itself a checkout, no --source means the root ('.')", async () => {
    const ws = tempDir("ariel-wt-add-root-");
    initRepo(ws, { "README.md": "hello\n", ".gitignore": ".ariel/\n" });
    const r = await runInProcess(command, ["-C", ws, "add", "--task", "t1"], { cwd: ws });
    const name = ws.split("/").pop();
    expect([r.code, r.stdout.replaceAll(ws, "<ws>")]).toEqual([
      0,
      `t1\t.\tariel/t1\t<ws>/.ariel/worktrees/t1/${name}\n`,
    ]);
  });
});

/** api with a committed lockfile and an installed (ignored) node_modules of two files. */
function shareWorld() {
  const world_ = world([]);
  initRepo(join(world_.ws, "api"), {
    "README.md": "hi\n",
    ".gitignore": "node_modules/\n",
    "package-lock.json": "{}\n",
  });
  writeFile(join(world_.ws, "api/node_modules/pkg/index.js"), "x\n");
  writeFile(join(world_.ws, "api/node_modules/pkg/package.json"), "{}\n");
  initRepo(join(world_.ws, "web"));
  return world_;
}

describe("add --share", () => {
  it("tree mode: the leg's files are hardlinks to the source's; a source without the directory is warned about", async () => {
    const { ws, w, leg } = shareWorld();
    expect(
      await w("add", "--task", "t1", "--source", "api", "--source", "web", "--share", "node_modules"),
    ).toEqual({
      code: 0,
      stdout:
        "t1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\nt1\tweb\tariel/t1\t<ws>/.ariel/worktrees/t1/web\n",
      stderr:
        "ariel-worktree: api: node_modules shared from the source (2 files hardlinked)\n" +
        "ariel-worktree: warning: web: node_modules not shared: the source has no node_modules\n" +
        "ariel-worktree: hint: run the install in <ws>/.ariel/worktrees/t1/web to give the worktree its own node_modules\n" +
        "ariel-worktree: made task t1\n",
    });
    const file = "node_modules/pkg/index.js";
    expect(statSync(join(leg("t1", "api"), file)).ino).toBe(statSync(join(ws, "api", file)).ino);
    expect(existsSync(join(leg("t1", "web"), "node_modules"))).toBe(false);
    expect(existsSync(join(ws, ".ariel/share"))).toBe(false);
  });

  it("store mode: the first leg makes the store, the next one reuses it", async () => {
    const { ws, w, leg } = shareWorld();
    const argv = ["--source", "api", "--share", "node_modules", "--share-mode", "store"];
    const first = await w("add", "--task", "t1", ...argv);
    const [key] = readdirSync(join(ws, ".ariel/share"));
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(first.stderr).toBe(
      `ariel-worktree: api: node_modules shared through store ${key} (made now) (0 files hardlinked into the worktree)\n` +
        "ariel-worktree: made task t1\n",
    );
    expect((await w("add", "--task", "t2", ...argv)).stderr).toBe(
      `ariel-worktree: api: node_modules shared through store ${key} (0 files hardlinked into the worktree)\n` +
        "ariel-worktree: made task t2\n",
    );
    expect(readdirSync(join(ws, ".ariel/share"))).toEqual([key]);
    expect(readFileSync(join(leg("t2", "api"), "node_modules/pkg/index.js"), "utf8")).toBe("x\n");
  });

  it("a bad --share name or --share-mode is a usage error (64); nothing made", async () => {
    const { ws, w } = shareWorld();
    expect(await w("add", "--task", "t1", "--source", "api", "--share", "../x")).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-worktree: error: --share: not a directory name: "../x" [ERR_USAGE]\n' +
        "ariel-worktree: hint: name a directory at the top of the checkout, e.g. --share node_modules\n",
    });
    expect(await w("add", "--task", "t1", "--source", "api", "--share-mode", "bogus")).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-worktree: error: --share-mode: not a mode: "bogus" [ERR_USAGE]\n' +
        "ariel-worktree: hint: use one of: tree, store\n",
    });
    expect(existsSync(join(ws, ".ariel/worktrees/t1"))).toBe(false);
  });
});

describe("add: post-create hooks", () => {
  it("a failing setup: the legs are kept, 1, the failed legs named and the retry with -C when the root was named", async () => {
    const { ws, w, run, leg } = world(["api", "web", "lib"]);
    const revokes = [
      await trustedHooks(ws, w, "api", { "post-create": "false" }),
      await trustedHooks(ws, w, "web", { "post-create": "true" }),
      await trustedHooks(ws, w, "lib", { "post-create": "false" }),
    ];
    const argv = ["add", "--task", "t1", "--source", "api", "--source", "web", "--source", "lib"];
    const r = await run(argv, { cwd: tempDir("ariel-wt-elsewhere-") });
    const retry = "ariel-worktree -C <ws> hooks run --task t1 --event post-create";
    const failed = (s: string) =>
      `ariel-worktree: error: ${s}: post-create hook "false" exited 1; the leg is kept (setup: failed) [ERR_HOOK_FAILED]\n` +
      `ariel-worktree: hint: read <ws>/.ariel/hooks/t1.log, fix the cause, then: ${retry}\n`;
    expect(r).toEqual({
      code: 1,
      stdout: ["api", "web", "lib"]
        .map((s) => `t1\t${s}\tariel/t1\t<ws>/.ariel/worktrees/t1/${s}\n`)
        .join(""),
      stderr: `${failed("api")}${failed("lib")}ariel-worktree: made task t1, but its setup failed in api, lib (the legs are kept); log: <ws>/.ariel/hooks/t1.log; retry: ${retry}\n`,
    });
    expect(existsSync(leg("t1", "lib"))).toBe(true);
    const t2 = await w("add", "--task", "t2", "--source", "web", "--source", "lib");
    expect([t2.code, t2.stderr.split("\n").at(-2)]).toEqual([
      1,
      "ariel-worktree: made task t2, but its setup failed in lib (the legs are kept); log: <ws>/.ariel/hooks/t2.log; retry: ariel-worktree hooks run --task t2 --event post-create",
    ]);
    for (const revoke of revokes) await revoke();
  });

  it("--no-hooks runs none: the leg's setup is skipped; -n shows the hook it would run, as a record or a second table", async () => {
    const { ws, w, run, leg } = world(["api"]);
    const revoke = await trustedHooks(ws, w, "api", { "post-create": "touch made.txt" });
    const [rec] = records((await w("add", "--json", "--no-hooks", "--task", "t1", "--source", "api")).stdout);
    expect(rec).toMatchObject({ legs: [{ source: "api", setup: "skipped" }] });
    expect(existsSync(join(leg("t1", "api"), "made.txt"))).toBe(false);

    const plan = records((await w("add", "-n", "--json", "--task", "t2", "--source", "api")).stdout);
    expect(plan.map((p) => p.action)).toEqual(["worktree.add", "hook.run"]);
    expect(plan[1]).toMatchObject({ task: "t2", event: "post-create", source: "api", trusted: true });
    expect((await run(["add", "-n", "--task", "t2", "--source", "api"], { term: TTY })).stdout).toBe(
      "ACTION  TASK  SOURCE  BRANCH    PATH\n" +
        "add     t2    api     ariel/t2  <ws>/.ariel/worktrees/t2/api\n" +
        "\n" +
        `ACTION  TASK  EVENT        SOURCE  TRUST    ${"FILE".padEnd(`${ws}/api/ariel.config.json`.length)}  COMMAND\n` +
        "hook    t2    post-create  api     trusted  <ws>/api/ariel.config.json  touch made.txt\n",
    );
    expect((await w("add", "--task", "t2", "--source", "api")).code).toBe(0);
    expect(existsSync(join(leg("t2", "api"), "made.txt"))).toBe(true);
    await revoke();
  });
});

const RUN1 = "20261202T110901Z-aaaaaa";
const RUN2 = "20261202T110902Z-bbbbbb";

/** A detached run of task `task` at work now (its monitor: this process). */
async function runIn(ws: string, runId: string, task: string): Promise<void> {
  mkdirSync(runPaths(ws, runId).dir, { recursive: true });
  const live = { pid: process.pid, startTime: null, pgid: process.pid };
  const fields = runFields({ root: ws, hash: await workspaceHash(ws) }, runId, {
    name: null,
    task,
    monitor: selfMonitorRef(),
    child: live,
  });
  await createRun(ws, fields);
}

describe("add of a task runs work in", () => {
  it("a repeat warns (WARN_TASK_IN_USE) and names the runs; a new task's add does not", async () => {
    const { ws, w } = world();
    await runIn(ws, RUN1, "t1");
    const argv = ["add", "--task", "t1", "--source", "api"];
    expect(await w(...argv)).toEqual({
      code: 0,
      stdout: "t1\tapi\tariel/t1\t<ws>/.ariel/worktrees/t1/api\n",
      stderr: "ariel-worktree: made task t1\n",
    });
    const hint = `ariel-worktree: hint: its worktrees are shared with that run: ariel-runs wait ${RUN1} before changing them\n`;
    expect((await w(...argv)).stderr).toBe(
      `ariel-worktree: warning: task t1 exists already and run ${RUN1} (running) works in it\n${hint}` +
        "ariel-worktree: task t1 exists already; nothing changed\n",
    );
    await runIn(ws, RUN2, "t1");
    expect((await w(...argv, "-n")).stderr).toBe(
      `ariel-worktree: warning: task t1 exists already and runs ${RUN1} (running), ${RUN2} (running) work in it\n${hint}` +
        "ariel-worktree: task t1 exists already; nothing to do\n",
    );
    expect(records((await w(...argv, "--json")).stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "WARN_TASK_IN_USE",
        message: `task t1 exists already and runs ${RUN1} (running), ${RUN2} (running) work in it`,
        hint: `its worktrees are shared with that run: ariel-runs wait ${RUN1} before changing them`,
        task: "t1",
        runs: [RUN1, RUN2],
      },
    ]);
  });
});
