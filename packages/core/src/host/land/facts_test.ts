/**
 * gatherLandLeg and gatherLandFacts on real repositories: every fact `planLand` reads about a leg
 * (its target and tips, the checkout that has the target, how far ahead, whether a fast-forward
 * is possible, the candidate, the leg's own uncommitted paths), and the cases where the leg
 * cannot be compared and only the base facts are gathered.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LandLegFacts } from "../../land/plan_land.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { commitAll, GIT_TEST_ENV, git, removeDir, writeFile } from "../_fixture.ts";
import { faultyPorts, makeRoot } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { gatherLandFacts, gatherLandLeg, isAncestor } from "./facts.ts";

// A merge candidate is a commit made by the host's git, which takes its identity from the process.
Object.assign(process.env, GIT_TEST_ENV);

let root: string;
afterEach(() => removeDir(root));

/** Task t1 on `api` with one commit in its leg: the record, the repository, main's and the leg's tips. */
async function task(commit = true) {
  root = makeRoot(["api"]);
  const { record } = await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
  const repo = join(root, "api");
  const wt = join(root, ".ariel/worktrees/t1/api");
  const base = git(repo, "rev-parse", "main");
  let tip = base;
  if (commit) {
    writeFile(join(wt, "work.txt"), "work\n");
    tip = commitAll(wt, "work");
  }
  return { record, leg: record.legs[0]!, repo, wt, base, tip };
}

/** The facts gathered when the leg cannot be compared with a target (nothing beyond the tips). */
function baseFacts(over: Partial<LandLegFacts>): LandLegFacts {
  return {
    source: "api",
    repo: join(root, "api"),
    branch: "ariel/t1",
    head: null,
    target: null,
    targetTip: null,
    checkout: null,
    checkoutDirty: [],
    ahead: 0,
    fastForward: false,
    candidate: null,
    uncommitted: [],
    worktree: join(root, ".ariel/worktrees/t1/api"),
    ...over,
  };
}

