/**
 * reconcileWorkspace, step by step on real repositories: which steps run under a task's lease
 * and which outside it, how a recorded leg's marks follow the removal of its worktree (kept
 * unchanged when that removal fails, reported failed when the record write fails, a fenced write
 * stopping everything), and the sandboxes of ended runs (planned in a dry run, synced home by
 * the real one, a failing sync reported as failed).
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { ReconcileStep } from "../../reconcile/plan.ts";
import { sandboxPaths } from "../../sandbox/paths.ts";
import type { Artifact, TaskRecord } from "../../schema/task.ts";
import { taskRecordPath } from "../../state_paths.ts";
import { commitAll, removeDir, writeFile } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { selfIdentity } from "../proc.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { faultyPorts, git, gitPicture, makeRoot, stealLease } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { snapshotLeg } from "../worktree/remove.ts";
import { writeTask } from "../worktree/store.ts";
import { reconcileWorkspace } from "./reconcile.ts";

let root = "";
afterEach(() => removeDir(root));

/** A lock file whose holder process is gone. */
const DEAD = `${JSON.stringify({ ...selfIdentity(), pid: 2 ** 30, processStart: null, nonce: "dead" })}\n`;

const leg = (task: string, source: string) => join(root, ".ariel/worktrees", task, source);
const record = (task: string) => readFileSync(taskRecordPath(root, task), "utf8");
const recordOf = (task: string) => JSON.parse(record(task)) as TaskRecord;
/** Each step as `fix task path` (path: "-" when the step has none). */
const said = (steps: readonly ReconcileStep[]) =>
  steps.map((s) => `${s.fix} ${s.task} ${"path" in s ? s.path : "-"}`);

/** What an add killed after `git worktree add` leaves: a worktree of ours, no record. */
function halfMadeAdd(task: string, source = "api"): string {
  const path = leg(task, source);
  git(
    join(root, source),
    "worktree",
    "add",
    "-q",
    "--lock",
    "--reason",
    `ariel:${task}`,
    path,
    "-b",
    `ariel/${task}`,
  );
  return path;
}

describe("reconcileWorkspace: what runs outside a task's lease", () => {
  it("a stale lock of a task's record is broken and told, without taking the task's lease", async () => {
    root = makeRoot(["api"]);
    const lock = `${taskRecordPath(root, "t1")}.lock`;
    writeFile(lock, DEAD);
    const told: ReconcileStep[] = [];
    const r = await reconcileWorkspace(faultyPorts(), { root, onStep: (s) => told.push(s) });
    const step = { fix: "remove-stale-lock", task: "t1", path: lock };
    expect(r.plan.steps).toEqual([step]);
    expect([r.applied, told, r.failed, r.busy]).toEqual([[step], [step], [], []]);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(root, ".ariel/leases"))).toBe(false);
  });

  it("a stale lock that cannot be broken is failed; the task's other steps run under its lease, the lock not among them", async () => {
    root = makeRoot(["api"]);
    halfMadeAdd("t1");
    const lock = `${taskRecordPath(root, "t1")}.lock`;
    writeFile(lock, DEAD);
    const told: string[] = [];
    const r = await reconcileWorkspace(faultyPorts([{ op: "unlink", path: lock, code: "EACCES" }]), {
      root,
      onStep: (s) => told.push(s.fix),
    });
    expect(r.applied.map((s) => s.fix)).toEqual(["remove-worktree", "delete-branch", "remove-dir"]);
    expect(told).toEqual(["remove-worktree", "delete-branch", "remove-dir"]);
    expect(r.failed.map((f) => [f.step, f.error.code])).toEqual([
      [{ fix: "remove-stale-lock", task: "t1", path: lock }, "ERR_INTERNAL"],
    ]);
    expect(r.failed[0]?.error.message).toContain("EACCES");
    expect(readFileSync(lock, "utf8")).toBe(DEAD);
    expect(existsSync(leg("t1", "api"))).toBe(false);
  });

  it("each task's steps are applied under its own lease, task by task", async () => {
    root = makeRoot(["api"]);
    halfMadeAdd("t1");
    halfMadeAdd("t2");
    const told: string[] = [];
    const r = await reconcileWorkspace(faultyPorts(), {
      root,
      onStep: (s) => told.push(`${s.fix} ${s.task}`),
    });
    const order = ["t1", "t2"].flatMap((t) => [
      `remove-worktree ${t}`,
      `delete-branch ${t}`,
      `remove-dir ${t}`,
    ]);
    expect(told).toEqual(order);
    expect(r.applied.map((s) => `${s.fix} ${s.task}`)).toEqual(order);
    expect(r.failed).toEqual([]);
    expect(git(join(root, "api"), "branch", "--list", "ariel/*")).toBe("");
  });

  it("a task whose lease another process holds is not touched while an earlier task's lease is held", async () => {
    root = makeRoot(["api"]);
    halfMadeAdd("t1");
    const busy = halfMadeAdd("t2");
    await withLease(root, "t2", { owner: "other" }, async () => {});
    stealLease(root, "t2");
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.applied.map((s) => `${s.fix} ${s.task}`)).toEqual([
      "remove-worktree t1",
      "delete-branch t1",
      "remove-dir t1",
    ]);
    expect([r.busy, r.failed]).toEqual([["t2"], []]);
    expect(existsSync(join(busy, ".git"))).toBe(true);
    expect(git(join(root, "api"), "branch", "--list", "--format=%(refname)", "ariel/t2")).toBe(
      "refs/heads/ariel/t2",
    );
  });
});

