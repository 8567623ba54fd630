import { describe, expect, it } from "vitest";
import { childEnv, planRecord, planSpawn } from "./plan.ts";

const base = {
  root: "/w",
  hash: "0123456789abcdef",
  runId: "20260101T000000Z-abcdef",
  argv: ["make", "test"],
};
const targets = [
  { name: "api", path: "/w/api", checkout: true },
  { name: "web", path: "/w/web", checkout: true },
];
const legs = new Map([
  ["api", { worktree: "/w/.ariel/worktrees/t1/api", branch: "ariel/t1", overlay: [".env"] }],
  ["web", { worktree: "/w/.ariel/worktrees/t1/web", branch: "ariel/t1", overlay: [] }],
]);

describe("planSpawn", () => {
  it("shared mode: cwd is the source, no task variables", () => {
    const units = planSpawn({ ...base, targets });
    expect(units.map((u) => u.cwd)).toEqual(["/w/api", "/w/web"]);
    expect(units[0]?.env).toEqual({
      ARIEL_WORKSPACE_ROOT: "/w",
      ARIEL_WORKSPACE_HASH: "0123456789abcdef",
      ARIEL_RUN_ID: "20260101T000000Z-abcdef",
      ARIEL_SOURCE: "api",
    });
    expect(planRecord(units[1]!)).toEqual({
      v: 1,
      type: "plan",
      action: "spawn.run",
      source: "web",
      cwd: "/w/web",
      worktree: null,
      branch: null,
      overlay: [],
      argv: ["make", "test"],
      env: ["ARIEL_WORKSPACE_ROOT", "ARIEL_WORKSPACE_HASH", "ARIEL_SOURCE", "ARIEL_RUN_ID"],
    });
  });

  it("isolated: cwd is the leg's worktree, with task, worktree and branch", () => {
    const units = planSpawn({
      ...base,
      targets,
      isolation: { taskId: "t1", taskDir: "/w/.ariel/worktrees/t1", legs, span: false },
    });
    expect(units.map((u) => [u.source, u.cwd, u.branch, u.overlay])).toEqual([
      ["api", "/w/.ariel/worktrees/t1/api", "ariel/t1", [".env"]],
      ["web", "/w/.ariel/worktrees/t1/web", "ariel/t1", []],
    ]);
    expect(units[0]?.env.ARIEL_TASK).toBe("t1");
    expect(units[0]?.env.ARIEL_WORKTREE).toBe("/w/.ariel/worktrees/t1/api");
    expect(planRecord(units[0]!).env).toEqual([
      "ARIEL_WORKSPACE_ROOT",
      "ARIEL_WORKSPACE_HASH",
      "ARIEL_SOURCE",
      "ARIEL_TASK",
      "ARIEL_WORKTREE",
      "ARIEL_BRANCH",
      "ARIEL_RUN_ID",
    ]);
  });

  it("span: one unit in the task directory, no ARIEL_SOURCE", () => {
    const units = planSpawn({
      ...base,
      targets,
      isolation: { taskId: "t1", taskDir: "/w/.ariel/worktrees/t1", legs, span: true },
    });
    expect(units).toHaveLength(1);
    expect(units[0]).toMatchObject({
      source: null,
      sources: ["api", "web"],
      cwd: "/w/.ariel/worktrees/t1",
      branch: "ariel/t1",
    });
    expect(units[0]?.env.ARIEL_SOURCE).toBeUndefined();
    expect(planRecord(units[0]!).sources).toEqual(["api", "web"]);
  });

  it("childEnv drops inherited ARIEL_ variables ariel manages and keeps the rest", () => {
    const [unit] = planSpawn({ ...base, targets: [targets[0]!] });
    const env = childEnv({ PATH: "/bin", ARIEL_TASK: "stale", ARIEL_OTHER: "kept", UNSET: undefined }, unit!);
    expect(env).toEqual({ PATH: "/bin", ARIEL_OTHER: "kept", ...unit!.env });
  });
});

describe("planSpawn: whole units", () => {
  const iso = (span: boolean, l = legs) => ({
    taskId: "t1",
    taskDir: "/w/.ariel/worktrees/t1",
    legs: l,
    span,
  });
  const env = {
    ARIEL_WORKSPACE_ROOT: "/w",
    ARIEL_WORKSPACE_HASH: "0123456789abcdef",
    ARIEL_RUN_ID: "20260101T000000Z-abcdef",
  };

  it("span over legs on one branch", () => {
    expect(planSpawn({ ...base, targets, isolation: iso(true) })).toEqual([
      {
        source: null,
        sources: ["api", "web"],
        cwd: "/w/.ariel/worktrees/t1",
        worktree: "/w/.ariel/worktrees/t1",
        branch: "ariel/t1",
        overlay: [],
        argv: ["make", "test"],
        legs: [
          { source: "api", worktree: "/w/.ariel/worktrees/t1/api", branch: "ariel/t1" },
          { source: "web", worktree: "/w/.ariel/worktrees/t1/web", branch: "ariel/t1" },
        ],
        env: {
          ...env,
          ARIEL_TASK: "t1",
          ARIEL_WORKTREE: "/w/.ariel/worktrees/t1",
          ARIEL_BRANCH: "ariel/t1",
        },
      },
    ]);
  });

  it("span over legs on two branches: no branch at all", () => {
    const mixed = new Map([
      ...legs,
      ["web", { worktree: "/w/.ariel/worktrees/t1/web", branch: "other", overlay: [] }],
    ]);
    const [unit] = planSpawn({ ...base, targets, isolation: iso(true, mixed) });
    expect([unit?.branch, "ARIEL_BRANCH" in (unit?.env ?? {})]).toEqual([null, false]);
  });

  it("an isolated unit in full", () => {
    expect(planSpawn({ ...base, targets: [targets[0]!], isolation: iso(false) })).toEqual([
      {
        source: "api",
        sources: ["api"],
        cwd: "/w/.ariel/worktrees/t1/api",
        worktree: "/w/.ariel/worktrees/t1/api",
        branch: "ariel/t1",
        overlay: [".env"],
        argv: ["make", "test"],
        env: {
          ...env,
          ARIEL_SOURCE: "api",
          ARIEL_TASK: "t1",
          ARIEL_WORKTREE: "/w/.ariel/worktrees/t1/api",
          ARIEL_BRANCH: "ariel/t1",
        },
      },
    ]);
  });

  it("a target without a planned leg is a programming error", () => {
    expect(() =>
      planSpawn({
        ...base,
        targets: [{ name: "lib", path: "/w/lib", checkout: true }],
        isolation: iso(false),
      }),
    ).toThrow(new RangeError("no leg planned for source lib"));
  });

  it("units own their argv and overlay: changing one changes no other", () => {
    const units = planSpawn({ ...base, targets, isolation: iso(false) });
    units[0]?.argv.push("x");
    units[0]?.overlay.push("y");
    expect([base.argv, units[1]?.argv, legs.get("api")?.overlay]).toEqual([
      ["make", "test"],
      ["make", "test"],
      [".env"],
    ]);
  });

  it("planRecord redacts credentials in argv", () => {
    const [unit] = planSpawn({ ...base, argv: ["git", "clone", "https://u:p@h/r"], targets: [targets[0]!] });
    expect(planRecord(unit!).argv).toEqual(["git", "clone", "https://h/r"]);
  });
});
