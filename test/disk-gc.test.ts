/**
 * ariel-worktree gc end to end on real repositories: archive, prune, snapshot-before-remove
 * (and restore brings the work back), leases respected, kill -9 then reconcile converges.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { records, startPausedAt } from "./helpers/cli.ts";
import { GIT_TEST_ENV, gitRaw } from "./helpers/git.ts";
import { git, legPath, makeWorkspace, removeDir, taskFile, writeFile, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => removeDir(root));

const hasRef = (repo: string, ref: string) =>
  gitRaw(repo, "rev-parse", "--verify", "--quiet", ref).code === 0;
const archived = (r: string) =>
  readFileSync(join(r, ".ariel/archive/tasks.ndjson"), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Start ariel-worktree with a pause at `point`; resolves once it is paused there. */
const pausedAt = (point: string, args: string[], env: Record<string, string> = {}) =>
  startPausedAt("worktree", point, args, {
    cwd: root,
    env: { ...GIT_TEST_ENV, ARIEL_OWNER: "tester", ...env },
  });

/** Tasks `ids` made and removed (closed, every leg removed): their records, by id. */
async function closedTasks(ids: readonly string[]): Promise<Record<string, unknown>[]> {
  for (const t of ids) {
    expect((await wt(root, ["add", "--source", "api", "--task", t])).code).toBe(0);
    expect((await wt(root, ["remove", "--task", t, "--allow", "overlay-changed"])).code).toBe(0);
  }
  return ids.map((t) => taskFile(root, t));
}

const stateFiles = (dir: string) => readdirSync(join(root, ".ariel", dir)).sort();

