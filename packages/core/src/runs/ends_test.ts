import { describe, expect, it } from "vitest";
import { isArielError } from "../errors.ts";
import { plural } from "../plural.ts";
import type { RunView } from "./backend.ts";
import { type RunEndRecord, runEndLine, runEndRecord } from "./end.ts";
import { keptWorktree, runWorktreeOutcome, taskCell, worktreeCell } from "./kept.ts";
import type { LegOutcome, RunRecord, WorktreeOutcomeRecord } from "./record.ts";
import { nameGlob, type SelectableRun, selectRuns } from "./select.ts";
import type { RunState } from "./state.ts";
import { waitSummaryLine, worstStatus } from "./wait_summary.ts";

const G = "20261203T091500Z-q7w1e0";

/** A run as selection sees it. */
function sel(name: string | null, state: RunState, over: Partial<SelectableRun> = {}): SelectableRun {
  return {
    runId: `20261203T09150${name?.length ?? 0}Z-${(name ?? "anon").padEnd(6, "x").slice(0, 6)}`,
    name,
    group: G,
    createdAt: "2026-12-03T09:15:00.000Z",
    state,
    ...over,
  };
}

/** A final view with an exit status (null: unknown) and a worktree outcome. */
function view(
  name: string,
  state: RunState,
  status: number | null,
  outcome: RunRecord["worktreeOutcome"] = null,
): RunView {
  return {
    state,
    exit: status === null ? null : ({ status, code: status, signal: null } as RunView["exit"]),
    record: {
      runId: `20261203T091500Z-${name
        .replace(/[^a-z]/g, "")
        .padEnd(6, "x")
        .slice(0, 6)}`,
      name,
      task: outcome ? "t1" : null,
      source: name.split("@")[1] ?? ".",
      worktreeOutcome: outcome,
    } as RunRecord,
  };
}

const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (e) {
    return isArielError(e) ? e.code : String(e);
  }
};

describe("selectRuns", () => {
  const runs = [
    sel("agent-a", "running", { runId: "20261203T091500Z-aaaaaa" }),
    sel("agent-b", "exited", { runId: "20261203T091500Z-bbbbbb" }),
    sel("agent-b", "running", { runId: "20261203T091501Z-bbbbb2", createdAt: "2026-12-03T09:15:01.000Z" }),
    sel("other", "starting", { runId: "20261203T091500Z-oooooo", group: "20261203T091500Z-other0" }),
    sel(null, "lost", { runId: "20261203T091500Z-nnnnnn", group: null }),
  ];
  it.each<[string, Parameters<typeof selectRuns>[1], string[] | string]>([
    [
      "--all: the live ones",
      { kind: "all" },
      ["20261203T091500Z-aaaaaa", "20261203T091501Z-bbbbb2", "20261203T091500Z-oooooo"],
    ],
    [
      "--group: the group's runs, ended ones too",
      { kind: "group", group: G },
      ["20261203T091500Z-aaaaaa", "20261203T091500Z-bbbbbb", "20261203T091501Z-bbbbb2"],
    ],
    ["an unknown group", { kind: "group", group: "20261203T000000Z-nonono" }, "ERR_RUN_NOT_FOUND"],
    [
      "a glob: the newest run of each name, by name",
      { kind: "refs", refs: ["agent-*"] },
      ["20261203T091500Z-aaaaaa", "20261203T091501Z-bbbbb2"],
    ],
    [
      "a glob and a name naming one run once",
      { kind: "refs", refs: ["agent-?", "agent-a"] },
      ["20261203T091500Z-aaaaaa", "20261203T091501Z-bbbbb2"],
    ],
    ["a glob that matches nothing", { kind: "refs", refs: ["nobody-*"] }, "ERR_RUN_NOT_FOUND"],
    ["a plain name, as resolveRun", { kind: "refs", refs: ["other"] }, ["20261203T091500Z-oooooo"]],
  ])("%s", (_, selection, want) => {
    if (typeof want === "string") expect(codeOf(() => selectRuns(runs, selection))).toBe(want);
    else expect(selectRuns(runs, selection)).toEqual(want);
  });

  it.each<[string, Parameters<typeof selectRuns>[1], Record<string, unknown>]>([
    [
      "an unknown group",
      { kind: "group", group: "20261203T000000Z-nonono" },
      {
        message: 'no run in group "20261203T000000Z-nonono"',
        hint: "ariel-runs list --all shows each run's group",
        context: { group: "20261203T000000Z-nonono" },
      },
    ],
    [
      "a glob that matches no name",
      { kind: "refs", refs: ["nobody-*"] },
      {
        message: 'no run name matches "nobody-*"',
        hint: "ariel-runs list --all shows every run's name",
        context: { run: "nobody-*" },
      },
    ],
    [
      "a glob that would match only a run without a name",
      { kind: "refs", refs: ["nu*"] },
      { message: 'no run name matches "nu*"' },
    ],
    [
      "a plain name that names no run",
      { kind: "refs", refs: ["nobody"] },
      {
        message: 'no run "nobody"',
        hint: "ariel-runs list --all shows every run",
        context: { run: "nobody" },
      },
    ],
  ])("not found: %s", (_, selection, want) => {
    let err: unknown;
    try {
      selectRuns(runs, selection);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "ERR_RUN_NOT_FOUND", ...want });
  });

  it.each([
    ["agent-*", "agent-1@libs/api", true],
    ["agent-?", "agent-12", false],
    ["a.b", "axb", false],
    ["a.b", "a.b", true],
    ["c++ (x)", "c++ (x)", true],
    ["agent@*", "agent@chalk", true],
  ])("nameGlob(%j) on %j: %j", (glob, name, want) => {
    expect(nameGlob(glob).test(name)).toBe(want);
  });
});