describe("reconcileWorkspace: a crashed land", () => {
  /** Task t1 over api, a commit in its leg, its record's land crashed while `landing`. */
  async function crashedLand(): Promise<{ base: string; tip: string; version: number }> {
    root = makeRoot(["api"]);
    const ports = faultyPorts();
    const { record: rec } = await addTask(ports, { root, taskId: "t1", sources: ["api"] });
    const api = join(root, "api");
    writeFile(join(leg("t1", "api"), "api.txt"), "api\n");
    const base = git(api, "rev-parse", "main");
    const tip = commitAll(leg("t1", "api"), "work in api");
    const land = {
      strategy: "ff" as const,
      state: "landing" as const,
      startedAt: "2026-12-04T00:00:00.000Z",
      legs: [
        { source: "api", target: "main", from: base, to: tip, checkout: api, state: "pending" as const },
      ],
    };
    const written = await withLease(root, "t1", { owner: "tester" }, (lease) =>
      writeTask(ports, { ...rec, land }, rec.version, lease),
    );
    return { base, tip, version: written.version };
  }

  it("a dry run plans its finish without moving the target or writing the record; the real run finishes it", async () => {
    const { base, tip, version } = await crashedLand();
    const api = join(root, "api");
    const step = {
      fix: "finish-land",
      task: "t1",
      source: "api",
      path: api,
      target: "main",
      from: base,
      to: tip,
    };
    const plan = await reconcileWorkspace(faultyPorts(), { root, dryRun: true });
    expect(plan.plan.steps).toEqual([step]);
    expect([plan.applied, plan.failed, plan.busy]).toEqual([[], [], []]);
    expect(git(api, "rev-parse", "main")).toBe(base);
    expect(recordOf("t1").version).toBe(version);
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.applied).toEqual([step]);
    expect(git(api, "rev-parse", "main")).toBe(tip);
    expect(recordOf("t1").land?.state).toBe("landed");
  });
});

