/**
 * What `ariel-worktree land` tells the user to do about each refusal (hints.ts): the text of each
 * land refusal's hint (the leg's repository, branch, target and worktree in it, `TARGET` when
 * the leg has none, `restore` first for a conflict whose worktree was removed), and of each
 * refusal of the removal `--remove` checks first. A hint that names `ariel-worktree land`'s
 * flags names only those it accepts.
 */
import { describe, expect, it } from "vitest";
import { REFUSALS, type RefusalReason } from "../worktree/refusals.ts";
import { LAND_FLAGS, type LandHintLeg, landRefusalHint, landRemovalHint } from "./hints.ts";
import type { LandRefusalReason } from "./plan_land.ts";

const LEG: LandHintLeg = {
  source: "api",
  repo: "/w/api",
  branch: "ariel/t1",
  target: "main",
  checkout: "/w/api",
  worktree: "/w/.ariel/worktrees/t1/api",
};

describe("landRefusalHint", () => {
  it.each([
    [
      "land-pending",
      LEG,
      "an earlier land of this task did not finish: ariel-worktree reconcile finishes it, then land again",
    ],
    ["no-target", LEG, "/w/api is on a detached HEAD: land --into BRANCH"],
    ["same-branch", LEG, "land --into the branch the work should go to"],
    [
      "branch-missing",
      LEG,
      "recreate ariel/t1 in /w/api (git branch ariel/t1 COMMIT; git log -g lists its commits), then land again",
    ],
    ["target-missing", LEG, "land --into a branch /w/api has, or create main there first"],
    [
      "target-missing",
      { ...LEG, target: null },
      "land --into a branch /w/api has, or create TARGET there first",
    ],
    [
      "target-dirty",
      { ...LEG, checkout: "/w/other" },
      "commit or stash the changes in /w/other, or land --into a branch that is not checked out",
    ],
    [
      "target-dirty",
      { ...LEG, checkout: null },
      "commit or stash the changes in /w/api, or land --into a branch that is not checked out",
    ],
    [
      "not-fast-forward",
      LEG,
      "land with --strategy merge, squash or rebase, or rebase ariel/t1 onto main first",
    ],
    [
      "conflict",
      LEG,
      "in /w/.ariel/worktrees/t1/api: git merge main, resolve the conflicts and commit, then land again",
    ],
    [
      "conflict",
      { ...LEG, worktree: null, source: "my api" },
      "bring the leg back first: ariel-worktree restore --task t1 --source 'my api'; then in its worktree git merge main, resolve the conflicts and commit, and land again",
    ],
  ] as [LandRefusalReason, LandHintLeg, string][])("%s", (reason, leg, hint) => {
    expect(landRefusalHint("t1", leg, reason)).toBe(hint);
  });
});

describe("landRemovalHint", () => {
  const leg = { source: "web", worktreePath: "/w/.ariel/worktrees/t1/web" };
  const keep =
    "or land without --remove and keep them: ariel-worktree remove --task t1 --source web --snapshot";
  it.each([
    ["dirty", `commit or stash the changes in ${leg.worktreePath} (land takes commits only), ${keep}`],
    [
      "overlay-changed",
      `commit or stash the changed files in ${leg.worktreePath} (land takes commits only), ${keep}`,
    ],
    [
      "skip-worktree",
      `commit or stash the changed files in ${leg.worktreePath} (land takes commits only), ${keep}`,
    ],
    ["unreachable", `put those commits on a branch in ${leg.worktreePath} (git branch NAME COMMIT), ${keep}`],
    ["reflog", `put those commits on a branch in ${leg.worktreePath} (git branch NAME COMMIT), ${keep}`],
    [
      "foreign-lock",
      "land without --remove; ariel-worktree remove -n --task t1 --source web shows what stands in the way",
    ],
    [
      "main-worktree",
      "land without --remove; ariel-worktree remove -n --task t1 --source web shows what stands in the way",
    ],
  ] as [RefusalReason, string][])("%s", (reason, hint) => {
    expect(landRemovalHint("t1", leg, reason)).toBe(hint);
  });

  // A snapshot keeps the local work of these only: each is told about --snapshot, no other is.
  it("every removal refusal: --snapshot named exactly where a snapshot keeps the work", () => {
    const reasons = Object.keys(REFUSALS) as RefusalReason[];
    expect(reasons.filter((r) => landRemovalHint("t1", leg, r).includes("--snapshot"))).toEqual(
      reasons.filter((r) => REFUSALS[r].snapshot),
    );
  });
});

describe("LAND_FLAGS", () => {
  it("the flags land accepts, and a land hint names no other", () => {
    expect(LAND_FLAGS).toEqual([
      "--task",
      "--into",
      "--strategy",
      "--remove",
      "--no-hooks",
      "--dry-run",
      "--detailed-exitcode",
      "--json",
      "--workspace-root",
    ]);
    const reasons: LandRefusalReason[] = [
      "land-pending",
      "no-target",
      "same-branch",
      "branch-missing",
      "target-missing",
      "target-dirty",
      "not-fast-forward",
      "conflict",
    ];
    for (const r of reasons) {
      const flags = landRefusalHint("t1", LEG, r).match(/(?<=land [^;:]*?)--[a-z-]+/g) ?? [];
      expect(flags.filter((f) => !LAND_FLAGS.includes(f))).toEqual([]);
    }
  });
});
