import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { removeDir } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { selfIdentity } from "../proc.ts";
import { faultyPorts, git, gitPicture, makeRoot, stealLease } from "../worktree/_fixture.ts";
import { reconcileWorkspace } from "./reconcile.ts";

let root: string;
afterEach(() => removeDir(root));

/** A lock file whose holder process is gone. */
const DEAD = `${JSON.stringify({ ...selfIdentity(), pid: 2 ** 30, processStart: null, nonce: "dead" })}\n`;
/** One held by this process (live). */
const LIVE = `${JSON.stringify({ ...selfIdentity(), nonce: "live" })}\n`;

/** What a add killed after `git worktree add` leaves: a worktree of ours, no record. */
function halfMadeAdd(): string {
  root = makeRoot(["api"]);
  const leg = join(root, ".ariel/worktrees/t1/api");
  git(join(root, "api"), "worktree", "add", "-q", "--lock", "--reason", "ariel:t1", leg, "-b", "ariel/t1");
  return leg;
}

describe("reconcileWorkspace under faults", () => {
  it("converges a half-made add (the baseline for the rows below)", async () => {
    const leg = halfMadeAdd();
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.applied.map((s) => s.fix)).toEqual(["remove-worktree", "delete-branch", "remove-dir"]);
    expect(existsSync(leg)).toBe(false);
  });

  it("the lease is lost while waiting for the repository lock: ERR_FENCED, nothing changed", async () => {
    const leg = halfMadeAdd();
    const before = gitPicture(join(root, "api"));
    const ports = faultyPorts([
      {
        op: "createExclusive",
        path: join(root, "api/.git/ariel-worktree.lock"),
        times: 1,
        before: () => void stealLease(root, "t1"),
      },
    ]);
    const e = await arielErrorOf(reconcileWorkspace(ports, { root }));
    expect([e.code, e.exit]).toEqual(["ERR_FENCED", 75]);
    expect(gitPicture(join(root, "api"))).toEqual(before);
    expect(existsSync(join(leg, ".git"))).toBe(true);
    expect(ports.fs.log.filter((l) => /^(rmdir|unlink|remove) .*worktrees/.test(l))).toEqual([]);
  });

  it("EACCES removing the empty task directory: reported as failed, the rest applied", async () => {
    halfMadeAdd();
    const ports = faultyPorts([{ op: "rmdir", path: join(root, ".ariel/worktrees/t1"), code: "EACCES" }]);
    const r = await reconcileWorkspace(ports, { root });
    expect(r.applied.map((s) => s.fix)).toEqual(["remove-worktree", "delete-branch"]);
    expect(r.failed.map((f) => [f.step.fix, f.error.message])).toEqual([
      ["remove-dir", expect.stringContaining("EACCES")],
    ]);
    expect(git(join(root, "api"), "branch", "--list", "ariel/t1")).toBe("");
  });
});