describe("reconcileWorkspace: a recorded task's marks", () => {
  it("a task with nothing to mark keeps its record byte for byte (a relock only)", async () => {
    root = makeRoot(["api"]);
    await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
    git(join(root, "api"), "worktree", "unlock", leg("t1", "api"));
    const before = record("t1");
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.applied.map((s) => s.fix)).toEqual(["relock"]);
    expect(r.failed).toEqual([]);
    expect(record("t1")).toBe(before);
  });

  /** Task t1 over api and web, both worktree directories deleted by hand. */
  async function legsDeleted(): Promise<string> {
    root = makeRoot(["api", "web"]);
    await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api", "web"] });
    for (const s of ["api", "web"]) rmSync(leg("t1", s), { recursive: true, force: true });
    return record("t1");
  }

  it("legs whose worktree is gone: pruned, then marked unknown in one record write, each mark told", async () => {
    const before = await legsDeleted();
    const told: string[] = [];
    const r = await reconcileWorkspace(faultyPorts(), { root, onStep: (s) => told.push(said([s])[0]!) });
    const expected = [
      `prune t1 ${leg("t1", "api")}`,
      `prune t1 ${leg("t1", "web")}`,
      // the emptied task directory goes in the same pass: a second reconcile finds nothing
      `remove-dir t1 ${join(root, ".ariel/worktrees/t1")}`,
      `mark-leg t1 ${leg("t1", "api")}`,
      `mark-leg t1 ${leg("t1", "web")}`,
    ];
    expect(said(r.applied)).toEqual(expected);
    expect(existsSync(join(root, ".ariel/worktrees/t1"))).toBe(false);
    expect((await reconcileWorkspace(faultyPorts(), { root })).applied).toEqual([]);
    expect(told).toEqual(expected);
    expect(r.failed).toEqual([]);
    const rec = recordOf("t1");
    expect([rec.state, rec.legs.map((l) => l.state), rec.version]).toEqual([
      "unknown",
      ["unknown", "unknown"],
      (JSON.parse(before) as TaskRecord).version + 1,
    ]);
  });

  it("a failing prune (not a removal) does not hold the marks back", async () => {
    await legsDeleted();
    const admin = join(root, "api/.git/worktrees/api");
    expect(existsSync(admin)).toBe(true);
    const r = await reconcileWorkspace(faultyPorts([{ op: "remove", path: admin, code: "EACCES" }]), {
      root,
    });
    expect(said(r.failed.map((f) => f.step))).toEqual([`prune t1 ${leg("t1", "api")}`]);
    expect(said(r.applied)).toEqual([
      `prune t1 ${leg("t1", "web")}`,
      `remove-dir t1 ${join(root, ".ariel/worktrees/t1")}`,
      `mark-leg t1 ${leg("t1", "api")}`,
      `mark-leg t1 ${leg("t1", "web")}`,
    ]);
    expect(recordOf("t1").legs.map((l) => l.state)).toEqual(["unknown", "unknown"]);
  });

  it("the record write failing: each mark is failed with its error, the record as it was", async () => {
    const before = await legsDeleted();
    const ports = faultyPorts([{ op: "writeAtomic", path: taskRecordPath(root, "t1"), code: "ENOSPC" }]);
    const r = await reconcileWorkspace(ports, { root });
    expect(said(r.applied)).toEqual([
      `prune t1 ${leg("t1", "api")}`,
      `prune t1 ${leg("t1", "web")}`,
      `remove-dir t1 ${join(root, ".ariel/worktrees/t1")}`,
    ]);
    expect(said(r.failed.map((f) => f.step))).toEqual([
      `mark-leg t1 ${leg("t1", "api")}`,
      `mark-leg t1 ${leg("t1", "web")}`,
    ]);
    expect(r.failed.map((f) => f.error.code)).toEqual(["ERR_INTERNAL", "ERR_INTERNAL"]);
    expect(r.failed[0]?.error.message).toContain("ENOSPC");
    expect(r.failed[1]?.error.message).toBe(r.failed[0]?.error.message);
    expect(record("t1")).toBe(before);
  });

  it("the lease lost before the record write: ERR_FENCED, the record as it was", async () => {
    const before = await legsDeleted();
    const ports = faultyPorts([
      {
        op: "createExclusive",
        path: `${taskRecordPath(root, "t1")}.lock`,
        times: 1,
        before: () => void stealLease(root, "t1"),
      },
    ]);
    const e = await arielErrorOf(reconcileWorkspace(ports, { root }));
    expect([e.code, e.exit]).toEqual(["ERR_FENCED", 75]);
    expect(record("t1")).toBe(before);
  });

  /**
   * Task t1 over api and web left `cleaning` by a `remove --snapshot` killed after both legs'
   * snapshots, before its record write (what facts_snapshot_test.ts builds): each leg's worktree
   * is to be removed, and the leg then marked snapshotted.
   */
  async function snapshottedNotRemoved(): Promise<string> {
    root = realpathSync(makeRoot(["api", "web"]));
    const ports = faultyPorts();
    const { record: rec } = await addTask(ports, { root, taskId: "t1", sources: ["api", "web"] });
    await withLease(root, "t1", { owner: "tester" }, async (lease) => {
      const artifacts: Artifact[] = [];
      await writeTask(ports, { ...rec, state: "cleaning" }, rec.version, lease);
      for (const l of rec.legs) await snapshotLeg(ports, lease, "t1", l, artifacts);
    });
    return record("t1");
  }

  it("a recorded leg's snapshot covering its worktree: removed, then both legs marked snapshotted", async () => {
    await snapshottedNotRemoved();
    const plan = await reconcileWorkspace(faultyPorts(), { root, dryRun: true });
    expect(said(plan.plan.steps)).toEqual([
      `remove-worktree t1 ${leg("t1", "api")}`,
      `remove-worktree t1 ${leg("t1", "web")}`,
      `remove-dir t1 ${join(root, ".ariel/worktrees/t1")}`,
      `mark-leg t1 ${leg("t1", "api")}`,
      `mark-leg t1 ${leg("t1", "web")}`,
    ]);
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(said(r.applied)).toEqual(said(plan.plan.steps));
    expect(r.failed).toEqual([]);
    const rec = recordOf("t1");
    expect([rec.state, rec.legs.map((l) => l.state)]).toEqual(["closed", ["snapshotted", "snapshotted"]]);
  });

  it("a recorded leg whose removal fails keeps the record as it is; the other leg is still removed", async () => {
    const before = await snapshottedNotRemoved();
    const ports = faultyPorts([
      { op: "createExclusive", path: join(root, "api/.git/ariel-worktree.lock"), code: "EACCES" },
    ]);
    const r = await reconcileWorkspace(ports, { root });
    // The task's directory still holds api's worktree: its rmdir fails too.
    expect(said(r.failed.map((f) => f.step))).toEqual([
      `remove-worktree t1 ${leg("t1", "api")}`,
      `remove-dir t1 ${join(root, ".ariel/worktrees/t1")}`,
    ]);
    expect(said(r.applied)).toEqual([`remove-worktree t1 ${leg("t1", "web")}`]);
    expect(record("t1")).toBe(before);
    expect(existsSync(join(leg("t1", "api"), ".git"))).toBe(true);
    expect(existsSync(leg("t1", "web"))).toBe(false);
  });

  it("a failing removal of a worktree no mark names does not hold the marks back", async () => {
    // t1: api's leg gone (to mark), and a half-made web worktree of t1 no record names.
    root = makeRoot(["api", "web"]);
    await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
    git(join(root, "api"), "worktree", "remove", "-f", "-f", leg("t1", "api"));
    git(join(root, "web"), "worktree", "add", "-q", "--lock", "--reason", "ariel:t1", leg("t1", "web"));
    const ports = faultyPorts([
      { op: "createExclusive", path: join(root, "web/.git/ariel-worktree.lock"), code: "EACCES" },
    ]);
    const r = await reconcileWorkspace(ports, { root });
    // the task directory is not removed under the worktree that stayed (never recursive)
    expect(said(r.failed.map((f) => f.step))).toEqual([
      `remove-worktree t1 ${leg("t1", "web")}`,
      `remove-dir t1 ${join(root, ".ariel/worktrees/t1")}`,
    ]);
    expect(existsSync(leg("t1", "web"))).toBe(true);
    expect(said(r.applied)).toEqual([`mark-leg t1 ${leg("t1", "api")}`]);
    const rec = recordOf("t1");
    expect([rec.state, rec.legs.map((l) => l.state)]).toEqual(["unknown", ["unknown"]]);
  });
});