describe("worstStatus and the summary line", () => {
  it.each<[string, (number | null)[], number]>([
    ["no run", [], 0],
    ["all exited 0", [0, 0], 0],
    ["a failure", [0, 1], 1],
    ["a signal outranks not found, which outranks a failure", [2, 127, 143, 1], 143],
    ["an unknown status counts as 1", [0, null], 1],
  ])("%s", (_, statuses, want) => {
    expect(worstStatus(statuses.map((s, i) => view(`r${i}`, s === null ? "lost" : "exited", s)))).toBe(want);
  });

  it("counts by state, names the runs that did not exit 0, and each kept worktree with its command", () => {
    const views = [
      view("agent@debug", "exited", 0, { outcome: "removed", reason: null }),
      view("agent@chalk", "failed", 1, { outcome: "kept", reason: "dirty" }),
      view("agent@ms", "lost", null),
    ];
    expect(waitSummaryLine(views)).toBe(
      "3 runs: 1 exited, 1 failed, 1 lost: agent@chalk (1), agent@ms (lost); " +
        "kept agent@chalk (dirty): ariel-worktree remove --task t1 --source chalk --snapshot",
    );
    expect(waitSummaryLine([view("one", "exited", 0)], "/my ws")).toBe("1 run: 1 exited");
  });
});

