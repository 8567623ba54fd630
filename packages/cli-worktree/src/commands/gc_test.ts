import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatBytes } from "@ariel/core";
import { describe, expect, it } from "vitest";
import { commitAll, git, gitRaw, initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { command } from "../command.ts";

// `ariel-worktree gc` in this process on real repositories (docs/disk.md, "ariel-worktree gc"):
// what it plans and prints in each form, its exit status, and what it leaves on disk and in git.

/** Both streams a terminal: tables, human sizes, progress lines. */
const TTY: Terminal = { stdout: true, stderr: true, columns: 120, color: false };

/**
 * A workspace with two repositories, api and web, and its own user state dir (trust, ports);
 * `w` runs a command in a pipe, `wt` on a terminal, `from` with another cwd.
 */
function world() {
  const ws = tempDir("ariel-wt-gc-");
  const env = { ARIEL_STATE_HOME: tempDir("ariel-wt-gc-home-") };
  initRepo(join(ws, "api"));
  initRepo(join(ws, "web"));
  const run = inWorkspace(command, ws, { env });
  const w = (...argv: string[]) => run(argv);
  const wt = (...argv: string[]) => run(argv, { term: TTY });
  const from = (cwd: string, ...argv: string[]) => run(argv, { cwd });
  const leg = (task: string, source: string) => join(ws, ".ariel/worktrees", task, source);
  return { ws, w, wt, from, leg };
}

/** The bytes `gc -n --json ARGS` plans to reclaim per task, run or store, in plan order. */
async function plannedBytes(w: ReturnType<typeof world>["w"], ...argv: string[]): Promise<number[]> {
  return records((await w("gc", "-n", "--json", ...argv)).stdout).map((r) => Number(r.bytes));
}

/** Refs under refs/ariel/ of a repository, one `<name>` a line ("" when none). */
const arielRefs = (repo: string) => git(repo, "for-each-ref", "--format=%(refname)", "refs/ariel/");

/** A live lease held by a process on another host (gc cannot tell it is gone: it counts as held). */
function holdLease(ws: string, task: string): void {
  mkdirSync(join(ws, ".ariel/leases"), { recursive: true });
  const lease = {
    v: 1,
    type: "lease",
    taskId: task,
    owner: "someone",
    token: 9,
    pid: 1,
    processStart: null,
    host: "elsewhere.invalid",
    acquiredAt: "2026-01-01T00:00:00.000Z",
    expiresAt: "9999-01-01T00:00:00.000Z",
  };
  writeFileSync(join(ws, ".ariel/leases", `${task}.json`), JSON.stringify(lease));
}

/** Lock the leg's worktree for someone else: `remove` refuses it even with a snapshot. */
function lockForeign(ws: string, leg: string): void {
  gitRaw(join(ws, "api"), "worktree", "unlock", leg);
  gitRaw(join(ws, "api"), "worktree", "lock", "--reason", "mine", leg);
}

/** Task t1 on api with a snapshotted then restored leg: its snapshot ref is left to drop. */
async function restoredTask(t: ReturnType<typeof world>): Promise<string> {
  await t.w("add", "--task", "t1", "--source", "api");
  writeFile(join(t.leg("t1", "api"), "new.txt"), "x\n");
  await t.w("remove", "--task", "t1", "--snapshot");
  await t.w("restore", "--task", "t1");
  return git(join(t.ws, "api"), "rev-parse", "refs/ariel/snapshots/t1/api");
}

describe("gc: its flags", () => {
  it.each([
    [
      ["--keep-bytes", "12Q"],
      'ariel-worktree: error: --keep-bytes: not a size: "12Q" [ERR_USAGE]\n' +
        "ariel-worktree: hint: write a byte count or a number with K, M, G or T (binary units), e.g. 512M or 5G\n",
    ],
    [
      ["--older-than", "forever"],
      'ariel-worktree: error: --older-than needs a duration such as 10s, 5m, 2h or 7d, got "forever" [ERR_USAGE]\n' +
        "ariel-worktree: hint: run ariel-worktree gc --help to see the flags\n",
    ],
  ])("gc %j is a usage error that names the flag", async (flag, stderr) => {
    const { w } = world();
    expect(await w("gc", ...flag)).toEqual({ code: 64, stdout: "", stderr });
  });

  it("an unknown --state in --json: the error record carries the value", async () => {
    const { w } = world();
    expect(records((await w("gc", "--state", "bogus", "--json")).stderr)).toEqual([
      {
        v: 1,
        type: "error",
        code: "ERR_USAGE",
        message: '--state: unknown task state "bogus"',
        hint: "use one of: active, cleaning, closed, unknown",
        exit: 64,
        value: "bogus",
      },
    ]);
  });
});

describe("gc --keep-bytes", () => {
  it("-n: the oldest tasks' worktrees until at most SIZE stays; JSON, pipe and terminal forms", async () => {
    const { w, wt, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    await w("add", "--task", "t2", "--source", "api", "--source", "web");
    const plan = records((await w("gc", "-n", "--keep-bytes", "0", "--json")).stdout);
    const [b1 = 0, b2 = 0] = plan.map((r) => Number(r.bytes));
    expect(b2).toBeGreaterThan(b1);
    expect(plan).toEqual([
      { v: 1, type: "plan", action: "gc.task.remove", task: "t1", bytes: b1, reason: "keep-bytes" },
      { v: 1, type: "plan", action: "gc.task.remove", task: "t2", bytes: b2, reason: "keep-bytes" },
    ]);
    expect(await w("gc", "-n", "--detailed-exitcode", "--keep-bytes", "0")).toEqual({
      code: 2,
      stdout: `task.remove\tt1\t${b1}\ntask.remove\tt2\t${b2}\n`,
      stderr: `ariel-worktree: 2 actions, ${formatBytes(b1 + b2)} to reclaim\n`,
    });
    // t1 is the older: once it is gone, t2's bytes fit.
    expect(await wt("gc", "-n", "--keep-bytes", String(b2))).toEqual({
      code: 0,
      stdout: `ACTION       WHAT  BYTES\ntask.remove  t1    ${formatBytes(b1)}\n`,
      stderr: `ariel-worktree: 1 action, ${formatBytes(b1)} to reclaim\n`,
    });
    expect(await w("gc", "-n", "--detailed-exitcode", "--keep-bytes", "1T")).toEqual({
      code: 0,
      stdout: "",
      stderr: "ariel-worktree: 0 actions, 0 B to reclaim\n",
    });
    expect([leg("t1", "api"), leg("t2", "api"), leg("t2", "web")].map((p) => existsSync(p))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("applied on a terminal: progress lines, the oldest task removed, its branch kept; --json: no progress", async () => {
    const { ws, w, wt, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    await w("add", "--task", "t2", "--source", "api", "--source", "web");
    const [, b2 = 0] = await plannedBytes(w, "--keep-bytes", "0");
    expect(await wt("gc", "--keep-bytes", String(b2))).toEqual({
      code: 0,
      stdout: "ACTION       WHAT  OUTCOME\ntask.remove  t1    done\n",
      stderr: "ariel-worktree: [1/1] task.remove t1\nariel-worktree: 1 done, 0 skipped\n",
    });
    expect([existsSync(leg("t1", "api")), existsSync(leg("t2", "api"))]).toEqual([false, true]);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toContain("ariel/t1");
    expect(arielRefs(join(ws, "api"))).toBe("");

    const json = await wt("gc", "--keep-bytes", "0", "--json");
    expect([json.code, json.stderr]).toEqual([0, ""]);
    expect(records(json.stdout)).toEqual([
      {
        v: 1,
        type: "gc",
        action: "gc.task.remove",
        task: "t2",
        bytes: b2,
        reason: "keep-bytes",
        outcome: "done",
        snapshots: [],
      },
    ]);
    expect(existsSync(join(ws, ".ariel/worktrees/t2"))).toBe(false);
  });
});

describe("gc: refusals keep work (3), other skips are for a later gc (1)", () => {
  it("a removal refused even with a snapshot: kept, the rest applied, 3, the next step named", async () => {
    const { ws, w, leg, from } = world();
    await w("add", "--task", "t1", "--source", "api");
    await w("add", "--task", "t2", "--source", "web");
    lockForeign(ws, leg("t1", "api"));
    expect(await w("gc", "--state", "active", "--older-than", "0s")).toEqual({
      code: 3,
      stdout: "task.remove\tt1\tskipped: ERR_FOREIGN_LOCK\ntask.remove\tt2\tdone\n",
      stderr:
        "ariel-worktree: warning: task.remove t1 skipped: <ws>/.ariel/worktrees/t1/api is locked by someone else (mine)\n" +
        "ariel-worktree: 1 done, 1 skipped\n" +
        "ariel-worktree: refused, kept: t1 (ERR_FOREIGN_LOCK); next: ariel-worktree remove --task t1\n",
    });
    expect([existsSync(leg("t1", "api")), existsSync(leg("t2", "web"))]).toEqual([true, false]);
    expect(arielRefs(join(ws, "api"))).toBe("");
    // from another directory, the next step names the root
    const again = await from(join(ws, "web"), "gc", "--state", "active", "--older-than", "0s");
    expect([again.code, again.stderr.split("\n").at(-2)]).toEqual([
      3,
      "ariel-worktree: refused, kept: t1 (ERR_FOREIGN_LOCK); next: ariel-worktree remove -C <ws> --task t1",
    ]);
  });

  it("--json: the refusal in the record and the warning, no closing line; 3", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    lockForeign(ws, leg("t1", "api"));
    const [bytes] = await plannedBytes(w, "--state", "active", "--older-than", "0s");
    const message = "<ws>/.ariel/worktrees/t1/api is locked by someone else (mine)";
    const r = await w("gc", "--state", "active", "--older-than", "0s", "--json");
    expect(r.code).toBe(3);
    expect(records(r.stdout)).toEqual([
      {
        v: 1,
        type: "gc",
        action: "gc.task.remove",
        task: "t1",
        bytes,
        reason: "policy",
        outcome: "skipped",
        refusal: { code: "ERR_FOREIGN_LOCK", message },
      },
    ]);
    expect(records(r.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "WARN_GC_SKIPPED",
        message: `task.remove t1 skipped: ${message}`,
        reason: "ERR_FOREIGN_LOCK",
      },
    ]);
    expect(existsSync(leg("t1", "api"))).toBe(true);
  });

  it("git failing on a leg (a broken .git link) is a skip, no refusal: 1", async () => {
    const { w, leg } = world();
    await w("add", "--task", "t2", "--source", "web");
    writeFileSync(join(leg("t2", "web"), ".git"), "gitdir: /nonexistent\n");
    expect(await w("gc", "--state", "active", "--older-than", "0s")).toEqual({
      code: 1,
      stdout: "task.remove\tt2\tskipped: ERR_GIT\n",
      stderr:
        "ariel-worktree: warning: task.remove t2 skipped: git status failed in <ws>/.ariel/worktrees/t2/web: fatal: not a git repository: /nonexistent\n" +
        "ariel-worktree: 0 done, 1 skipped\n",
    });
    expect(existsSync(leg("t2", "web"))).toBe(true);
  });

  it("an unreadable task record: 1 before a refusal's 3, and for -n --detailed-exitcode before 2", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t1", "--source", "api");
    lockForeign(ws, leg("t1", "api"));
    writeFileSync(join(ws, ".ariel/tasks/bad.json"), "{nope");
    const warning = "ariel-worktree: warning: task record <ws>/.ariel/tasks/bad.json: not valid JSON\n";
    const [bytes] = await plannedBytes(w, "--state", "active", "--older-than", "0s");
    expect(await w("gc", "-n", "--detailed-exitcode", "--state", "active", "--older-than", "0s")).toEqual({
      code: 1,
      stdout: `task.remove\tt1\t${bytes}\n`,
      stderr: `${warning}ariel-worktree: 1 action, ${formatBytes(bytes ?? 0)} to reclaim\n`,
    });
    const r = await w("gc", "--state", "active", "--older-than", "0s");
    expect([r.code, r.stdout]).toEqual([1, "task.remove\tt1\tskipped: ERR_FOREIGN_LOCK\n"]);
    expect(r.stderr.split("\n")).toEqual([
      warning.trimEnd(),
      "ariel-worktree: warning: task.remove t1 skipped: <ws>/.ariel/worktrees/t1/api is locked by someone else (mine)",
      "ariel-worktree: 0 done, 1 skipped",
      "ariel-worktree: refused, kept: t1 (ERR_FOREIGN_LOCK); next: ariel-worktree remove --task t1",
      "",
    ]);
    expect(readFileSync(join(ws, ".ariel/tasks/bad.json"), "utf8")).toBe("{nope");
  });
});

describe("gc: runs, stores and snapshots", () => {
  /** Run history files in the workspace, ended `days` ago (finished when `finished`). */
  function runs(ws: string, spec: Record<string, { days: number; finished: boolean }>): void {
    mkdirSync(join(ws, ".ariel/runs"), { recursive: true });
    for (const [id, { days, finished }] of Object.entries(spec)) {
      const file = join(ws, ".ariel/runs", `${id}.ndjson`);
      const events = ['{"event":"run.started"}', ...(finished ? ['{"event":"run.finished"}'] : [])];
      writeFileSync(file, `${events.join("\n")}\n`);
      const at = new Date(Date.now() - days * 86_400_000);
      utimesSync(file, at, at);
    }
  }

  it("finished runs older than --older-than (default 7d) are dropped; a run not finished stays", async () => {
    const { ws, w } = world();
    runs(ws, {
      r1: { days: 3, finished: true },
      r2: { days: 10, finished: true },
      r3: { days: 10, finished: false },
    });
    const file = (id: string) => join(ws, ".ariel/runs", `${id}.ndjson`);
    expect(records((await w("gc", "-n", "--json")).stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "gc.run.drop",
        run: "r2",
        paths: ["<ws>/.ariel/runs/r2.ndjson"],
        bytes: expect.any(Number),
      },
    ]);
    const [b1, b2] = await plannedBytes(w, "--older-than", "2d");
    expect(await w("gc", "-n", "--older-than", "2d")).toEqual({
      code: 0,
      stdout: `run.drop\tr1\t${b1}\nrun.drop\tr2\t${b2}\n`,
      stderr: `ariel-worktree: 2 actions, ${formatBytes((b1 ?? 0) + (b2 ?? 0))} to reclaim\n`,
    });
    expect(await w("gc")).toEqual({
      code: 0,
      stdout: "run.drop\tr2\tdone\n",
      stderr: "ariel-worktree: 1 done, 0 skipped\n",
    });
    expect(["r1", "r2", "r3"].map((id) => existsSync(file(id)))).toEqual([true, false, true]);
  });

  it("a half-made share store no leg uses: share.drop, named by its key, gone after", async () => {
    const { ws, w } = world();
    const store = join(ws, ".ariel/share/.tmp-abc");
    mkdirSync(store, { recursive: true });
    writeFileSync(join(store, "f"), "x");
    const [bytes] = await plannedBytes(w);
    expect(await w("gc", "-n")).toEqual({
      code: 0,
      stdout: `share.drop\t.tmp-abc\t${bytes}\n`,
      stderr: `ariel-worktree: 1 action, ${formatBytes(bytes ?? 0)} to reclaim\n`,
    });
    expect(existsSync(store)).toBe(true);
    expect(await w("gc")).toEqual({
      code: 0,
      stdout: "share.drop\t.tmp-abc\tdone\n",
      stderr: "ariel-worktree: 1 done, 0 skipped\n",
    });
    expect(existsSync(store)).toBe(false);
  });

  it("a restored task's snapshot: snapshot.drop deletes the ref and the record's artifact, the work stays", async () => {
    const t = world();
    const commit = await restoredTask(t);
    expect(await t.w("gc", "-n")).toEqual({
      code: 0,
      stdout: "snapshot.drop\tt1 refs/ariel/snapshots/t1/api\t-\n",
      stderr: "ariel-worktree: 1 action, 0 B to reclaim\n",
    });
    expect(records((await t.w("gc", "-n", "--json")).stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "gc.snapshot.drop",
        task: "t1",
        source: "api",
        sourcePath: "<ws>/api",
        ref: "refs/ariel/snapshots/t1/api",
        commit,
      },
    ]);
    expect(await t.wt("gc")).toEqual({
      code: 0,
      stdout:
        "ACTION         WHAT                            OUTCOME\nsnapshot.drop  t1 refs/ariel/snapshots/t1/api  done\n",
      stderr:
        "ariel-worktree: [1/1] snapshot.drop t1 refs/ariel/snapshots/t1/api\nariel-worktree: 1 done, 0 skipped\n",
    });
    expect(arielRefs(join(t.ws, "api"))).toBe("");
    const record = JSON.parse(readFileSync(join(t.ws, ".ariel/tasks/t1.json"), "utf8"));
    expect([record.state, record.artifacts]).toEqual(["active", []]);
    expect(readFileSync(join(t.leg("t1", "api"), "new.txt"), "utf8")).toBe("x\n");
  });
});

describe("gc: skips", () => {
  it("a snapshot ref that moved is kept (1); a leased task is a plan skip, counted, no failure", async () => {
    const t = world();
    const was = await restoredTask(t);
    const api = join(t.ws, "api");
    gitRaw(api, "update-ref", "refs/ariel/snapshots/t1/api", "HEAD");
    const now = git(api, "rev-parse", "HEAD");
    await t.w("add", "--task", "t2", "--source", "web");
    holdLease(t.ws, "t2");
    const message = `refs/ariel/snapshots/t1/api moved to ${now} (was ${was}); kept`;
    expect(await t.w("gc")).toEqual({
      code: 1,
      stdout: "snapshot.drop\tt1 refs/ariel/snapshots/t1/api\tskipped: ERR_CONFLICT\n",
      stderr:
        `ariel-worktree: warning: snapshot.drop t1 refs/ariel/snapshots/t1/api skipped: ${message}\n` +
        "ariel-worktree: skip t2: leased\nariel-worktree: 0 done, 2 skipped\n",
    });
    expect(git(api, "rev-parse", "refs/ariel/snapshots/t1/api")).toBe(now);
    const r = await t.w("gc", "--json");
    expect([r.code, records(r.stdout)]).toEqual([
      1,
      [
        { v: 1, type: "gc.skip", task: "t2", reason: "leased" },
        {
          ...{
            v: 1,
            type: "gc",
            action: "gc.snapshot.drop",
            task: "t1",
            source: "api",
            sourcePath: "<ws>/api",
          },
          ...{ ref: "refs/ariel/snapshots/t1/api", commit: was, outcome: "skipped" },
          refusal: { code: "ERR_CONFLICT", message },
        },
      ],
    ]);
  });

  it("-n --json: the plan's skips as gc.skip records; only a leased task: exit 0", async () => {
    const { ws, w, leg } = world();
    await w("add", "--task", "t2", "--source", "web");
    holdLease(ws, "t2");
    expect(
      await w("gc", "-n", "--json", "--detailed-exitcode", "--state", "active", "--older-than", "0s"),
    ).toEqual({ code: 0, stdout: '{"v":1,"type":"gc.skip","task":"t2","reason":"leased"}\n', stderr: "" });
    expect(await w("gc", "--state", "active", "--older-than", "0s")).toEqual({
      code: 0,
      stdout: "",
      stderr: "ariel-worktree: skip t2: leased\nariel-worktree: 0 done, 1 skipped\n",
    });
    expect(existsSync(leg("t2", "web"))).toBe(true);
  });

  it("a record naming a ref not its task's: ERR_REF_PROTECTED, 3; no remove is offered for a ref kept", async () => {
    const t = world();
    await restoredTask(t);
    const file = join(t.ws, ".ariel/tasks/t1.json");
    const record = JSON.parse(readFileSync(file, "utf8"));
    const main = git(join(t.ws, "api"), "rev-parse", "main");
    record.artifacts[0] = { ...record.artifacts[0], ref: "refs/heads/main", commit: main };
    writeFileSync(file, JSON.stringify(record));
    expect(await t.from(join(t.ws, "web"), "gc")).toEqual({
      code: 3,
      stdout: "snapshot.drop\tt1 refs/heads/main\tskipped: ERR_REF_PROTECTED\n",
      stderr:
        `ariel-worktree: warning: snapshot.drop t1 refs/heads/main skipped: ref "refs/heads/main" is not a branch of the task's legs: not changed\n` +
        "ariel-worktree: 0 done, 1 skipped\n" +
        "ariel-worktree: refused, kept: t1 refs/heads/main (ERR_REF_PROTECTED)\n",
    });
    expect(git(join(t.ws, "api"), "rev-parse", "main")).toBe(main);
  });
});

describe("gc and pre-remove hooks", () => {
  it("-n lists the hooks its removals would run (pipe, terminal, JSON), none with --no-hooks", async () => {
    const { ws, w, wt } = world();
    await failingPreRemove(ws, w);
    const [bytes = 0] = await plannedBytes(w, "--state", "active", "--older-than", "0s", "--no-hooks");
    const args = ["gc", "-n", "--state", "active", "--older-than", "0s"];
    const file = "<ws>/api/ariel.config.json";
    const reclaim = `ariel-worktree: 1 action, ${formatBytes(bytes)} to reclaim\n`;
    expect(await w(...args)).toEqual({
      code: 0,
      stdout: `task.remove\tt1\t${bytes}\nhook\tt1\tpre-remove\tapi\ttrusted\t${file}\t["false"]\n`,
      stderr: reclaim,
    });
    expect((await wt(...args)).stdout).toBe(
      `ACTION       WHAT  BYTES\ntask.remove  t1    ${formatBytes(bytes)}\n\n` +
        `ACTION  TASK  EVENT       SOURCE  TRUST    ${"FILE".padEnd(join(ws, "api/ariel.config.json").length)}  COMMAND\n` +
        `hook    t1    pre-remove  api     trusted  ${file}  ["false"]\n`,
    );
    expect(records((await w(...args, "--json")).stdout)[1]).toEqual({
      ...{ v: 1, type: "plan", action: "hook.run", task: "t1", event: "pre-remove", source: "api" },
      ...{ path: "<ws>/.ariel/worktrees/t1/api", origin: "repository", file, hook: ["false"] },
      ...{ argv: ["false"], trusted: true },
    });
    expect(await w(...args, "--no-hooks")).toEqual({
      code: 0,
      stdout: `task.remove\tt1\t${bytes}\n`,
      stderr: reclaim,
    });
  });

  it("a failing pre-remove hook refuses the removal (3, kept); --no-hooks removes", async () => {
    const { ws, w, leg } = world();
    await failingPreRemove(ws, w);
    expect(await w("gc", "--state", "active", "--older-than", "0s")).toEqual({
      code: 3,
      stdout: "task.remove\tt1\tskipped: ERR_HOOK_REFUSED\n",
      stderr:
        'ariel-worktree: warning: task.remove t1 skipped: api: pre-remove hook ["false"] exited 1; nothing was removed\n' +
        "ariel-worktree: 0 done, 1 skipped\n" +
        "ariel-worktree: refused, kept: t1 (ERR_HOOK_REFUSED); next: ariel-worktree remove --task t1\n",
    });
    expect(existsSync(leg("t1", "api"))).toBe(true);
    expect(await w("gc", "--state", "active", "--older-than", "0s", "--no-hooks")).toEqual({
      code: 0,
      stdout: "task.remove\tt1\tdone\n",
      stderr: "ariel-worktree: 1 done, 0 skipped\n",
    });
    expect(existsSync(leg("t1", "api"))).toBe(false);
  });
});

/** api's committed config runs `false` before a removal, trusted; task t1 on api. */
async function failingPreRemove(ws: string, w: ReturnType<typeof world>["w"]): Promise<void> {
  writeFile(join(ws, "api/ariel.config.json"), '{"hooks":{"pre-remove":["false"]}}\n');
  commitAll(join(ws, "api"), "config");
  expect((await w("trust", "--source", "api")).code).toBe(0);
  expect((await w("add", "--task", "t1", "--source", "api")).code).toBe(0);
}
