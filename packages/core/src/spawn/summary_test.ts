import { describe, expect, it } from "vitest";
import { type RunSummaryInput, runSummaryLine } from "./summary.ts";

const base: RunSummaryInput = {
  outcomes: [],
  interrupted: null,
  failFast: false,
  task: null,
  kept: [],
  history: ".ariel/runs/r.ndjson",
};

describe("runSummaryLine", () => {
  it.each<[string, Partial<RunSummaryInput>, string | null]>([
    ["a clean success says nothing", { outcomes: [{ source: "a", status: 0 }] }, null],
    [
      "one failure of two",
      {
        outcomes: [
          { source: "api", status: 0 },
          { source: "citty", status: 3 },
        ],
      },
      "1 of 2 failed: citty (exit 3); history: .ariel/runs/r.ndjson",
    ],
    [
      "a signal is named",
      { outcomes: [{ source: "a", status: 143, signal: "SIGTERM" }] },
      "1 of 1 failed: a (SIGTERM); history: .ariel/runs/r.ndjson",
    ],
    [
      "fail-fast counts what never started",
      {
        failFast: true,
        outcomes: [
          { source: "a", status: 2 },
          { source: "b", status: null },
          { source: "c", status: null },
        ],
      },
      "1 of 3 failed: a (exit 2); 2 not started (--fail-fast); history: .ariel/runs/r.ndjson",
    ],
    [
      "interrupted",
      {
        interrupted: "SIGINT",
        outcomes: [
          { source: "a", status: 130, signal: "SIGINT" },
          { source: "b", status: null },
        ],
      },
      "interrupted (SIGINT): 1 of 2 failed: a (SIGINT); 1 not started; history: .ariel/runs/r.ndjson",
    ],
    [
      "interrupted with every child done",
      { interrupted: "SIGTERM", outcomes: [{ source: "a", status: 0 }] },
      "interrupted (SIGTERM); history: .ariel/runs/r.ndjson",
    ],
    [
      "a kept dirty leg: the command that saves and removes it",
      {
        outcomes: [
          { source: "api", status: 0 },
          { source: "citty", status: 3 },
        ],
        task: "t1",
        kept: [{ source: "citty", reason: "dirty" }],
      },
      "1 of 2 failed: citty (exit 3); kept citty (dirty): ariel-worktree remove --task t1 --snapshot; history: .ariel/runs/r.ndjson",
    ],
    [
      "a leg kept for a reason --snapshot does not cover, with -C",
      {
        outcomes: [{ source: "api", status: 0 }],
        task: "t1",
        kept: [{ source: "api", reason: "foreign-lock" }],
        root: "/my ws",
      },
      "kept api (foreign-lock): ariel-worktree remove -C '/my ws' --task t1; history: .ariel/runs/r.ndjson",
    ],
    [
      "a history path with a space is quoted",
      { outcomes: [{ source: ".", status: 1 }], history: "/st ate/runs/r.ndjson" },
      "1 of 1 failed: . (exit 1); history: '/st ate/runs/r.ndjson'",
    ],
  ])("%s", (_name, input, line) => {
    expect(runSummaryLine({ ...base, ...input })).toBe(line);
  });
});