describe("ariel-worktree gc", () => {
  it("archives a closed task's record (branch kept); the young one stays under the default 7d", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    expect((await wt(root, ["remove", "--task", "t1", "--allow", "overlay-changed"])).code).toBe(0);
    const record = taskFile(root, "t1");
    const young = await wt(root, ["gc", "-n", "--detailed-exitcode", "--json"]);
    expect(young.code).toBe(0);
    expect(young.stdout).toBe("");
    const plan = await wt(root, ["gc", "-n", "--detailed-exitcode", "--older-than", "0", "--json"]);
    expect(plan.code).toBe(2);
    expect(records(plan.stdout)).toEqual([{ v: 1, type: "plan", action: "gc.task.archive", task: "t1" }]);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(true);
    const r = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([
      { v: 1, type: "gc", action: "gc.task.archive", task: "t1", outcome: "done" },
    ]);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
    expect(archived(root)).toEqual([record]);
    expect(hasRef(join(root, "api"), "refs/heads/ariel/t1")).toBe(true);
    const again = await wt(root, ["gc", "-n", "--detailed-exitcode", "--older-than", "0"]);
    expect(again.code).toBe(0);
    // Nothing left for reconcile either: the archived task's branch is not taken for a leak.
    expect((await wt(root, ["reconcile", "-n", "--detailed-exitcode"])).code).toBe(0);
    expect(existsSync(join(root, ".ariel/leases/t1.json"))).toBe(false);
  });

  it("--prune-merged deletes only a branch fully merged into the source's HEAD", async () => {
    root = makeWorkspace(["api", "web"]);
    expect((await wt(root, ["add", "--source", "api", "--source", "web", "--task", "t1"])).code).toBe(0);
    const web = legPath(root, "t1", "web");
    writeFile(join(web, "feature.txt"), "f\n");
    git(web, "add", "feature.txt");
    git(web, "commit", "-qm", "feature");
    const tip = git(web, "rev-parse", "HEAD");
    expect((await wt(root, ["remove", "--task", "t1", "--allow", "overlay-changed"])).code).toBe(0);
    const r = await wt(root, ["gc", "--older-than", "0", "--prune-merged", "--json"]);
    expect(r.code).toBe(0);
    const out = records(r.stdout);
    expect(out).toContainEqual({
      v: 1,
      type: "gc.skip",
      task: "t1",
      reason: "not-merged",
      detail: "ariel/t1",
      source: "web",
    });
    expect(out).toContainEqual(
      expect.objectContaining({ type: "gc", action: "gc.branch.delete", source: "api", outcome: "done" }),
    );
    expect(hasRef(join(root, "api"), "refs/heads/ariel/t1")).toBe(false);
    expect(git(join(root, "web"), "rev-parse", "refs/heads/ariel/t1")).toBe(tip);
  });

  it("removes an old active worktree with local work only after snapshotting it; restore brings it back", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const leg = legPath(root, "t1", "api");
    writeFile(join(leg, "src/main.txt"), "edited\n");
    writeFile(join(leg, "notes/new.txt"), "untracked work\n");
    const r = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
    expect(r.code).toBe(0);
    const [rec] = records(r.stdout);
    expect(rec).toMatchObject({
      action: "gc.task.remove",
      task: "t1",
      outcome: "done",
      snapshots: [
        {
          source: "api",
          ref: "refs/ariel/snapshots/t1/api",
          commit: expect.stringMatching(/^[0-9a-f]{40}$/),
        },
      ],
    });
    expect(existsSync(leg)).toBe(false);
    expect(hasRef(join(root, "api"), "refs/ariel/snapshots/t1/api")).toBe(true);
    // The record is kept: restore reads it.
    const plan = await wt(root, ["gc", "-n", "--older-than", "0", "--json"]);
    expect(records(plan.stdout)).toEqual([
      { v: 1, type: "gc.skip", task: "t1", reason: "snapshot-kept", detail: "restore reads its record" },
    ]);
    expect((await wt(root, ["restore", "--task", "t1"])).code).toBe(0);
    expect(readFileSync(join(leg, "src/main.txt"), "utf8")).toBe("edited\n");
    expect(readFileSync(join(leg, "notes/new.txt"), "utf8")).toBe("untracked work\n");
    // Restored: the snapshot ref is now dropped by gc, the worktree stays.
    const drop = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect(records(drop.stdout)).toEqual([
      expect.objectContaining({
        action: "gc.snapshot.drop",
        task: "t1",
        ref: "refs/ariel/snapshots/t1/api",
        outcome: "done",
      }),
    ]);
    expect(hasRef(join(root, "api"), "refs/ariel/snapshots/t1/api")).toBe(false);
    expect(taskFile(root, "t1").artifacts).toEqual([]);
    expect(readFileSync(join(leg, "notes/new.txt"), "utf8")).toBe("untracked work\n");
  });

  it("snapshots a leg whose commits only HEAD's reflog holds, and they outlive restore and the dropped ref", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const leg = legPath(root, "t1", "api");
    const api = join(root, "api");
    git(leg, "switch", "-q", "--detach");
    git(leg, "commit", "-q", "--allow-empty", "-m", "left behind");
    const lost = git(leg, "rev-parse", "HEAD");
    git(leg, "switch", "-q", "ariel/t1");
    const r = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([
      expect.objectContaining({ action: "gc.task.remove", task: "t1", outcome: "done" }),
    ]);
    expect(existsSync(leg)).toBe(false);
    const ref = "refs/ariel/snapshots/t1/api";
    expect(git(api, "rev-list", "--parents", "-n1", ref).split(" ")).toContain(lost);
    expect((await wt(root, ["restore", "--task", "t1"])).code).toBe(0);
    const drop = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect(records(drop.stdout)).toEqual([
      expect.objectContaining({ action: "gc.snapshot.drop", outcome: "done" }),
    ]);
    expect(hasRef(api, ref)).toBe(false);
    // The restored worktree's HEAD reflog holds the commit again, so remove still refuses it.
    expect(git(leg, "log", "-g", "--format=%H", "HEAD").split("\n")).toContain(lost);
    const again = await wt(root, ["remove", "--task", "t1"]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain("[ERR_REFLOG_COMMITS]");
  });

  it("keeps a leg whose checked-out branch was deleted (it cannot snapshot it), touching nothing", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const leg = legPath(root, "t1", "api");
    git(leg, "commit", "-q", "--allow-empty", "-m", "on the branch");
    git(leg, "update-ref", "-d", "refs/heads/ariel/t1");
    // The plan is unchanged by what applying it will meet: a change to make, exit 2.
    expect(
      (await wt(root, ["gc", "-n", "--detailed-exitcode", "--state", "active", "--older-than", "0"])).code,
    ).toBe(2);
    const r = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
    // Work left behind for the user to decide on: a refusal, exit 3 (as `remove` would).
    expect(r.code).toBe(3);
    expect(records(r.stdout)).toEqual([
      {
        v: 1,
        type: "gc",
        action: "gc.task.remove",
        task: "t1",
        bytes: expect.any(Number),
        reason: "policy",
        outcome: "skipped",
        refusal: {
          code: "ERR_BRANCH_MISSING",
          message: `${leg} has branch ariel/t1 checked out, which no longer exists`,
        },
      },
    ]);
    expect(existsSync(leg)).toBe(true);
    expect(taskFile(root, "t1").state).toBe("active");
  });

  it("a refused task does not stop the rest: the other task is archived, gc exits 3 naming the next step", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "done"])).code).toBe(0);
    expect((await wt(root, ["remove", "--task", "done", "--allow", "overlay-changed"])).code).toBe(0);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const leg = legPath(root, "t1", "api");
    git(leg, "update-ref", "-d", "refs/heads/ariel/t1");
    const r = await wt(root, ["gc", "--state", "active", "--state", "closed", "--older-than", "0"]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      "ariel-worktree: refused, kept: t1 (ERR_BRANCH_MISSING); next: ariel-worktree remove --task t1",
    );
    expect(existsSync(join(root, ".ariel/tasks/done.json"))).toBe(false);
    expect(existsSync(leg)).toBe(true);
  });

  it("skips a task whose lease is held (an add racing it), touching nothing", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const racing = await pausedAt("add:after-lease", ["add", "--source", "api", "--task", "t1"]);
    try {
      const r = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
      expect(r.code).toBe(0);
      expect(records(r.stdout)).toEqual([{ v: 1, type: "gc.skip", task: "t1", reason: "leased" }]);
      expect(existsSync(legPath(root, "t1", "api"))).toBe(true);
    } finally {
      await racing.kill();
    }
  });

  it("kill -9 between archiving and dropping a record: reconcile converges and gc finishes the job", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    expect((await wt(root, ["remove", "--task", "t1", "--allow", "overlay-changed"])).code).toBe(0);
    const record = taskFile(root, "t1");
    const gc = await pausedAt("gc:after-archive-append", ["gc", "--older-than", "0"]);
    expect(await gc.kill()).toEqual({ code: null, signal: "SIGKILL" });
    expect(taskFile(root, "t1")).toEqual(record);
    const rec = await wt(root, ["reconcile", "--json"]);
    expect(rec.code).toBe(0);
    const r = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
    // Appended twice (once by the killed gc): the same record both times.
    expect(archived(root)).toEqual([record, record]);
    expect((await wt(root, ["reconcile", "-n", "--detailed-exitcode"])).code).toBe(0);
  });

  it("kill -9 once a batch's lease files are gone, its records not yet: reconcile clears the locks, gc archives the batch again", async () => {
    root = makeWorkspace(["api"]);
    const recs = await closedTasks(["t1", "t2", "t3"]);
    expect(stateFiles("leases")).toEqual(["t1.json", "t2.json", "t3.json"]);
    const gc = await pausedAt("gc:after-lease-drop", ["gc", "--older-than", "0"]);
    expect(await gc.kill()).toEqual({ code: null, signal: "SIGKILL" });
    // One append for the batch; its lease files deleted, never a lease file without its record;
    // the records in place, untouched; the lease locks of the dead gc left behind.
    expect(archived(root)).toEqual(recs);
    expect(stateFiles("leases")).toEqual(["t1.json.lock", "t2.json.lock", "t3.json.lock"]);
    expect(["t1", "t2", "t3"].map((t) => taskFile(root, t))).toEqual(recs);
    const list = await wt(root, ["list", "--all", "--json", "--no-bytes"]);
    expect(records(list.stdout).map((r) => [r.task, r.status])).toEqual([
      ["t1", "removed"],
      ["t2", "removed"],
      ["t3", "removed"],
    ]);
    const rec = await wt(root, ["reconcile", "--json"]);
    expect(rec.code).toBe(0);
    expect(records(rec.stdout).map((r) => [r.fix, r.task, r.path])).toEqual(
      ["t1", "t2", "t3"].map((t) => ["remove-stale-lock", t, join(root, `.ariel/leases/${t}.json.lock`)]),
    );
    expect((await wt(root, ["reconcile", "-n", "--detailed-exitcode"])).code).toBe(0);
    const r = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect([r.code, records(r.stdout).map((o) => [o.task, o.outcome])]).toEqual([
      0,
      [
        ["t1", "done"],
        ["t2", "done"],
        ["t3", "done"],
      ],
    ]);
    expect(stateFiles("tasks")).toEqual([]);
    expect(stateFiles("leases")).toEqual([]);
    // The batch appended twice, line for line the same records.
    expect(archived(root)).toEqual([...recs, ...recs]);
    expect((await wt(root, ["reconcile", "-n", "--detailed-exitcode"])).code).toBe(0);
  });

  it("a lease taken after the plan is seen under the lease lock: that task and its branch skipped, the rest of the batch archived", async () => {
    root = makeWorkspace(["api"]);
    const [t1, t2] = await closedTasks(["t1", "t2"]);
    const release = join(root, ".ariel-test-release");
    const gc = await pausedAt("gc:before-archive", ["gc", "--older-than", "0", "--prune-merged", "--json"], {
      ARIEL_TEST_RELEASE_FILE: release,
    });
    // A live holder on this host (this test's process) takes t2's lease meanwhile.
    const lease = {
      v: 1,
      type: "lease",
      taskId: "t2",
      owner: "racer",
      token: 9,
      pid: process.pid,
      processStart: null,
      host: hostname(),
      acquiredAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };
    const leaseText = `${JSON.stringify(lease)}\n`;
    writeFileSync(join(root, ".ariel/leases/t2.json"), leaseText);
    writeFileSync(release, "");
    const r = await gc.done;
    expect(r.code, r.stderr).toBe(1); // planned, not done: a later gc takes it
    const held = {
      code: "ERR_LEASE_HELD",
      message: `task t2 is leased by racer (pid ${process.pid} on ${hostname()}) until ${lease.expiresAt}`,
    };
    expect(records(r.stdout).map((o) => [o.action, o.task, o.outcome, o.refusal])).toEqual([
      ["gc.task.archive", "t1", "done", undefined],
      ["gc.branch.delete", "t1", "done", undefined],
      ["gc.task.archive", "t2", "skipped", held],
      ["gc.branch.delete", "t2", "skipped", held],
    ]);
    expect(archived(root)).toEqual([t1]);
    expect(taskFile(root, "t2")).toEqual(t2);
    expect(readFileSync(join(root, ".ariel/leases/t2.json"), "utf8")).toBe(leaseText);
    expect(hasRef(join(root, "api"), "refs/heads/ariel/t1")).toBe(false);
    expect(hasRef(join(root, "api"), "refs/heads/ariel/t2")).toBe(true);
  });
});
