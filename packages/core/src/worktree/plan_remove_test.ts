import { describe, expect, it } from "vitest";
import type { Leg, TaskRecord } from "../schema/task.ts";
import { cleanLegFacts, taskLeg, taskRecord } from "./_fixture.ts";
import { planRemove, type RunAtWork, removesLeg, runInUseError, runInWorktree } from "./plan_remove.ts";
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

describe("planRemove: a run still at work", () => {
  const T = "/w/.ariel/worktrees/t";
  const run = (runId: string, cwd: string, over: Partial<RunAtWork> = {}): RunAtWork => ({
    runId,
    cwd,
    state: "running",
    settling: false,
    ...over,
  });
  const both = record([leg("api"), leg("web")]);
  const clean = new Map([
    ["api", facts("api")],
    ["web", facts("web")],
  ]);

  it("no run: no inUse (and the plan has no such key)", () => {
    const plan = planRemove(both, both.legs, clean, new Set(), false);
    expect("inUse" in plan).toBe(false);
    expect("inUse" in planRemove(both, both.legs, clean, new Set(), false, { runs: [] })).toBe(false);
  });

  it("names the first run at work in a leg it acts on, and that leg", () => {
    const runs = [run("r-other", "/elsewhere"), run("r1", `${T}/web/src`), run("r2", `${T}/api`)];
    const plan = planRemove(both, both.legs, clean, new Set(), false, { runs });
    expect(plan.inUse).toEqual({
      runId: "r1",
      state: "running",
      settling: false,
      source: "web",
      ref: "r1",
      span: false,
    });
    expect(plan.refused).toBe(false); // the legs' own table is unchanged: inUse refuses before it
  });

  it("a --span run (in the task directory, above the legs) is in every leg, named by its ref", () => {
    const plan = planRemove(both, both.legs, clean, new Set(), false, { runs: [run("r1", T)] });
    expect(plan.inUse?.source).toBe("api");
    const named = { runs: [run("r1", T, { ref: "agent" })] };
    for (const only of [0, 1]) {
      expect(planRemove(both, [both.legs[only]!], clean, new Set(), false, named).inUse).toEqual({
        runId: "r1",
        state: "running",
        settling: false,
        source: only === 0 ? "api" : "web",
        ref: "agent",
        span: true,
      });
    }
  });

  it("stands whatever --allow and --snapshot say, and over the legs' own refusals", () => {
    const dirty = new Map([["api", facts("api", { dirty: ["x"] })]]);
    const r = record([leg("api")]);
    const work = { runs: [run("r1", `${T}/api`)] };
    expect(planRemove(r, r.legs, dirty, new Set(["dirty"]), true, work).inUse?.runId).toBe("r1");
    const refused = planRemove(r, r.legs, dirty, new Set(), false, work);
    expect([refused.refused, refused.inUse?.runId]).toEqual([true, "r1"]);
  });

  it("a run in a leg it skips or leaves out is not in the way; a vanished leg it forgets is", () => {
    const r = record([leg("api", "removed"), leg("web")]);
    const work = { runs: [run("r1", `${T}/api`)] };
    expect(planRemove(r, r.legs, clean, new Set(), false, work).inUse).toBeUndefined();
    expect(planRemove(both, [both.legs[1]!], clean, new Set(), false, work).inUse).toBeUndefined();
    const gone = new Map([["api", facts("api", { present: false })]]);
    const forgot = planRemove(both, [both.legs[0]!], gone, new Set(), false, work);
    expect([forgot.legs[0]?.action, forgot.inUse?.runId]).toEqual(["forget", "r1"]);
  });

  it("exceptRun (the monitor settling its own worktree) is not counted; the next run is", () => {
    const runs = [run("r1", `${T}/api`), run("r2", `${T}/web`, { state: "exited", settling: true })];
    const plan = planRemove(both, both.legs, clean, new Set(), false, { runs, exceptRun: "r1" });
    expect(plan.inUse).toEqual({
      runId: "r2",
      state: "exited",
      settling: true,
      source: "web",
      ref: "r2",
      span: false,
    });
    expect(
      planRemove(both, both.legs, clean, new Set(), false, { runs: [runs[0]!], exceptRun: "r1" }).inUse,
    ).toBeUndefined();
  });

  it("removesLeg: an active or unknown leg is acted on, a removed or snapshotted one skipped", () => {
    expect(
      ["active", "unknown", "removed", "snapshotted"].map((st) => removesLeg(leg("api", st as Leg["state"]))),
    ).toEqual([true, true, false, false]);
  });

  it("runInWorktree: the run's cwd in the worktree, or the worktree under it; never a sibling prefix", () => {
    expect(runInWorktree(`${T}/api/src`, `${T}/api`)).toBe(true);
    expect(runInWorktree(T, `${T}/api`)).toBe(true);
    expect(runInWorktree(`${T}/api`, `${T}/api`)).toBe(true);
    expect(runInWorktree(`${T}/api2`, `${T}/api`)).toBe(false);
    expect(runInWorktree(`${T}/web`, `${T}/api`)).toBe(false);
  });

  it("runInUseError: ERR_LEASE_HELD (exit 75) naming the run, its leg and how to end it", () => {
    const one = { span: false, ref: "r1" };
    const running = runInUseError("t", {
      runId: "r1",
      state: "running",
      settling: false,
      source: "api",
      ...one,
    });
    expect(running).toMatchObject({
      code: "ERR_LEASE_HELD",
      exit: 75,
      message: 'task "t" is in use by run r1 (running in leg "api"); nothing was removed',
      hint: "wait for it (ariel-runs wait r1) or stop it (ariel-runs kill r1), then retry",
      context: { task: "t", runId: "r1", state: "running", source: "api" },
    });
    const settling = runInUseError("t", {
      runId: "r2",
      state: "exited",
      settling: true,
      source: "web",
      span: false,
      ref: "r2",
    });
    expect(settling.message).toBe(
      'task "t" is in use by run r2 (ended, its monitor settling it in leg "web"); nothing was removed',
    );
  });

  it("runInUseError: a named run by its name (its id beside it), a --span run in the task's directory", () => {
    const span = runInUseError("t", {
      runId: "r3",
      state: "running",
      settling: false,
      source: "api",
      span: true,
      ref: "agent",
    });
    expect([span.message, span.hint]).toEqual([
      `task "t" is in use by run agent (r3, running in the task's directory, every leg); nothing was removed`,
      "wait for it (ariel-runs wait agent) or stop it (ariel-runs kill agent), then retry",
    ]);
  });
});
