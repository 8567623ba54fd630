import type { FleetRun } from "@ariel/core";
import { describe, expect, it } from "vitest";
import { fleetRun } from "./_fixture.ts";
import { buildRows, matches, type RunItem, runGroup, type TaskItem, taskGroup } from "./items.ts";

const WS = { root: "/w", hash: "h" };

function run(over: Partial<FleetRun> = {}): FleetRun {
  return fleetRun({ workspace: WS, sources: ["a"], argv: ["sleep", "1"], ...over });
}

const item = (r: FleetRun): RunItem => ({
  kind: "run",
  key: `run:h/${r.runId}`,
  run: r,
  attention: null,
  tool: null,
  fresh: false,
});

function task(taskId: string, createdAt = "2026-12-04T00:00:00.000Z"): TaskItem {
  return {
    kind: "task",
    key: `task:h/${taskId}`,
    workspace: WS,
    taskId,
    state: "active",
    legs: [{ source: "a", branch: `ariel/${taskId}`, state: "active" }],
    createdAt,
  };
}

describe("runGroup", () => {
  it.each([
    ["a live busy run", { state: "running", activity: "busy" }, "running"],
    ["a live waiting run", { state: "running", activity: "waiting" }, "needs"],
    ["a starting run", { state: "starting" }, "running"],
    ["a failed run", { state: "failed", status: 1 }, "needs"],
    ["a lost run", { state: "lost" }, "needs"],
    ["a crashed run", { state: "crashed" }, "needs"],
    [
      "an exited run that kept its worktree",
      { state: "exited", kept: { path: "/w/x", reason: "dirty", next: "n" } },
      "needs",
    ],
    ["an exited run", { state: "exited", status: 0 }, "ended"],
    ["a killed run", { state: "killed" }, "ended"],
  ] as const)("%s: %s", (_name, over, want) => {
    expect(runGroup(run(over as Partial<FleetRun>))).toBe(want);
  });
});

describe("taskGroup", () => {
  it.each([
    ["no run: it waits for a person", [], "needs"],
    ["a live run", [run()], "running"],
    ["a waiting run", [run({ activity: "waiting" })], "needs"],
    ["only ended runs", [run({ state: "exited" })], "needs"],
  ] as const)("%s", (_name, runs, want) => {
    expect(taskGroup(runs as unknown as FleetRun[])).toBe(want);
  });
});

describe("buildRows", () => {
  const rows = (runs: FleetRun[], tasks: TaskItem[] = [], filter = "") =>
    buildRows(runs.map(item), tasks, filter).map((r) =>
      r.kind === "header"
        ? `# ${r.group} ${r.count}`
        : r.kind === "empty"
          ? `  ${r.text}`
          : `${"  ".repeat(r.depth + 1)}${r.item.kind === "task" ? `task ${r.item.taskId}` : r.item.run.name}`,
    );

  it("says so when nothing waits, and hides the other groups when empty", () => {
    expect(rows([])).toEqual(["# needs 0", "  Nothing is waiting for you."]);
  });

  it("groups in order, newest first; a task's runs under it; a spawn call's runs together", () => {
    const t = (m: number) => `2026-12-04T00:0${m}:00.000Z`;
    expect(
      rows(
        [
          run({ runId: "20261204T000000Z-aaaaa1", name: "old", startedAt: t(0) }),
          run({ runId: "20261204T000000Z-aaaaa2", name: "g1", group: "G", startedAt: t(1) }),
          run({ runId: "20261204T000000Z-aaaaa3", name: "new", startedAt: t(3) }),
          run({ runId: "20261204T000000Z-aaaaa4", name: "g2", group: "G", startedAt: t(2) }),
          run({
            runId: "20261204T000000Z-aaaaa5",
            name: "in-t",
            task: "t",
            startedAt: t(4),
            activity: "waiting",
          }),
          run({ runId: "20261204T000000Z-aaaaa6", name: "done", state: "exited", status: 0, endedAt: t(5) }),
        ],
        [task("t"), task("idle-task", t(9))],
      ),
    ).toEqual([
      "# needs 3",
      "  task idle-task",
      "  task t",
      "    in-t",
      "# running 4",
      "  new",
      "  g2",
      "  g1",
      "  old",
      "# ended 1",
      "  done",
    ]);
  });

  it("filters by name, source, task, command and state", () => {
    const runs = [
      run({ runId: "20261204T000000Z-aaaaa1", name: "api-fix", sources: ["api"] }),
      run({ runId: "20261204T000000Z-aaaaa2", name: "web", sources: ["web"], argv: ["npm", "test"] }),
    ];
    expect(rows(runs, [], "api")).toEqual([
      "# needs 0",
      "  Nothing is waiting for you.",
      "# running 1",
      "  api-fix",
    ]);
    expect(rows(runs, [], "NPM")).toEqual([
      "# needs 0",
      "  Nothing is waiting for you.",
      "# running 1",
      "  web",
    ]);
    expect(matches(task("t1"), "t1")).toBe(true);
    expect(matches(task("t1"), "zz")).toBe(false);
  });
});
