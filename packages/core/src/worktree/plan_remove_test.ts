import { describe, expect, it } from "vitest";
import type { Leg, TaskRecord } from "../schema/task.ts";
import { cleanLegFacts, taskLeg, taskRecord } from "./_fixture.ts";
import { planRemove } from "./plan_remove.ts";
import type { LegFacts } from "./refusals.ts";

const A = "a".repeat(40);
const leg = (source: string, state: Leg["state"] = "active"): Leg => taskLeg(source, { state });
const record = (legs: Leg[]): TaskRecord => taskRecord({ legs });
const facts = cleanLegFacts;

describe("planRemove", () => {
  it("removes clean legs, skips removed ones, forgets vanished ones", () => {
    const r = record([leg("api"), leg("web", "removed"), leg("lib")]);
    const f = new Map([
      ["api", facts("api")],
      ["lib", facts("lib", { present: false })],
    ]);
    const plan = planRemove(r, r.legs, f, new Set(), false);
    expect(plan.refused).toBe(false);
    expect(plan.legs.map((l) => [l.source, l.action])).toEqual([
      ["api", "remove"],
      ["web", "skip"],
      ["lib", "forget"],
    ]);
  });

  it("one refusing leg refuses the whole plan", () => {
    const r = record([leg("api"), leg("web")]);
    const f = new Map([
      ["api", facts("api")],
      ["web", facts("web", { dirty: ["x"] })],
    ]);
    const plan = planRemove(r, r.legs, f, new Set(), false);
    expect(plan.refused).toBe(true);
    expect(plan.legs.map((l) => [l.source, l.action, l.standing.map((s) => s.code)])).toEqual([
      ["api", "remove", []],
      ["web", "refuse", ["ERR_DIRTY"]],
    ]);
  });

  it("--snapshot turns lost work into a snapshot; --allow names the loss", () => {
    const r = record([leg("api")]);
    const f = new Map([["api", facts("api", { dirty: ["x"], unreachable: [A] })]]);
    expect(planRemove(r, r.legs, f, new Set(), true).legs[0]).toMatchObject({
      action: "remove",
      snapshot: true,
    });
    expect(
      planRemove(r, r.legs, f, new Set(["dirty"]), false).legs[0]?.standing.map((s) => s.reason),
    ).toEqual(["unreachable"]);
  });

  it.each<[string, Partial<LegFacts>, boolean]>([
    ["a clean leg is only removed", {}, false],
    ["uncommitted changes", { dirty: ["x"] }, true],
    ["a changed overlay copy", { overlayChanged: [".env"] }, true],
    ["a modified skip-worktree file", { skipWorktreeModified: [".mcp.json"] }, true],
    ["commits no ref holds", { unreachable: [A] }, true],
  ])("--snapshot snapshots only a leg with local work: %s", (_name, over, snapshot) => {
    const r = record([leg("api")]);
    const plan = planRemove(r, r.legs, new Map([["api", facts("api", over)]]), new Set(), true);
    expect(plan.legs[0]).toMatchObject({ action: "remove", snapshot });
  });

  it("a vanished worktree locked by someone else is not silently forgotten", () => {
    const r = record([leg("api")]);
    const f = new Map([["api", facts("api", { present: false, lock: "ci" })]]);
    expect(planRemove(r, r.legs, f, new Set(), false).legs[0]).toMatchObject({
      action: "refuse",
      standing: [expect.objectContaining({ reason: "foreign-lock" })],
    });
  });
});

describe("planRemove: forget only what is gone and ours", () => {
  const P = "/w/.ariel/worktrees/t/api";
  it.each<[string, Leg["state"], LegFacts | undefined, string, boolean, string[]]>([
    // name, leg state, facts, action, snapshot in the plan, standing reasons
    ["removed before", "removed", facts("api", { dirty: ["x"] }), "skip", false, []],
    ["snapshotted before", "snapshotted", facts("api", { dirty: ["x"] }), "skip", false, []],
    ["no facts gathered", "active", undefined, "forget", false, []],
    ["gone, unlocked", "active", facts("api", { present: false, lock: null }), "forget", false, []],
    ["gone, locked for us", "active", facts("api", { present: false }), "forget", false, []],
    // An earlier remove that failed half-way leaves the leg `unknown`: it is checked like any other.
    ["state unknown, dirty", "unknown", facts("api", { dirty: ["x"] }), "refuse", false, ["dirty"]],
    ["state unknown, clean", "unknown", facts("api"), "remove", false, []],
    [
      "gone but locked for another task",
      "active",
      facts("api", { present: false, lock: "ariel:u" }),
      "refuse",
      false,
      ["foreign-lock"],
    ],
    [
      "gone but not ours",
      "active",
      facts("api", { present: false, owned: false }),
      "refuse",
      false,
      ["not-ours"],
    ],
    [
      "gone but a main worktree",
      "active",
      facts("api", { present: false, main: true }),
      "refuse",
      false,
      ["main-worktree"],
    ],
  ])("%s → %s", (_name, state, f, action, snapshot, standing) => {
    const r = record([leg("api", state)]);
    const plan = planRemove(r, r.legs, new Map(f ? [["api", f]] : []), new Set(), false);
    expect(plan.legs).toEqual([
      expect.objectContaining({ source: "api", worktreePath: P, action, snapshot }),
    ]);
    expect(plan.legs[0]?.standing.map((s) => s.reason)).toEqual(standing);
    expect(plan.refused).toBe(action === "refuse");
  });

  it("skipped and forgotten legs carry no refusals and no snapshot, even with --snapshot", () => {
    const r = record([leg("api", "removed"), leg("web")]);
    const plan = planRemove(r, r.legs, new Map(), new Set(["dirty"]), true);
    expect(plan).toEqual({
      taskId: "t",
      refused: false,
      legs: [
        { source: "api", worktreePath: P, action: "skip", snapshot: false, refusals: [], standing: [] },
        {
          source: "web",
          worktreePath: "/w/.ariel/worktrees/t/web",
          action: "forget",
          snapshot: false,
          refusals: [],
          standing: [],
        },
      ],
    });
  });

  it("an allowed refusal is kept in `refusals` but not in `standing`", () => {
    const r = record([leg("api")]);
    const plan = planRemove(
      r,
      r.legs,
      new Map([["api", facts("api", { dirty: ["x"] })]]),
      new Set(["dirty"]),
      false,
    );
    expect(plan.legs[0]).toMatchObject({ action: "remove", snapshot: false, standing: [] });
    expect(plan.legs[0]?.refusals.map((x) => x.reason)).toEqual(["dirty"]);
    expect(plan.refused).toBe(false);
  });

  it("plans only the legs it is given", () => {
    const r = record([leg("api"), leg("web")]);
    const plan = planRemove(r, [r.legs[1]!], new Map([["web", facts("web")]]), new Set(), false);
    expect(plan.legs.map((l) => [l.source, l.action])).toEqual([["web", "remove"]]);
  });
});