describe("kept worktrees and the end of a run", () => {
  it.each<[string, RunRecord["worktreeOutcome"], string, string | null]>([
    ["not isolated", null, "-", null],
    ["removed clean", { outcome: "removed", reason: null }, "removed", null],
    ["snapshotted", { outcome: "snapshotted", reason: null }, "snapshotted", null],
    [
      "kept dirty",
      { outcome: "kept", reason: "dirty" },
      "kept (dirty)",
      "ariel-worktree remove --task t1 --source api --snapshot",
    ],
    [
      "kept on request",
      { outcome: "kept", reason: "keep" },
      "kept (keep)",
      "ariel-worktree remove --task t1 --source api --snapshot",
    ],
    [
      "kept after an error",
      { outcome: "kept", reason: "ERR_GIT" },
      "kept (ERR_GIT)",
      "ariel-worktree remove --task t1 --source api",
    ],
  ])("%s", (_, outcome, cell, next) => {
    const r = { task: outcome ? "t1" : null, source: "api", worktreeOutcome: outcome };
    expect(worktreeCell(r)).toBe(cell);
    expect(keptWorktree(r)?.next ?? null).toBe(next);
  });

  describe("a --span run: each leg on its own", () => {
    const legs = [
      { source: "api", worktree: "/w/.ariel/worktrees/t1/api", branch: "ariel/t1" },
      { source: "web", worktree: "/w/.ariel/worktrees/t1/web", branch: "ariel/t1" },
    ];
    const span = (outcome: RunRecord["worktreeOutcome"]) => ({
      task: "t1",
      source: null,
      legs,
      worktreeOutcome: outcome,
    });
    it.each<[string, RunRecord["worktreeOutcome"], string, string | null, string[] | undefined]>([
      [
        "one leg kept dirty, the other removed",
        {
          outcome: "kept",
          reason: "dirty",
          legs: [
            { source: "api", outcome: "removed", reason: null },
            { source: "web", outcome: "kept", reason: "dirty" },
          ],
        },
        "kept web (dirty)",
        "ariel-worktree remove --task t1 --source web --snapshot",
        ["web"],
      ],
      [
        "both kept, for two reasons",
        {
          outcome: "kept",
          reason: "dirty",
          legs: [
            { source: "api", outcome: "kept", reason: "dirty" },
            { source: "web", outcome: "kept", reason: "ERR_GIT" },
          ],
        },
        "kept api,web (dirty, ERR_GIT)",
        "ariel-worktree remove --task t1 --source api --source web",
        ["api", "web"],
      ],
      [
        "both removed",
        {
          outcome: "removed",
          reason: null,
          legs: [
            { source: "api", outcome: "removed", reason: null },
            { source: "web", outcome: "removed", reason: null },
          ],
        },
        "removed",
        null,
        undefined,
      ],
    ])("%s", (_, outcome, cell, next, sources) => {
      expect(worktreeCell(span(outcome))).toBe(cell);
      expect(keptWorktree(span(outcome))?.next ?? null).toBe(next);
      expect(keptWorktree(span(outcome))?.sources).toEqual(sources);
    });

    it.each<[string, LegOutcome[], boolean, WorktreeOutcomeRecord]>([
      [
        "all removed, per leg",
        [
          { source: "api", outcome: "removed", reason: null },
          { source: "web", outcome: "removed", reason: null },
        ],
        true,
        {
          outcome: "removed",
          reason: null,
          legs: [
            { source: "api", outcome: "removed", reason: null },
            { source: "web", outcome: "removed", reason: null },
          ],
        },
      ],
      [
        "a kept leg makes the run's outcome kept, with its reason",
        [
          { source: "api", outcome: "snapshotted", reason: null },
          { source: "web", outcome: "kept", reason: "dirty" },
        ],
        false,
        { outcome: "kept", reason: "dirty" },
      ],
      [
        "snapshotted over removed",
        [
          { source: "api", outcome: "removed", reason: null },
          { source: "web", outcome: "snapshotted", reason: null },
        ],
        false,
        { outcome: "snapshotted", reason: null },
      ],
      [
        "one leg, as before",
        [{ source: "api", outcome: "removed", reason: null }],
        false,
        { outcome: "removed", reason: null },
      ],
    ])("runWorktreeOutcome: %s", (_, legOutcomes, perLeg, want) => {
      expect(runWorktreeOutcome(legOutcomes, perLeg)).toEqual(want);
    });

    it.each<[string, Parameters<typeof taskCell>[0], string]>([
      ["a --span run: its task and every leg", { task: "t1", source: null, legs }, "t1:api,web"],
      ["an isolated run in one leg", { task: "t1", source: "api" }, "t1:api"],
      ["an isolated run with its legs recorded", { task: "t1", source: "api", legs: [legs[0]!] }, "t1:api"],
      ["a run in its checkout: the source", { task: null, source: "api" }, "api"],
      ["neither known", { task: null, source: null }, "-"],
    ])("taskCell: %s", (_, r, cell) => {
      expect(taskCell(r)).toBe(cell);
    });
  });

  it("names -C ROOT when asked", () => {
    const r = { task: "t1", source: "api", worktreeOutcome: { outcome: "kept" as const, reason: "dirty" } };
    expect(keptWorktree(r, "/my ws")?.next).toBe(
      "ariel-worktree remove -C '/my ws' --task t1 --source api --snapshot",
    );
  });

  it.each<[string, RunView, string]>([
    ["exited", view("agent@api", "exited", 0), "exited with status 0"],
    ["lost", view("agent@api", "lost", null), "lost: its exit status is unknown"],
    [
      "failed, worktree kept",
      view("agent@api", "failed", 3, { outcome: "kept", reason: "dirty" }),
      "failed with status 3; kept its worktree (dirty): ariel-worktree remove --task t1 --source api --snapshot",
    ],
    [
      "snapshotted",
      view("agent@api", "exited", 0, { outcome: "snapshotted", reason: null }),
      "exited with status 0; its worktree was snapshotted and removed",
    ],
  ])("the end line of a run that %s", (_, v, tail) => {
    expect(runEndLine(runEndRecord(v))).toBe(`run ${v.record.runId} (agent@api) ${tail}`);
  });

  it("the end record of a killed run that kept its worktree", () => {
    const v = view("agent@api", "killed", 143, { outcome: "kept", reason: "dirty" });
    v.exit = { code: null, signal: "SIGTERM", status: 143 } as RunView["exit"];
    expect(runEndRecord(v, "/my ws")).toEqual({
      v: 1,
      type: "end",
      runId: v.record.runId,
      name: "agent@api",
      state: "killed",
      status: 143,
      code: null,
      signal: "SIGTERM",
      worktree: { outcome: "kept", reason: "dirty" },
      next: "ariel-worktree remove -C '/my ws' --task t1 --source api --snapshot",
    });
  });

  it("the end record of a failed run that left nothing", () => {
    const v = view("agent@api", "failed", 2);
    expect(runEndRecord(v)).toEqual({
      v: 1,
      type: "end",
      runId: v.record.runId,
      name: "agent@api",
      state: "failed",
      status: 2,
      code: 2,
      signal: null,
      worktree: null,
      next: null,
    });
  });

  const end = (over: Partial<RunEndRecord>): RunEndRecord => ({
    v: 1,
    type: "end",
    runId: "20261203T091500Z-k3x9a2",
    name: null,
    state: "exited",
    status: 0,
    code: 0,
    signal: null,
    worktree: null,
    next: null,
    ...over,
  });
  it.each<[string, Partial<RunEndRecord>, string]>([
    ["a run without a name", {}, "run 20261203T091500Z-k3x9a2 exited with status 0"],
    [
      "a worktree kept without a command",
      { worktree: { outcome: "kept", reason: "dirty" } },
      "run 20261203T091500Z-k3x9a2 exited with status 0",
    ],
    [
      "a worktree kept on request",
      {
        worktree: { outcome: "kept", reason: null },
        next: "ariel-worktree remove --task t1 --source . --snapshot",
      },
      "run 20261203T091500Z-k3x9a2 exited with status 0; kept its worktree (keep): ariel-worktree remove --task t1 --source . --snapshot",
    ],
    [
      "a removed worktree",
      { worktree: { outcome: "removed", reason: null }, next: "x" },
      "run 20261203T091500Z-k3x9a2 exited with status 0",
    ],
  ])("the end line of %s", (_, over, line) => {
    expect(runEndLine(end(over))).toBe(line);
  });

  it.each([
    [0, "task", "0 tasks"],
    [1, "task", "1 task"],
    [2, "run", "2 runs"],
  ] as const)("plural(%d, %j)", (n, word, want) => {
    expect(plural(n, word)).toBe(want);
  });
});
