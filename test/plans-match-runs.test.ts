/**
 * Plans must match runs: a dry run's generated task id is printed with the `--task` that pins it;
 * `remove --snapshot` snapshots only legs with local work; `--with-changes` carries a source's
 * uncommitted changes into its new leg and leaves the source exactly as it was; a dry run of
 * `remove`/`restore` meets the same ERR_LEASE_HELD as its real run while a spawn runs in the task.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielIn, records } from "./helpers/cli.ts";
import { GIT_TEST_ENV, git, tempDir, writeFile } from "./helpers/git.ts";
import { tempWorkspaces } from "./helpers/temp.ts";
import {
  cleanUp,
  finishedHistory,
  inUseError,
  runs,
  runsWorkspace,
  startCli,
  startRun,
  until,
} from "./runs_helpers.ts";
import { NODE } from "./spawn_helpers.ts";
import { picture } from "./worktree-fixtures.ts";

const { ws, track } = tempWorkspaces();
const env = { ...GIT_TEST_ENV, ARIEL_OWNER: "t" };
const spawnIn = (root: string, args: readonly string[]) => arielIn("spawn", root, args, { env });
const wtIn = (root: string, args: readonly string[]) => arielIn("worktree", root, args, { env });

/** What a plan says about where each process runs, and what the run did. */
const where = (r: Record<string, unknown>) => ({ source: r.source, cwd: r.cwd, branch: r.branch });

