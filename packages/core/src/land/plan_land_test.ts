import { describe, expect, it } from "vitest";
import type { LandRecord } from "../schema/task.ts";
import { type LandLegFacts, type LandStrategy, planLand } from "./plan_land.ts";
import { planLandRecovery } from "./recover.ts";

const [A, B, C, D] = ["a", "b", "c", "d"].map((x) => x.repeat(40)) as [string, string, string, string];

/** A leg that can land by merge: one commit ahead, a clean merge to D. */
function facts(overrides: Partial<LandLegFacts> = {}): LandLegFacts {
  return {
    source: "api",
    repo: "/w/api",
    branch: "ariel/t1",
    head: B,
    target: "main",
    targetTip: A,
    checkout: "/w/api",
    checkoutDirty: [],
    ahead: 1,
    fastForward: false,
    candidate: { to: D },
    uncommitted: [],
    ...overrides,
  };
}

const plan = (legs: LandLegFacts[], strategy: LandStrategy = "merge", pending = false) =>
  planLand({ taskId: "t1", strategy, pending, legs });

describe("planLand", () => {
  it("lands every leg from the target's tip to the candidate", () => {
    const p = plan([facts(), facts({ source: "web", repo: "/w/web", checkout: null })]);
    expect(p.refused).toBe(false);
    expect(p.changes).toBe(2);
    expect(p.legs.map((l) => [l.source, l.action, l.from, l.to, l.checkout])).toEqual([
      ["api", "land", A, D, "/w/api"],
      ["web", "land", A, D, null],
    ]);
  });

  it.each<[string, Partial<LandLegFacts>, LandStrategy, string, string]>([
    ["no target (detached source)", { target: null }, "merge", "no-target", "ERR_REFUSED"],
    ["the target is the task's branch", { target: "ariel/t1" }, "merge", "same-branch", "ERR_REFUSED"],
    ["the leg's branch is gone", { head: null }, "merge", "branch-missing", "ERR_BRANCH_MISSING"],
    ["the target branch is missing", { targetTip: null }, "merge", "target-missing", "ERR_REFUSED"],
    [
      "the target's checkout is dirty",
      { checkoutDirty: ["README.md"] },
      "merge",
      "target-dirty",
      "ERR_TARGET_DIRTY",
    ],
    ["ff when the target moved on", { candidate: null }, "ff", "not-fast-forward", "ERR_NOT_FAST_FORWARD"],
    [
      "a conflicting merge",
      { candidate: { conflicts: ["a.txt", "b.txt"] } },
      "squash",
      "conflict",
      "ERR_LAND_CONFLICT",
    ],
  ])("%s refuses the whole land", (_name, over, strategy, reason, code) => {
    const p = plan([facts({ source: "ok", fastForward: true }), facts(over)], strategy);
    expect(p.refused).toBe(true);
    expect(p.legs[0]?.refusals).toEqual([]);
    expect(p.legs[1]?.refusals.map((r) => [r.reason, r.code])).toEqual([[reason, code]]);
  });

  it("names the conflicting files as items", () => {
    const p = plan([facts({ candidate: { conflicts: ["a.txt"] } })]);
    expect(p.legs[0]?.refusals[0]?.items).toEqual(["a.txt"]);
  });

  it("skips a leg the target already has (nothing ahead, or a candidate equal to the tip)", () => {
    const p = plan(
      [facts({ ahead: 0, candidate: null }), facts({ source: "web", candidate: { to: A } })],
      "squash",
    );
    expect(p.legs.map((l) => l.action)).toEqual(["skip", "skip"]);
    expect(p.changes).toBe(0);
    expect(p.refused).toBe(false);
  });

  it("an earlier land still landing refuses every leg (ERR_LAND_PENDING) first", () => {
    const p = plan([facts()], "merge", true);
    expect(p.legs[0]?.refusals.map((r) => r.code)).toEqual(["ERR_LAND_PENDING"]);
  });
});

describe("planLandRecovery", () => {
  const land = (state: LandRecord["state"] = "landing"): LandRecord => ({
    strategy: "merge",
    state,
    startedAt: "2026-01-01T00:00:00Z",
    legs: [
      { source: "api", target: "main", from: A, to: B, checkout: null, state: "landed" },
      { source: "web", target: "main", from: A, to: C, checkout: null, state: "pending" },
      { source: "docs", target: "main", from: A, to: D, checkout: null, state: "pending" },
      { source: "ops", target: "main", from: A, to: D, checkout: null, state: "rolled-back" },
    ],
  });
  const repos = { api: "/w/api", web: "/w/web", docs: "/w/docs", ops: "/w/ops" };

  it("records a moved target, finishes one still at from, reports one moved elsewhere", () => {
    const r = planLandRecovery("t1", land(), { api: B, web: C, docs: A, ops: B }, repos);
    expect(r.steps).toEqual([
      { fix: "mark-landed", task: "t1", source: "web", path: "/w/web", target: "main", to: C },
      { fix: "finish-land", task: "t1", source: "docs", path: "/w/docs", target: "main", from: A, to: D },
    ]);
    expect(r.notes.map((n) => [n.code, n.source, n.found])).toEqual([["W_LAND_STUCK", "ops", B]]);
  });

  it("does nothing for a land that is not landing", () => {
    expect(planLandRecovery("t1", land("landed"), {}, repos)).toEqual({ steps: [], notes: [] });
  });
});