describe("reconcileWorkspace", () => {
  it("a dry run plans and tells each step, and changes nothing: no lease, no lock, no write", async () => {
    const leg = halfMadeAdd();
    const before = gitPicture(join(root, "api"));
    const ports = faultyPorts();
    const told: string[] = [];
    const r = await reconcileWorkspace(ports, { root, dryRun: true, onStep: (s) => told.push(s.fix) });
    // The directory left once the worktree is gone is seen only by a second look, after the removal.
    expect(r.plan.steps.map((s) => s.fix)).toEqual(["remove-worktree", "delete-branch"]);
    expect(told).toEqual(["remove-worktree", "delete-branch"]);
    expect([r.applied, r.failed, r.busy]).toEqual([[], [], []]);
    expect(gitPicture(join(root, "api"))).toEqual(before);
    expect(existsSync(join(leg, ".git"))).toBe(true);
    expect(existsSync(join(root, ".ariel/leases"))).toBe(false);
    expect(
      ports.fs.log.filter((l) => !/^(read|stat|lstat|readdir|readText|exists|realpath)/.test(l)),
    ).toEqual([]);
  });

  it("each applied step is told as it is applied, in order", async () => {
    halfMadeAdd();
    const told: string[] = [];
    const r = await reconcileWorkspace(faultyPorts(), {
      root,
      onStep: (s) => told.push(`${s.fix} ${s.task}`),
    });
    expect(told).toEqual(["remove-worktree t1", "delete-branch t1", "remove-dir t1"]);
    expect(r.applied.map((s) => `${s.fix} ${s.task}`)).toEqual(told);
  });

  it("stale locks are broken first, outside any lease; a live one is left", async () => {
    root = makeRoot(["api"]);
    const apiGit = join(root, "api/.git");
    mkdirSync(join(root, ".ariel/tasks"), { recursive: true });
    writeFileSync(join(apiGit, "ariel-worktree.lock"), DEAD);
    writeFileSync(join(root, ".ariel/tasks/t1.json.lock"), LIVE);
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.applied.map((s) => [s.fix, "path" in s ? s.path : null])).toEqual([
      ["remove-stale-lock", join(apiGit, "ariel-worktree.lock")],
    ]);
    expect(existsSync(join(apiGit, "ariel-worktree.lock"))).toBe(false);
    expect(readFileSync(join(root, ".ariel/tasks/t1.json.lock"), "utf8")).toBe(LIVE);
    expect(existsSync(join(root, ".ariel/leases"))).toBe(false);
  });

  it("a task whose lease another process holds is reported busy and left as it is", async () => {
    const leg = halfMadeAdd();
    await withLease(root, "t1", { owner: "other" }, async () => {});
    stealLease(root, "t1");
    const before = gitPicture(join(root, "api"));
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.busy).toEqual(["t1"]);
    expect([r.applied, r.failed]).toEqual([[], []]);
    expect(gitPicture(join(root, "api"))).toEqual(before);
    expect(existsSync(join(leg, ".git"))).toBe(true);
  });
});

describe("reconcileWorkspace: a recorded leg's lock", () => {
  /** Task t1 made by add, its api leg's lock then changed by hand (`reason` null: unlocked). */
  async function relocked(reason: string | null) {
    root = makeRoot(["api"]);
    const { addTask } = await import("../worktree/add.ts");
    await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
    const leg = join(root, ".ariel/worktrees/t1/api");
    const api = join(root, "api");
    git(api, "worktree", "unlock", leg);
    if (reason !== null) git(api, "worktree", "lock", "--reason", reason, leg);
    const plan = await reconcileWorkspace(faultyPorts(), { root, dryRun: true });
    const r = await reconcileWorkspace(faultyPorts(), { root });
    const locked = git(api, "worktree", "list", "--porcelain")
      .split("\n\n")
      .find((e) => e.startsWith(`worktree ${leg}\n`));
    return { plan, r, locked, leg, api };
  }

  it("unlocked by hand: locked again as ariel:t1 (the dry run only says so), nothing else changed", async () => {
    const { plan, r, locked, leg, api } = await relocked(null);
    const step = { fix: "relock", task: "t1", repo: api, path: leg, from: null };
    expect(plan.plan.steps).toEqual([step]);
    expect(plan.applied).toEqual([]);
    expect(r.applied).toEqual([step]);
    expect(r.failed).toEqual([]);
    expect(locked).toContain("\nlocked ariel:t1");
    expect(existsSync(join(leg, "README.md"))).toBe(true);
  });

  it.each(["ariel:t2", "held by me"])(
    "locked by someone else (%s): the lock is never taken over",
    async (reason) => {
      const { plan, r, locked } = await relocked(reason);
      expect(plan.plan.steps).toEqual([]);
      expect(r.applied).toEqual([]);
      expect(locked).toContain(`\nlocked ${reason}`);
    },
  );
});
