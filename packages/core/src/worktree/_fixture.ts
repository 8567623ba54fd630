/**
 * For the core's unit tests: the facts of a clean leg of task `t` that ariel owns, which no
 * refusal stands against; `over` changes what a case needs. Test-only (the build leaves
 * `_fixture.ts` out); pure: no `node:` imports.
 * @internal
 *
 * @example
 * ```ts
 * cleanLegFacts("api", { dirty: ["a.txt"] }); // the api leg of task t with one dirty file
 * ```
 */
import type { Leg, TaskRecord } from "../schema/task.ts";
import type { LegFacts } from "./refusals.ts";

export const cleanLegFacts = (source: string, over: Partial<LegFacts> = {}): LegFacts => ({
  source,
  worktreePath: `/w/.ariel/worktrees/t/${source}`,
  present: true,
  main: false,
  owned: true,
  lock: "ariel:t",
  checkedOut: "refs/heads/ariel/t",
  recordedBranch: "ariel/t",
  dirty: [],
  overlayChanged: [],
  skipWorktreeModified: [],
  unreachable: [],
  ...over,
});

/** An active leg of task `t` for `source`, at commit a…a, with no overlay; `over` changes the rest. */
export const taskLeg = (source: string, over: Partial<Leg> = {}): Leg => ({
  source,
  sourcePath: `/w/${source}`,
  fingerprint: "f".repeat(64),
  branch: "ariel/t",
  base: "a".repeat(40),
  head: "a".repeat(40),
  worktreePath: `/w/.ariel/worktrees/t/${source}`,
  overlay: [],
  state: "active",
  ...over,
});

/** The record of active task `t` in workspace `/w` (version 1, token 1), legs `api` unless `over` says. */
export const taskRecord = (over: Partial<TaskRecord> = {}): TaskRecord => ({
  v: 1,
  type: "task",
  taskId: "t",
  workspace: { root: "/w", hash: "0123456789abcdef" },
  owner: "me",
  state: "active",
  legs: [taskLeg("api")],
  artifacts: [],
  fencingToken: 1,
  version: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  ...over,
});