describe("reconcileWorkspace: sandboxes of ended runs", () => {
  const RUN_A = "20260101T000000Z-aaaaaa";
  const RUN_B = "20260101T000000Z-bbbbbb";
  const RUN_C = "20260101T000000Z-cccccc";
  const RUN_D = "20260101T000000Z-dddddd";
  const RUN_E = "20260101T000000Z-eeeeee";

  /**
   * Run `runId`'s sandbox over api: its shadow (a bare clone) holds a new commit on its own
   * branch `work` and on `main`, a branch the run may not move. Ended unless `live` (its owner
   * this process). Returns the new commit.
   */
  function sandboxRun(runId: string, task: string | null, live = false): string {
    const api = join(root, "api");
    const p = sandboxPaths(root, runId);
    mkdirSync(p.dir, { recursive: true });
    const shadow = p.shadow(1);
    git(root, "clone", "-q", "--bare", api, shadow);
    const head = git(api, "rev-parse", "HEAD");
    writeFileSync(p.startRefs(1), `${head} refs/heads/main\n`);
    const commit = git(shadow, "commit-tree", `${head}^{tree}`, "-p", head, "-m", `work of ${runId}`);
    git(shadow, "update-ref", "refs/heads/work", commit);
    git(shadow, "update-ref", "refs/heads/main", commit);
    const owner = live ? selfMonitorRef() : { pid: 2 ** 30, startTime: null, bootId: null };
    const manifest = {
      v: 1,
      type: "sandbox",
      runId,
      root,
      task,
      createdAt: "2026-01-01T00:00:00.000Z",
      owner,
      child: null,
      repos: [{ n: 1, common: join(api, ".git"), main: false, own: ["refs/heads/work"], worktrees: [] }],
    };
    writeFileSync(p.manifest, `${JSON.stringify(manifest)}\n`);
    return commit;
  }

  const step = (runId: string, task: string) => ({
    fix: "finish-sandbox",
    task,
    path: sandboxPaths(root, runId).dir,
    run: runId,
  });
  const byRun = (steps: readonly ReconcileStep[]) =>
    [...steps].sort((a, b) => ("run" in a && "run" in b ? a.run.localeCompare(b.run) : 0));

  it("a dry run plans a finish-sandbox step per ended run, with its task, and changes nothing", async () => {
    root = realpathSync(makeRoot(["api"]));
    sandboxRun(RUN_A, "t1");
    sandboxRun(RUN_B, null);
    sandboxRun(RUN_C, "t3", true);
    writeFile(sandboxPaths(root, RUN_D).manifest, "{ not json\n");
    writeFile(join(sandboxPaths(root, RUN_E).dir, "1/objects/.keep"), "");
    const before = gitPicture(join(root, "api"));
    const told: ReconcileStep[] = [];
    const r = await reconcileWorkspace(faultyPorts(), { root, dryRun: true, onStep: (s) => told.push(s) });
    const expected = [step(RUN_A, "t1"), step(RUN_B, "")];
    expect(byRun(r.plan.steps)).toEqual(expected);
    expect(byRun(told)).toEqual(expected);
    // (RUN_D's damaged manifest: see the it.fails below.)
    expect([r.applied, r.failed, r.busy]).toEqual([[], [], []]);
    expect(gitPicture(join(root, "api"))).toEqual(before);
    for (const run of [RUN_A, RUN_B, RUN_C, RUN_D, RUN_E]) {
      expect(existsSync(sandboxPaths(root, run).dir)).toBe(true);
    }
    // Without onStep, the same plan.
    expect(byRun((await reconcileWorkspace(faultyPorts(), { root, dryRun: true })).plan.steps)).toEqual(
      expected,
    );
  });

  it("the real run brings an ended run's work home and says what it kept aside; a live run's sandbox is left", async () => {
    root = realpathSync(makeRoot(["api"]));
    const api = join(root, "api");
    const main = git(api, "rev-parse", "main");
    const ended = sandboxRun(RUN_A, "t1");
    sandboxRun(RUN_C, "t3", true);
    const told: ReconcileStep[] = [];
    const r = await reconcileWorkspace(faultyPorts(), { root, onStep: (s) => told.push(s) });
    expect(r.plan.steps).toEqual([step(RUN_A, "t1")]);
    expect([r.applied, told]).toEqual([[step(RUN_A, "t1")], [step(RUN_A, "t1")]]);
    expect([r.failed, r.busy]).toEqual([[], []]);
    const kept = `refs/ariel/sandbox/${RUN_A}/heads/main`;
    expect(r.plan.notes).toEqual([
      {
        code: "W_SANDBOX_KEPT",
        message: `the sandbox's refs/heads/main is kept as ${kept} (the run may not move it); refs/heads/main itself did not move`,
        task: "t1",
        hint: `git -C ${join(api, ".git")} log ${kept} shows it; merge or delete it yourself`,
      },
    ]);
    expect(git(api, "for-each-ref", "--format=%(refname) %(objectname)")).toBe(
      [
        `refs/ariel/sandbox/${RUN_A}/heads/main ${ended}`,
        `refs/heads/main ${main}`,
        `refs/heads/work ${ended}`,
      ].join("\n"),
    );
    expect(existsSync(sandboxPaths(root, RUN_A).dir)).toBe(false);
    // The live run's sandbox: not synced (its commit is not home), still there.
    expect(existsSync(sandboxPaths(root, RUN_C).manifest)).toBe(true);
  });

  it("a sandbox whose manifest is damaged is noted, by the dry run and the real run, and left alone", async () => {
    root = realpathSync(makeRoot(["api"]));
    writeFile(sandboxPaths(root, RUN_D).manifest, "{ not json\n");
    const dir = sandboxPaths(root, RUN_D).dir;
    const note = {
      code: "W_RECORD_UNREADABLE",
      message: `sandbox ${RUN_D}: manifest not readable, left alone (${dir}/sandbox.json is not a sandbox manifest (not JSON))`,
      path: dir,
      run: RUN_D,
      hint: `the run's work is still in ${dir}; mend or move its sandbox.json, then reconcile again`,
    };
    const plan = await reconcileWorkspace(faultyPorts(), { root, dryRun: true });
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect([plan.plan.notes, r.plan.notes]).toEqual([[note], [note]]);
    expect([plan.plan.steps, r.plan.steps, r.applied, r.failed]).toEqual([[], [], [], []]);
    expect(readFileSync(sandboxPaths(root, RUN_D).manifest, "utf8")).toBe("{ not json\n");
  });

  it("an ended run of no task: its step's task is empty, its note names none", async () => {
    root = realpathSync(makeRoot(["api"]));
    sandboxRun(RUN_B, null);
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.applied).toEqual([step(RUN_B, "")]);
    expect(r.plan.notes.map((n) => [n.code, "task" in n])).toEqual([["W_SANDBOX_KEPT", false]]);
  });

  it("a sync that fails is one failed finish-sandbox step for the sandbox directory; the rest goes on", async () => {
    root = realpathSync(makeRoot(["api"]));
    const api = join(root, "api");
    sandboxRun(RUN_A, "t1");
    // A git lock left on the parking ref: git cannot keep the sandbox's main aside.
    writeFile(join(api, ".git/refs/ariel/sandbox", RUN_A, "heads/main.lock"), "");
    const lock = join(api, ".git/ariel-worktree.lock");
    writeFileSync(lock, DEAD);
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.failed.map((f) => f.step)).toEqual([
      { fix: "finish-sandbox", task: "", path: `${root}/.ariel/sandbox`, run: "" },
    ]);
    expect([r.failed[0]?.error.code, r.failed[0]?.error.message]).toEqual([
      "ERR_GIT",
      `could not keep refs/heads/main as refs/ariel/sandbox/${RUN_A}/heads/main in ${join(api, ".git")}`,
    ]);
    expect(r.plan.steps.map((s) => s.fix)).toEqual(["remove-stale-lock"]);
    expect(r.applied.map((s) => s.fix)).toEqual(["remove-stale-lock"]);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(sandboxPaths(root, RUN_A).manifest)).toBe(true);
  });
});
