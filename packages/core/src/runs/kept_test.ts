import { describe, expect, it } from "vitest";
import { keptWorktree, type LegUser, supersededKept, taskCell } from "./kept.ts";

const at = (m: number) => `2026-12-04T09:${String(m).padStart(2, "0")}:00.000Z`;

/** A run in task t1 on `source`, begun at minute `m`; `kept` when it ended keeping its leg. */
function run(id: string, m: number, over: Partial<LegUser> & { kept?: boolean } = {}): LegUser {
  const { kept = false, ...rest } = over;
  return {
    runId: id,
    createdAt: at(m),
    live: false,
    task: "t1",
    source: "api",
    worktreeOutcome: kept ? { outcome: "kept", reason: "dirty" } : { outcome: "removed", reason: null },
    ...rest,
  };
}

describe("supersededKept", () => {
  it("a kept leg a live run works in is not the old run's to report, whenever that run began", () => {
    expect(
      supersededKept([
        run("r1", 1, { kept: true }),
        run("r2", 5, { live: true, worktreeOutcome: undefined }),
      ]),
    ).toEqual(new Set(["r1"]));
    expect(
      supersededKept([
        run("r1", 5, { kept: true }),
        run("r2", 1, { live: true, worktreeOutcome: undefined }),
      ]),
    ).toEqual(new Set(["r1"]));
  });

  it("a leg kept again by a later run is reported by that one only", () => {
    expect(supersededKept([run("r1", 1, { kept: true }), run("r2", 5, { kept: true })])).toEqual(
      new Set(["r1"]),
    );
  });

  it("stays reported after a later run that ended without keeping it, or kept another leg, or worked elsewhere", () => {
    const runs = [
      run("r1", 1, { kept: true }),
      run("r2", 5, { worktreeOutcome: undefined }),
      run("r3", 6, { kept: true, source: "web" }),
      run("r4", 7, { kept: true, task: "t2" }),
      run("r5", 8, { live: true, task: null, source: "api", worktreeOutcome: undefined }),
      run("r0", 0, { kept: true }),
    ];
    // r0 is superseded by r1 (later, kept the same leg); r1 by no one.
    expect(supersededKept(runs)).toEqual(new Set(["r0"]));
  });

  it("a --span run is superseded only when every leg it kept is taken", () => {
    const span = run("s1", 1, {
      source: null,
      legs: [
        { source: "api", worktree: "/w/t1/api", branch: "ariel/t1" },
        { source: "web", worktree: "/w/t1/web", branch: "ariel/t1" },
      ],
      worktreeOutcome: {
        outcome: "kept",
        reason: "dirty",
        legs: [
          { source: "api", outcome: "kept", reason: "dirty" },
          { source: "web", outcome: "kept", reason: "dirty" },
        ],
      },
    });
    const onApi = run("r2", 5, { live: true, worktreeOutcome: undefined });
    const onWeb = run("r3", 5, { live: true, source: "web", worktreeOutcome: undefined });
    expect(supersededKept([span, onApi])).toEqual(new Set());
    expect(supersededKept([span, onApi, onWeb])).toEqual(new Set(["s1"]));
  });

  it("a run that kept nothing, or ran in no task, is never in the set", () => {
    expect(supersededKept([run("r1", 1), run("r2", 5, { live: true })])).toEqual(new Set());
    expect(
      supersededKept([run("r1", 1, { kept: true, task: null }), run("r2", 5, { live: true, task: null })]),
    ).toEqual(new Set());
  });
});

describe("supersededKept: which runs take a leg", () => {
  const legs = [
    { source: "api", worktree: "/w/t1/api", branch: "ariel/t1" },
    { source: "web", worktree: "/w/t1/web", branch: "ariel/t1" },
  ];
  it.each<[string, LegUser[], string[]]>([
    [
      "a live --span run takes each of its legs",
      [run("r1", 1, { kept: true }), run("r2", 5, { live: true, source: null, legs })],
      ["r1"],
    ],
    [
      "a run in the task's own directory takes that leg",
      [run("r1", 1, { kept: true, source: null }), run("r2", 5, { live: true, source: null })],
      ["r1"],
    ],
    [
      "a run in no task takes no leg, even of a task named null",
      [run("r1", 1, { kept: true, task: "null" }), run("r2", 5, { live: true, task: null })],
      [],
    ],
    ["a run never supersedes itself, live or not", [run("r1", 1, { kept: true, live: true })], []],
    [
      "two runs that kept a leg at the same time both report it",
      [run("r1", 1, { kept: true }), run("r2", 1, { kept: true })],
      [],
    ],
    [
      "a later --span run that kept another leg only",
      [
        run("r1", 1, { kept: true }),
        run("r2", 5, {
          source: null,
          legs,
          worktreeOutcome: {
            outcome: "kept",
            reason: "dirty",
            legs: [
              { source: "api", outcome: "removed", reason: null },
              { source: "web", outcome: "kept", reason: "dirty" },
            ],
          },
        }),
      ],
      [],
    ],
  ])("%s", (_name, runs, want) => {
    expect(supersededKept(runs)).toEqual(new Set(want));
  });
});

describe("keptWorktree", () => {
  it.each<[string, Parameters<typeof keptWorktree>[0], ReturnType<typeof keptWorktree>]>([
    [
      "a run in the task's own directory: its leg is .",
      { task: "t1", source: null, worktreeOutcome: { outcome: "kept", reason: null } },
      {
        task: "t1",
        source: ".",
        reason: "keep",
        next: "ariel-worktree remove --task t1 --source . --snapshot",
      },
    ],
    [
      "a --span leg kept without a reason: kept on request",
      {
        task: "t1",
        source: null,
        worktreeOutcome: {
          outcome: "kept",
          reason: null,
          legs: [
            { source: "api", outcome: "kept", reason: null },
            { source: "web", outcome: "kept", reason: "dirty" },
          ],
        },
      },
      {
        task: "t1",
        source: "api",
        sources: ["api", "web"],
        reason: "keep, dirty",
        next: "ariel-worktree remove --task t1 --source api --source web --snapshot",
      },
    ],
    [
      "a kept worktree of no task",
      { task: null, source: "api", worktreeOutcome: { outcome: "kept", reason: "dirty" } },
      null,
    ],
  ])("%s", (_name, r, want) => {
    expect(keptWorktree(r)).toEqual(want);
  });
});

describe("taskCell", () => {
  it.each<[string, Parameters<typeof taskCell>[0], string]>([
    ["a task run in the task's own directory: the task alone", { task: "t1", source: null }, "t1"],
    ["a --span run with no legs recorded: the task alone", { task: "t1", source: null, legs: [] }, "t1"],
  ])("%s", (_name, r, cell) => {
    expect(taskCell(r)).toBe(cell);
  });
});