describe("gatherLandLeg", () => {
  it("lands into the branch the source has checked out: its checkout, one commit ahead, a fast-forward", async () => {
    const { leg, repo, base, tip } = await task();
    expect(await gatherLandLeg(faultyPorts(), "t1", leg, "ff", undefined)).toEqual(
      baseFacts({
        head: tip,
        target: "main",
        targetTip: base,
        checkout: repo,
        ahead: 1,
        fastForward: true,
        candidate: { to: tip },
      }),
    );
  });

  it("--into a branch checked out nowhere: no checkout, and the checkout's dirt is not looked at", async () => {
    const { leg, repo, base, tip } = await task();
    git(repo, "branch", "rel", base);
    writeFile(join(repo, "dirty.txt"), "x\n");
    expect(await gatherLandLeg(faultyPorts(), "t1", leg, "ff", "rel")).toEqual(
      baseFacts({
        head: tip,
        target: "rel",
        targetTip: base,
        ahead: 1,
        fastForward: true,
        candidate: { to: tip },
      }),
    );
  });

  it("names the checked-out target's dirty paths", async () => {
    const { leg, repo, base, tip } = await task();
    writeFile(join(repo, "dirty.txt"), "x\n");
    writeFile(join(repo, "README.md"), "changed\n");
    const facts = await gatherLandLeg(faultyPorts(), "t1", leg, "ff", undefined);
    expect([facts.checkout, [...facts.checkoutDirty].sort(), facts.targetTip, facts.head]).toEqual([
      repo,
      ["README.md", "dirty.txt"],
      base,
      tip,
    ]);
  });

  it("names the leg's own uncommitted paths, and none once its worktree is gone", async () => {
    const { record, leg, wt, tip } = await task();
    writeFile(join(wt, "wip.txt"), "wip\n");
    const facts = await gatherLandLeg(faultyPorts(), "t1", leg, "ff", undefined);
    expect([facts.uncommitted, facts.worktree]).toEqual([["wip.txt"], wt]);
    removeDir(wt);
    const gone = await gatherLandLeg(faultyPorts(), "t1", leg, "ff", undefined);
    expect([gone.uncommitted, gone.worktree, gone.head]).toEqual([[], null, tip]);
    const removed = { ...leg, state: "removed" } as TaskRecord["legs"][number];
    expect(record.legs[0]!.state).toBe("active");
    const off = await gatherLandLeg(faultyPorts(), "t1", removed, "ff", undefined);
    expect([off.uncommitted, off.worktree]).toEqual([[], null]);
  });

  it("a target that went its own way: ahead, no fast-forward, no ff candidate, a merge candidate", async () => {
    const { leg, repo, base, tip } = await task();
    writeFile(join(repo, "main.txt"), "main\n");
    const moved = commitAll(repo, "main moves");
    const ff = await gatherLandLeg(faultyPorts(), "t1", leg, "ff", undefined);
    expect([ff.targetTip, ff.ahead, ff.fastForward, ff.candidate]).toEqual([moved, 1, false, null]);
    const merge = await gatherLandLeg(faultyPorts(), "t1", leg, "merge", undefined);
    const to = (merge.candidate as { to: string }).to;
    expect(git(repo, "rev-list", "--parents", "-n1", to)).toBe(`${to} ${moved} ${tip}`);
    expect(git(repo, "rev-parse", "main")).toBe(moved);
    expect(base).not.toBe(moved);
  });

  it("nothing to land: zero ahead, a fast-forward, and no candidate made", async () => {
    const { leg, repo, base } = await task(false);
    expect(await gatherLandLeg(faultyPorts(), "t1", leg, "merge", undefined)).toEqual(
      baseFacts({ head: base, target: "main", targetTip: base, checkout: repo, fastForward: true }),
    );
  });

  it("a detached source with no --into: no target, only the base facts", async () => {
    const { leg, repo, base, tip } = await task();
    git(repo, "checkout", "-q", "--detach", base);
    expect(await gatherLandLeg(faultyPorts(), "t1", leg, "ff", undefined)).toEqual(baseFacts({ head: tip }));
  });

  it("an --into branch that does not exist: its tip is null, only the base facts", async () => {
    const { leg, tip } = await task();
    expect(await gatherLandLeg(faultyPorts(), "t1", leg, "ff", "nope")).toEqual(
      baseFacts({ head: tip, target: "nope" }),
    );
  });

  it("a leg whose branch is gone: its head is null, only the base facts", async () => {
    const { leg, repo, wt, base } = await task();
    git(wt, "checkout", "-q", "--detach");
    git(repo, "branch", "-D", "ariel/t1");
    expect(await gatherLandLeg(faultyPorts(), "t1", leg, "ff", undefined)).toEqual(
      baseFacts({ target: "main", targetTip: base }),
    );
  });

  it("--into the leg's own branch: only the base facts", async () => {
    const { leg, tip } = await task();
    expect(await gatherLandLeg(faultyPorts(), "t1", leg, "ff", "ariel/t1")).toEqual(
      baseFacts({ head: tip, target: "ariel/t1", targetTip: tip }),
    );
  });
});

describe("gatherLandFacts", () => {
  it("gathers each leg in record order, and is pending only while a land is landing", async () => {
    root = makeRoot(["api", "web"]);
    const { record } = await addTask(faultyPorts(), { root, taskId: "t1", sources: ["web", "api"] });
    const facts = await gatherLandFacts(faultyPorts(), record, "squash", undefined);
    expect([facts.taskId, facts.strategy, facts.pending, facts.legs.map((l) => l.source)]).toEqual([
      "t1",
      "squash",
      false,
      record.legs.map((l) => l.source),
    ]);
    const land = { strategy: "ff", state: "landing", startedAt: "2026-12-04T00:00:00.000Z", legs: [] };
    expect(
      (await gatherLandFacts(faultyPorts(), { ...record, land } as TaskRecord, "ff", undefined)).pending,
    ).toBe(true);
    const done = { ...land, state: "landed" };
    expect(
      (await gatherLandFacts(faultyPorts(), { ...record, land: done } as TaskRecord, "ff", undefined))
        .pending,
    ).toBe(false);
  });
});

describe("isAncestor", () => {
  it("is true for an ancestor and for the commit itself, false the other way", async () => {
    const { repo, base, tip } = await task();
    expect([
      await isAncestor(faultyPorts(), repo, base, tip),
      await isAncestor(faultyPorts(), repo, tip, tip),
      await isAncestor(faultyPorts(), repo, tip, base),
    ]).toEqual([true, true, false]);
  });
});