describe("ariel-spawn --dry-run --isolate: the plan and the run agree", () => {
  it("prints the --task that pins a generated id; two pinned dry runs and the real run agree", async () => {
    const root = ws(["api", "web"]);
    const args = ["--source", "api", "--source", "web", "--isolate"];
    const cmd = ["--", NODE, "-e", "0"];
    // A fan-out makes a task per source, each id generated after its source.
    const first = await spawnIn(root, [...args, "-n", "--json", ...cmd]);
    expect(first.code).toBe(0);
    expect(records(first.stdout).map((p) => p.task)).toEqual([
      expect.stringMatching(/^api-[0-9a-z]{6}$/),
      expect.stringMatching(/^web-[0-9a-z]{6}$/),
    ]);
    // Text mode says it in words.
    const text = await spawnIn(root, [...args, "-n", ...cmd]);
    const [, a, b] = /task ids (\S+), (\S+) were generated/.exec(text.stderr) ?? [];
    expect(text.stderr).toBe(
      `ariel-spawn: task ids ${a}, ${b} were generated for this plan; add --task NAME to pin them (NAME-<source> each)\n`,
    );
    // One target: its generated id, given back, plans exactly the same.
    const one = await spawnIn(root, ["--source", "api", "--isolate", "-n", "--json", ...cmd]);
    const task = records(one.stdout)[0]?.task as string;
    const pinned = await spawnIn(root, [
      "--source",
      "api",
      "--isolate",
      "--task",
      task,
      "-n",
      "--json",
      ...cmd,
    ]);
    expect(records(pinned.stdout)).toEqual(records(one.stdout));

    const plan1 = await spawnIn(root, [...args, "--task", "fix", "-n", "--json", ...cmd]);
    const plan2 = await spawnIn(root, [...args, "--task", "fix", "-n", "--json", ...cmd]);
    expect([plan1.stderr, plan2.stderr]).toEqual(["", ""]);
    expect(records(plan1.stdout).map((p) => p.task)).toEqual(["fix-api", "fix-web"]);
    expect(records(plan2.stdout)).toEqual(records(plan1.stdout));

    const run = await spawnIn(root, [...args, "--task", "fix", "--json", ...cmd]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const events = records(run.stdout);
    const started = events.filter((e) => e.event === "process.started");
    const created = events.filter((e) => e.event === "worktree.created");
    const planned = records(plan1.stdout);
    expect(started.map((e) => ({ source: e.source, cwd: e.cwd }))).toEqual(
      planned.map((p) => ({ source: p.source, cwd: p.cwd })),
    );
    expect(created.map((e) => ({ source: e.source, cwd: e.worktree, branch: e.branch }))).toEqual(
      planned.map(where),
    );
  });
});

describe("ariel-worktree remove --snapshot snapshots only legs with local work", () => {
  it("the dirty leg is snapshotted, the clean one removed without a ref", async () => {
    const root = ws(["api", "web"]);
    expect((await wtIn(root, ["add", "--source", "api", "--source", "web", "--task", "t1"])).code).toBe(0);
    writeFile(join(root, ".ariel/worktrees/t1/api/work.txt"), "mine\n");
    const plan = await wtIn(root, ["remove", "--task", "t1", "--snapshot", "-n", "--json"]);
    expect(records(plan.stdout).map((p) => [p.source, p.snapshot])).toEqual([
      ["api", true],
      ["web", false],
    ]);
    const r = await wtIn(root, ["remove", "--task", "t1", "--snapshot", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((x) => [x.source, x.outcome, x.snapshotRef ?? null])).toEqual([
      ["api", "snapshotted", "refs/ariel/snapshots/t1/api"],
      ["web", "removed", null],
    ]);
    expect(git(join(root, "api"), "for-each-ref", "--format=%(refname)", "refs/ariel/")).toBe(
      "refs/ariel/snapshots/t1/api",
    );
    expect(git(join(root, "web"), "for-each-ref", "--format=%(refname)", "refs/ariel/")).toBe("");
    const record = JSON.parse(readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8"));
    expect(record.legs.map((l: { source: string; state: string }) => [l.source, l.state])).toEqual([
      ["api", "snapshotted"],
      ["web", "removed"],
    ]);
    expect(record.artifacts.map((a: { ref: string }) => a.ref)).toEqual(["refs/ariel/snapshots/t1/api"]);
  });

  it("spawn --isolate --snapshot: a clean leg ends worktree.removed", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, [
      "--source",
      "api",
      "--isolate",
      "--task",
      "t2",
      "--snapshot",
      "--json",
      "--",
      "true",
    ]);
    expect(r.code).toBe(0);
    const ends = records(r.stdout).filter(
      (e) => String(e.event).startsWith("worktree.") && e.event !== "worktree.created",
    );
    expect(ends.map((e) => e.event)).toEqual(["worktree.removed"]);
    expect(git(join(root, "api"), "for-each-ref", "refs/ariel/")).toBe("");
  });
});

/** A source with every kind of uncommitted change. */
function dirtySource(root: string): string {
  const src = join(root, "api");
  writeFile(join(src, "staged.txt"), "s1\n");
  writeFile(join(src, "both.txt"), "b1\n");
  writeFile(join(src, "gone.txt"), "g\n");
  writeFile(join(src, ".gitignore"), "*.log\n");
  git(src, "add", "-A");
  git(src, "commit", "-q", "-m", "files");
  writeFile(join(src, "staged.txt"), "s2 staged\n");
  writeFile(join(src, "both.txt"), "b2 staged\n");
  git(src, "add", "staged.txt", "both.txt");
  writeFile(join(src, "both.txt"), "b3 unstaged on top\n");
  writeFile(join(src, "README.md"), "unstaged\n");
  git(src, "rm", "-q", "--cached", "gone.txt");
  writeFile(join(src, "new dir/untracked.txt"), "u\n");
  writeFile(join(src, "build.log"), "ignored\n");
  return src;
}

/** The checkout's files, its index file and `git status`, to prove nothing changed. */
function state(src: string): Record<string, string> {
  const files = Object.fromEntries(Object.entries(picture(src)).filter(([p]) => !p.startsWith(".git")));
  return {
    ...files,
    "(index)": createHash("sha256")
      .update(readFileSync(join(src, ".git/index")))
      .digest("hex"),
    "(status)": git(src, "status", "--porcelain=v1", "--untracked-files=all"),
  };
}

describe("--with-changes carries the working copy into the new leg", () => {
  it("warns, without it, that the changes are left out (coded warning with a hint)", async () => {
    const root = ws(["api"]);
    dirtySource(root);
    const r = await wtIn(root, ["add", "--source", "api", "--task", "t1"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `ariel-worktree: warning: "api" has uncommitted changes its new worktree starts without: README.md, both.txt, gone.txt and 2 more\n` +
        "ariel-worktree: hint: pass --with-changes to carry them into the worktree (the source stays as it is), or commit them first\n" +
        "ariel-worktree: made task t1\n",
    );
    const json = await wtIn(root, ["add", "--source", "api", "--task", "t9", "--json", "-n"]);
    expect(records(json.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "WARN_CHANGES_LEFT_OUT",
        message: expect.stringContaining('"api" has uncommitted changes'),
        source: "api",
        paths: ["README.md", "both.txt", "gone.txt", "new dir/untracked.txt", "staged.txt"],
        hint: expect.stringContaining("--with-changes"),
      },
    ]);
  });

  it("staged stays staged, unstaged unstaged, untracked untracked; the source is untouched", async () => {
    const root = ws(["api"]);
    const src = dirtySource(root);
    const before = state(src);
    const r = await wtIn(root, ["add", "--source", "api", "--task", "t1", "--with-changes"]);
    expect([r.code, r.stderr]).toEqual([0, "ariel-worktree: made task t1\n"]);
    expect(state(src)).toEqual(before);
    const leg = join(root, ".ariel/worktrees/t1/api");
    expect(git(leg, "status", "--porcelain=v1", "--untracked-files=all")).toBe(before["(status)"]);
    expect(git(leg, "diff", "--cached")).toBe(git(src, "diff", "--cached"));
    expect(git(leg, "diff")).toBe(git(src, "diff"));
    expect(readFileSync(join(leg, "new dir/untracked.txt"), "utf8")).toBe("u\n");
    expect(readFileSync(join(leg, "both.txt"), "utf8")).toBe("b3 unstaged on top\n");
    expect(existsSync(join(leg, "build.log"))).toBe(false);
    expect(git(leg, "rev-parse", "HEAD")).toBe(git(src, "rev-parse", "HEAD"));
  });

  it("spawn --isolate --with-changes: the child sees the working copy", async () => {
    const root = ws(["api"]);
    const src = dirtySource(root);
    const before = state(src);
    const r = await spawnIn(root, [
      ...["--source", "api", "--isolate", "--task", "t3", "--with-changes", "--keep", "--"],
      NODE,
      "-e",
      "const fs=require('fs');console.log(fs.readFileSync('new dir/untracked.txt','utf8').trim(),fs.readFileSync('staged.txt','utf8').trim())",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("u s2 staged\n");
    expect(state(src)).toEqual(before);
  });

  it("refuses --with-changes with a --base that is not the source's HEAD, changing nothing", async () => {
    const root = ws(["api"]);
    const src = dirtySource(root);
    const r = await wtIn(root, [
      "add",
      "--source",
      "api",
      "--task",
      "t1",
      "--with-changes",
      "--base",
      "HEAD~1",
    ]);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe(
      `ariel-worktree: error: --with-changes carries the changes of "api" made on its HEAD; --base names another commit [ERR_USAGE]\n` +
        "ariel-worktree: hint: drop --base (the leg then starts at the source's HEAD), or commit the changes first\n",
    );
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
    expect(git(src, "branch", "--list", "ariel/*")).toBe("");
  });
});

/**
 * argv of a child that writes `work.txt` in its cwd (its worktree then holds local work), says
 * so with `<ctl>/started`, and exits once `<ctl>/go` exists.
 */
const waiter = (ctl: string) => [
  NODE,
  "-e",
  `const fs=require('fs');fs.writeFileSync('work.txt','w');fs.writeFileSync(${JSON.stringify(`${ctl}/started`)},'');` +
    `const t=setInterval(()=>{if(fs.existsSync(${JSON.stringify(`${ctl}/go`)}))clearInterval(t)},20)`,
];
/** The error record of a --json run's stderr. */
const errorOf = (stderr: string) => records(stderr).find((r) => r.type === "error");
/** Everything a refused command must leave as it was: the task record and the lease file. */
const untouched = (root: string, task: string) =>
  [`.ariel/tasks/${task}.json`, `.ariel/leases/${task}.json`].map((f) =>
    existsSync(join(root, f)) ? readFileSync(join(root, f), "utf8") : null,
  );

/**
 * A dry run meets the refusals its real run meets (issue 11, decision 0054): a task a
 * foreground `spawn --isolate` holds the lease of, or a detached run still works in, is
 * ERR_LEASE_HELD (75) for `remove -n` (and `restore -n`) as for `remove`, with the same record;
 * the dry run takes no lease and writes nothing. Once the run is over, plan and run agree again.
 */
describe("a dry run meets the real run's refusal while something runs in the task", () => {
  afterEach(cleanUp);

  /**
   * `-n --detailed-exitcode` then the real command, each with --json: both exit 75 with the same
   * error record; the task record unchanged, and by the dry run not even the lease file.
   */
  async function bothRefused(root: string, task: string, args: readonly string[]) {
    const before = untouched(root, task);
    const plan = await wtIn(root, [...args, "-n", "--detailed-exitcode", "--json"]);
    expect(untouched(root, task)).toEqual(before);
    const real = await wtIn(root, [...args, "--json"]);
    // The real one took the lease to look under it (a detached run's task), so only its record.
    expect(untouched(root, task)[0]).toEqual(before[0]);
    expect([plan.code, plan.stdout, real.code, real.stdout]).toEqual([75, "", 75, ""]);
    expect(errorOf(plan.stderr)).toEqual(errorOf(real.stderr));
    return errorOf(plan.stderr);
  }

  /** Once the run is over: `remove --snapshot -n` plans the snapshot (exit 2), the real one makes it. */
  async function planThenRemove(root: string, task: string, source: string) {
    const plan = await wtIn(root, [
      "remove",
      "--task",
      task,
      "--snapshot",
      "-n",
      "--detailed-exitcode",
      "--json",
    ]);
    expect([plan.code, plan.stderr]).toEqual([2, ""]);
    expect(records(plan.stdout).map((p) => [p.action, p.source, p.snapshot])).toEqual([
      ["worktree.remove", source, true],
    ]);
    const real = await wtIn(root, ["remove", "--task", task, "--snapshot", "--json"]);
    expect([real.code, real.stderr]).toEqual([0, ""]);
    expect(records(real.stdout).map((x) => [x.source, x.outcome])).toEqual([[source, "snapshotted"]]);
  }

  it("a foreground spawn --isolate holding the lease: remove -n, remove --snapshot -n, restore -n and add -n of the task are ERR_LEASE_HELD as the real ones", async () => {
    const root = ws(["api"]);
    // A long lease: it is not renewed (rewritten) while the test compares the two runs' messages.
    writeFileSync(join(root, "ariel.config.json"), JSON.stringify({ leaseTtlMs: 300_000 }));
    const ctl = track(tempDir("ariel-ctl-"));
    const cli = startCli(
      "spawn",
      ["-C", root, "--source", "api", "--isolate", "--task", "t1", "--json", "--", ...waiter(ctl)],
      { ARIEL_OWNER: "spawner" },
    );
    await until(() => existsSync(join(ctl, "started")));
    const lease = JSON.parse(readFileSync(join(root, ".ariel/leases/t1.json"), "utf8"));
    for (const args of [
      ["remove", "--task", "t1"],
      ["remove", "--task", "t1", "--snapshot"],
      ["restore", "--task", "t1"],
      // The same add again: without the lease it would be the existing task, unchanged (exit 0).
      ["add", "--task", "t1", "--source", "api"],
    ]) {
      expect(await bothRefused(root, "t1", args)).toEqual({
        v: 1,
        type: "error",
        code: "ERR_LEASE_HELD",
        message: `task t1 is leased by spawner (pid ${cli.p.pid} on ${hostname()}) until ${lease.expiresAt}`,
        hint: "another ariel process is working on this task; retry shortly",
        exit: 75,
        taskId: "t1",
        holder: "spawner",
        holderPid: cli.p.pid,
        holderHost: hostname(),
        expiresAt: lease.expiresAt,
      });
    }
    expect(readFileSync(join(root, ".ariel/worktrees/t1/api/work.txt"), "utf8")).toBe("w");
    writeFileSync(join(ctl, "go"), "");
    expect(await cli.done).toBe(0);
    // The spawn kept its worktree (local work) and let its lease go: the plan and the run agree.
    await planThenRemove(root, "t1", "api");
  });

  it("a detached run at work in the leg: remove -n is ERR_LEASE_HELD naming the run, as remove", async () => {
    const root = runsWorkspace();
    const ctl = track(tempDir("ariel-ctl-"));
    const run = await startRun(root, ["--isolate", "--task", "t2", "--", ...waiter(ctl)]);
    const runId = run.runId as string;
    await until(() => existsSync(join(ctl, "started")));
    for (const args of [
      ["remove", "--task", "t2"],
      ["remove", "--task", "t2", "--snapshot", "--source", "."],
    ]) {
      expect(await bothRefused(root, "t2", args)).toEqual(inUseError("t2", runId, "."));
    }
    expect(readFileSync(join(run.worktree as string, "work.txt"), "utf8")).toBe("w");
    writeFileSync(join(ctl, "go"), "");
    expect((await runs(root, ["wait", runId])).code).toBe(0);
    await finishedHistory(root, runId);
    // The monitor kept the worktree (local work); nothing runs in it now.
    await planThenRemove(root, "t2", ".");
  });
});
